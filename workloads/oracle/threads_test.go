package oracle

import (
	"strings"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/sim/cluster"
)

func TestRole(t *testing.T) {
	for name, want := range map[string]bool{
		"checkpoint-dispatcher-3":  true,
		"checkpoint-dispatcher-":   false,
		"checkpoint-dispatcher-3x": false,
		"checkpoint-timer-1":       false,
	} {
		if got := Role(name, "checkpoint-dispatcher-"); got != want {
			t.Errorf("Role(%q) = %v, want %v", name, got, want)
		}
	}
}

func s(d int) time.Duration { return time.Duration(d) * time.Second }

func TestThreadsPeakCountsExitsBeforeSpawns(t *testing.T) {
	th := Threads{TimerRole: "t-", TimerMax: 2, DispatchRole: "d-", DispatchMax: 2, KeepAlive: s(60)}
	table := []sim.ThreadInfo{
		{ID: 1, Name: "d-1", Spawned: s(0)},
		{ID: 2, Name: "d-2", Spawned: s(0), Exited: true, ExitAt: s(70)}, // reaped idle
		{ID: 3, Name: "d-3", Spawned: s(70)},                             // replaces it at the same instant
		{ID: 4, Name: "t-1", Spawned: s(0)},
		{ID: 5, Name: "other-1", Spawned: s(0)},
	}
	var f Findings
	th.Judge(&f, table, nil, s(100))
	if got := IDs(f.List()); len(got) != 0 {
		t.Fatalf("a reap and a spawn at one instant, and an idle reap after the keep-alive, fired %v: %v", got, f.List())
	}
	table = append(table, sim.ThreadInfo{ID: 6, Name: "d-4", Spawned: s(80)}, sim.ThreadInfo{ID: 7, Name: "t-2", Spawned: s(1)},
		sim.ThreadInfo{ID: 8, Name: "t-3", Spawned: s(2)})
	f = Findings{}
	th.Judge(&f, table, nil, s(100))
	got := f.List()
	if ids := IDs(got); len(ids) != 2 || ids[0] != DispatchBound || ids[1] != TimerThreads {
		t.Fatalf("3 dispatch threads over a bound of 2 and 3 timer threads over 2: fired %v", got)
	}
	if got[0].At != s(2) || got[1].At != s(80) {
		t.Fatalf("first over-bound instants: %v", got)
	}
}

func TestWorkerDiedFromThreadTable(t *testing.T) {
	th := Threads{TimerRole: "t-", TimerMax: -1, DispatchRole: "d-", DispatchMax: 8, KeepAlive: s(60)}
	table := []sim.ThreadInfo{
		{ID: 1, Name: "d-1", Spawned: s(0), Exited: true, ExitAt: s(65)},  // ran a body until 5 s, reaped at 65 s
		{ID: 2, Name: "d-2", Spawned: s(0), Exited: true, ExitAt: s(10)},  // its body failed at 10 s and it ended
		{ID: 3, Name: "d-3", Spawned: s(1), Exited: true, ExitAt: s(130)}, // ended after the scheduler closed
		{ID: 4, Name: "x-1", Spawned: s(1), Exited: true, ExitAt: s(2)},   // not a scheduler thread
		{ID: 5, Name: "t-1", Spawned: s(0), Exited: true, ExitAt: s(30)},  // a timer thread that ended mid-run
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
	pipes := []Pipe{{0, 0, "RUNNING"}, {0, 1, "RUNNING"}, {0, 2, "RUNNING"}, {0, 3, "FINISHED"}}
	stuck := p.Stalled(pipes, s(100), s(60))
	if len(stuck) != 2 || stuck[0].Pipeline != 0 || stuck[1].Pipeline != 2 {
		t.Fatalf("stalled %v, want pipelines 0 and 2", stuck)
	}
	if got := f.List(); len(got) != 1 || got[0].Check != CheckpointProgress {
		t.Fatalf("findings %v", got)
	}
	f = Findings{}
	p.Unfinished(pipes)
	if got := f.List(); len(got) != 1 || got[0].Check != BoundedFinish || !strings.Contains(got[0].Message, "3 bounded pipelines") {
		t.Fatalf("bounded-finish: %v", got)
	}
}
