package oracle

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/workloads/cluster"
)

func s(d int) time.Duration { return time.Duration(d) * time.Second }

func TestThreadsPeakCountsExitsBeforeSpawns(t *testing.T) {
	th := Threads{TimerMax: 2, DispatchMax: 2, KeepAlive: s(60)}
	table := []Thread{
		{ID: 1, Name: "d-1", Role: RoleDispatch, Spawned: s(0)},
		{ID: 2, Name: "d-2", Role: RoleDispatch, Spawned: s(0), Exited: true, ExitAt: s(70)}, // reaped idle
		{ID: 3, Name: "d-3", Role: RoleDispatch, Spawned: s(70)},                             // replaces it at the same instant
		{ID: 4, Name: "t-1", Role: RoleTimer, Spawned: s(0)},
		{ID: 5, Name: "other-1", Spawned: s(0)},
		{ID: 9, Name: "d-9", Spawned: s(0)}, // a dispatcher's name, no role: not counted
	}
	var f Findings
	th.Judge(&f, table, nil, s(100))
	if got := IDs(f.List()); len(got) != 0 {
		t.Fatalf("a reap and a spawn at one instant, and an idle reap after the keep-alive, fired %v: %v", got, f.List())
	}
	table = append(table, Thread{ID: 6, Name: "x-4", Role: RoleDispatch, Spawned: s(80)}, Thread{ID: 7, Name: "t-2", Role: RoleTimer, Spawned: s(1)},
		Thread{ID: 8, Name: "t-3", Role: RoleTimer, Spawned: s(2)})
	f = Findings{}
	th.Judge(&f, table, nil, s(100))
	got := f.List()
	if ids := IDs(got); len(ids) != 2 || ids[0] != DispatchBound || ids[1] != TimerThreads {
		t.Fatalf("3 dispatch threads over a bound of 2 and 3 timer threads over 2: fired %v", got)
	}
	if got[0].At != s(2) || got[1].At != s(80) {
		t.Fatalf("first over-bound instants: %v", got)
	}
	if !strings.Contains(got[1].Message, "d-1, d-3, x-4") { // counted by role, named in the message
		t.Errorf("dispatch-bound does not name the threads alive: %s", got[1].Message)
	}
}

func TestWorkerDiedFromThreadTable(t *testing.T) {
	th := Threads{TimerMax: -1, DispatchMax: 8, KeepAlive: s(60)}
	table := []Thread{
		{ID: 1, Name: "d-1", Role: RoleDispatch, Spawned: s(0), Exited: true, ExitAt: s(65)},  // ran a body until 5 s, reaped at 65 s
		{ID: 2, Name: "d-2", Role: RoleDispatch, Spawned: s(0), Exited: true, ExitAt: s(10)},  // its body failed at 10 s and it ended
		{ID: 3, Name: "d-3", Role: RoleDispatch, Spawned: s(1), Exited: true, ExitAt: s(130)}, // ended after the scheduler closed
		{ID: 4, Name: "x-1", Spawned: s(1), Exited: true, ExitAt: s(2)},                       // not a scheduler thread
		{ID: 5, Name: "t-1", Role: RoleTimer, Spawned: s(0), Exited: true, ExitAt: s(30)},     // a timer thread that ended mid-run
	}
	bodies := map[int32]time.Duration{1: s(5), 2: s(10), 3: s(129)}
	var f Findings
	th.Judge(&f, table, bodies, s(120))
	got := f.List()
	if len(got) != 1 || got[0].Check != WorkerDied || got[0].At != s(10) {
		t.Fatalf("want one worker-died at 10 s, got %v", got)
	}
	for _, name := range []string{"d-2 ended", "t-1 ended"} {
		if !strings.Contains(got[0].Message, name) {
			t.Errorf("finding does not name %q: %s", name, got[0].Message)
		}
	}
	if strings.Contains(got[0].Message, "d-1") || strings.Contains(got[0].Message, "d-3") || strings.Contains(got[0].Message, "x-1") {
		t.Errorf("finding names a reaped, closed or foreign thread: %s", got[0].Message)
	}
}

func TestProgressFromStoredCheckpoints(t *testing.T) {
	var now time.Duration
	var f Findings
	p := NewProgress(&f, func() time.Duration { return now })
	store := func(at time.Duration, job int64, pipeline int) {
		now = at
		p.Observe(cluster.Obs{Kind: cluster.ObsStored, Job: job, Pipeline: pipeline, ID: 1})
	}
	store(s(50), 0, 0)  // before heal: does not count
	store(s(130), 0, 1) // within the window
	store(s(200), 0, 2) // after the window
	now = s(300)
	pipes := []Pipe{{Job: 0, Pipeline: 0, Status: "RUNNING", Finished: false, Canceled: false}, {Job: 0, Pipeline: 1, Status: "RUNNING", Finished: false, Canceled: false}, {Job: 0, Pipeline: 2, Status: "RUNNING", Finished: false, Canceled: false},
		{Job: 0, Pipeline: 3, Status: "FINISHED", Finished: true, Canceled: false},  // the harness finished it: it may stop
		{Job: 0, Pipeline: 4, Status: "FINISHED", Finished: false, Canceled: false}, // says FINISHED on its own: not excused
		{Job: 0, Pipeline: 5, Status: "RUNNING", Finished: true, Canceled: false},   // the harness finished it, it never finished
		{Job: 0, Pipeline: 6, Status: "CANCELED", Finished: false, Canceled: true},  // the harness canceled its job: it may stop
		{Job: 0, Pipeline: 7, Status: "CANCELED", Finished: true, Canceled: true}}   // finished, then canceled: need not finish
	stuck := p.Stalled(pipes, s(100), s(60))
	if len(stuck) != 3 || stuck[0].Pipeline != 0 || stuck[1].Pipeline != 2 || stuck[2].Pipeline != 4 {
		t.Fatalf("stalled %v, want pipelines 0, 2 and 4", stuck)
	}
	if got := f.List(); len(got) != 1 || got[0].Check != CheckpointProgress {
		t.Fatalf("findings %v", got)
	}
	f = Findings{}
	p.Unfinished(pipes)
	if got := f.List(); len(got) != 1 || got[0].Check != BoundedFinish || !strings.Contains(got[0].Message, "1 bounded pipelines") ||
		!strings.Contains(got[0].Message, "0/5") {
		t.Fatalf("bounded-finish: %v", got)
	}
	// FINISHED in the store is not enough: the boundary must have shown
	// every task close (a status overwritten to FINISHED, a lost final).
	f = Findings{}
	p.Unfinished([]Pipe{{Job: 1, Pipeline: 0, Status: "FINISHED", Finished: true, Unclosed: []int{2}},
		{Job: 1, Pipeline: 1, Status: "FINISHED", Finished: true}})
	if got := f.List(); len(got) != 1 || !strings.Contains(got[0].Message, "1/0 (FINISHED; tasks [2] never closed)") {
		t.Fatalf("bounded-finish with a task the boundary never saw close: %v", got)
	}
}

func TestFinishFromIntentAndBoundary(t *testing.T) {
	var now time.Duration
	var f Findings
	fi := NewFinish(&f, func() time.Duration { return now }, 2)
	obs := func(o cluster.Obs) { now += s(1); fi.Observe(o) }
	finished := func(pipeline int) {
		obs(cluster.Obs{Kind: cluster.ObsStatusSet, Job: 0, Pipeline: pipeline, Value: "FINISHED"})
	}
	// Pipeline 0 finishes on its own: finish-unasked.
	finished(0)
	// Pipeline 1: the harness finished its sources; task 0 closed idle on
	// stored checkpoint 4, task 1 acknowledged the final and was told.
	obs(cluster.Obs{Kind: cluster.ObsSourcesFinished, Pipeline: 1})
	obs(cluster.Obs{Kind: cluster.ObsStored, Pipeline: 1, ID: 4})
	obs(cluster.Obs{Kind: cluster.ObsNotified, Pipeline: 1, ID: 4, Task: 0, Closes: true})
	obs(cluster.Obs{Kind: cluster.ObsTaskClosed, Pipeline: 1, ID: 4, Task: 0})
	obs(cluster.Obs{Kind: cluster.ObsAck, Pipeline: 1, ID: 9, Task: 1, Final: true, Stamp: 77})
	obs(cluster.Obs{Kind: cluster.ObsNotified, Pipeline: 1, ID: 9, Task: 1, Final: true, Stamp: 77})
	finished(1)
	// Pipeline 2: the harness finished it; task 1 is told of a final it
	// never acknowledged (another trigger timestamp), task 0 is told it
	// closes but never closes.
	obs(cluster.Obs{Kind: cluster.ObsSourcesFinished, Pipeline: 2})
	obs(cluster.Obs{Kind: cluster.ObsNotified, Pipeline: 2, ID: 5, Task: 0, Closes: true})
	obs(cluster.Obs{Kind: cluster.ObsAck, Pipeline: 2, ID: 9, Task: 1, Final: true, Stamp: 1})
	obs(cluster.Obs{Kind: cluster.ObsNotified, Pipeline: 2, ID: 9, Task: 1, Final: true, Stamp: 2})
	finished(2)
	got := f.List()
	if len(got) != 2 || got[0].Check != FinishUnasked || got[0].Subject != Subject(0, 0) ||
		got[1].Check != FinishBeforeClose || got[1].Subject != Subject(0, 2) || !strings.Contains(got[1].Message, "[0 1]") {
		t.Fatalf("findings %v", got)
	}
	if at, ok := fi.SourcesFinished(0, 1); !ok || at == 0 {
		t.Fatalf("pipeline 1's sources: %v %v", at, ok)
	}
	if _, ok := fi.SourcesFinished(0, 0); ok {
		t.Fatal("pipeline 0's sources were never finished")
	}
}

// TestCancelStops: an id allocated for a pipeline after the harness's
// cancel of its job returned is a cancel-stops finding; one allocated
// before, or for another pipeline, is not.
func TestCancelStops(t *testing.T) {
	var f Findings
	now := time.Duration(0)
	p := NewProgress(&f, func() time.Duration { return now })
	p.Observe(cluster.Obs{Kind: cluster.ObsAllocate, Job: 1, Pipeline: 0, ID: 4})
	now = time.Second
	p.Observe(cluster.Obs{Kind: cluster.ObsCanceled, Job: 1, Pipeline: 0})
	p.Observe(cluster.Obs{Kind: cluster.ObsAllocate, Job: 1, Pipeline: 1, ID: 9}) // not canceled
	p.Observe(cluster.Obs{Kind: cluster.ObsAllocate, Job: 0, Pipeline: 0, ID: 9}) // another job
	if got := f.List(); len(got) != 0 {
		t.Fatalf("findings before a late allocation: %v", got)
	}
	if !p.Canceled(1, 0) || p.Canceled(1, 1) {
		t.Fatalf("Canceled(1,0)=%v Canceled(1,1)=%v", p.Canceled(1, 0), p.Canceled(1, 1))
	}
	now = 2 * time.Second
	p.Observe(cluster.Obs{Kind: cluster.ObsAllocate, Job: 1, Pipeline: 0, ID: 5})
	if got := f.List(); len(got) != 1 || got[0].Check != CancelStops || !strings.Contains(got[0].Message, "checkpoint 5") {
		t.Fatalf("findings %v, want one cancel-stops for checkpoint 5", got)
	}
}

// TestRedeployMustStart: after a redeploy's last READY_START the pipeline
// triggers within RedeployWithin, unless a restore, failure notification,
// step-down, cancel or the end of its sources takes it over within that
// time; a trigger, or a take-over, that comes later, and a wait still
// open past the bound at the end of the run, are checkpoint-progress.
func TestRedeployMustStart(t *testing.T) {
	last := cluster.Obs{Kind: cluster.ObsTaskReport, Value: cluster.ReportLastReadyStart}
	ready := cluster.Obs{Kind: cluster.ObsTaskReport, Value: cluster.ReportReadyStart}
	alloc := cluster.Obs{Kind: cluster.ObsAllocate, ID: 7}
	type ev struct {
		at time.Duration
		o  cluster.Obs
	}
	cases := []struct {
		name string
		evs  []ev
		end  time.Duration
		fire bool
	}{
		{"a trigger in time", []ev{{s(10), last}, {s(25), alloc}}, s(100), false},
		{"a late trigger", []ev{{s(10), last}, {s(45), alloc}}, s(100), true},
		{"no trigger to the end", []ev{{s(10), last}}, s(100), true},
		{"no trigger, the run ends within the bound", []ev{{s(10), last}}, s(35), false},
		{"a READY_START that is not the last", []ev{{s(10), ready}}, s(100), false},
		{"a restore in time", []ev{{s(10), last}, {s(20), cluster.Obs{Kind: cluster.ObsRestoreBegin}}}, s(100), false},
		{"a restore too late", []ev{{s(10), last}, {s(60), cluster.Obs{Kind: cluster.ObsRestoreBegin}}}, s(100), true},
		{"a failure notification in time", []ev{{s(10), last}, {s(20), cluster.Obs{Kind: cluster.ObsFailure}}}, s(100), false},
		{"a step-down in time", []ev{{s(10), last}, {s(20), cluster.Obs{Kind: cluster.ObsFault, Pipeline: -1, Fault: cluster.FaultStepDown}}}, s(100), false},
		{"a step-down too late", []ev{{s(10), last}, {s(50), cluster.Obs{Kind: cluster.ObsFault, Pipeline: -1, Fault: cluster.FaultStepDown}}}, s(100), true},
		{"the job's cancel in time", []ev{{s(10), last}, {s(20), cluster.Obs{Kind: cluster.ObsCanceled}}}, s(100), false},
		{"another pipeline's trigger", []ev{{s(10), last}, {s(20), cluster.Obs{Kind: cluster.ObsAllocate, Pipeline: 1, ID: 7}}}, s(100), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var f Findings
			var now time.Duration
			p := NewProgress(&f, func() time.Duration { return now })
			p.RedeployWithin = s(30)
			for _, e := range c.evs {
				now = e.at
				p.Observe(e.o)
			}
			now = c.end
			p.Restarted()
			if got := slices.Contains(IDs(f.List()), CheckpointProgress); got != c.fire {
				t.Errorf("checkpoint-progress fired %v, want %v: %v", got, c.fire, f.List())
			}
		})
	}
}
