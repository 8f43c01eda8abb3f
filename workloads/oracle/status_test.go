package oracle

import (
	"strings"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/workloads/cluster"
)

// TestEndedStaysEnded: after an ending status write, a checkpoint id
// allocated and sent in a barrier is a finding until a restore begins or
// writes RUNNING; a restore that wrote RUNNING before the end does not
// excuse it (F044: the savepoint ended the generation the restore had
// installed). An id allocated after the end and never sent takes nothing;
// one allocated while a restore that had not written RUNNING when the end
// came is still in flight may be that restore's new generation's.
func TestEndedStaysEnded(t *testing.T) {
	var now time.Duration
	var f Findings
	st := NewStatus(&f, func() time.Duration { return now })
	at := func(sec int, o cluster.Obs) { now = s(sec); st.Observe(o) }
	set := func(sec, p int, v string) {
		at(sec, cluster.Obs{Kind: cluster.ObsStatusSet, Job: 0, Pipeline: p, Value: v})
	}
	alloc := func(sec, p int, id int64) {
		at(sec, cluster.Obs{Kind: cluster.ObsAllocate, Job: 0, Pipeline: p, ID: id})
		at(sec, cluster.Obs{Kind: cluster.ObsBarrier, Job: 0, Pipeline: p, ID: id})
	}
	// Pipeline 0: a whole-job restore begins, the old generation's
	// savepoint ends it, the restore reaches it and writes RUNNING: fine.
	at(1, cluster.Obs{Kind: cluster.ObsRestoreBegin, Job: 0, Pipeline: 0})
	set(2, 0, "SUSPEND")
	set(3, 0, "RUNNING")
	alloc(4, 0, 7)
	// Pipeline 1: ended, then a restore begins (its RUNNING write still
	// waiting for the status lock): fine.
	set(2, 1, "FINISHED")
	at(3, cluster.Obs{Kind: cluster.ObsRestoreBegin, Job: 0, Pipeline: 1})
	alloc(4, 1, 8)
	// Pipeline 3: a trigger that passed its guards before the cancel
	// allocates after CANCELED and is refused: no barrier, no finding.
	set(2, 3, "CANCELED")
	at(3, cluster.Obs{Kind: cluster.ObsAllocate, Job: 0, Pipeline: 3, ID: 11})
	// Pipeline 4: a whole-job restore begins, the old generation's
	// savepoint ends it, and the restore, reaching the pipeline, installs
	// a generation that takes an id before its RUNNING write: not judged
	// while that restore is in flight.
	at(1, cluster.Obs{Kind: cluster.ObsRestoreBegin, Job: 0, Pipeline: 4})
	set(2, 4, "SUSPEND")
	alloc(3, 4, 12)
	if got := f.List(); len(got) != 0 {
		t.Fatalf("allocations after a restore re-started the pipeline, or never sent: %v", got)
	}
	at(4, cluster.Obs{Kind: cluster.ObsRestoreEnd, Job: 0, Pipeline: 4})
	alloc(5, 4, 13)
	if got := f.List(); len(got) != 1 || !strings.Contains(got[0].Message, "checkpoint 13 allocated at 5s after the status store was told SUSPEND at 2s") {
		t.Fatalf("want ended-stays-ended on checkpoint 13, once the restore returned without RUNNING: %v", got)
	}
	f = Findings{}
	// Pipeline 2: the restore begins and writes RUNNING, then a savepoint
	// ends the generation it installed, and ids keep coming (F044).
	at(1, cluster.Obs{Kind: cluster.ObsRestoreBegin, Job: 0, Pipeline: 2})
	set(1, 2, "RUNNING")
	set(2, 2, "SUSPEND")
	at(3, cluster.Obs{Kind: cluster.ObsRestoreEnd, Job: 0, Pipeline: 2})
	alloc(5, 2, 9)
	alloc(7, 2, 10)
	got := f.List()
	if len(got) != 1 || got[0].Check != EndedStaysEnded || !strings.Contains(got[0].Message, "checkpoint 9 allocated at 5s after the status store was told SUSPEND at 2s") {
		t.Fatalf("want one ended-stays-ended on checkpoint 9: %v", got)
	}
}

// TestStatusJustified: a pipeline left FAILED needs a failure reported to
// the job master since its last restore began; CANCELED needs the
// harness's cancel; a status written within the grace is not judged.
func TestStatusJustified(t *testing.T) {
	var now time.Duration
	var f Findings
	st := NewStatus(&f, func() time.Duration { return now })
	at := func(sec int, o cluster.Obs) { now = s(sec); st.Observe(o) }
	at(1, cluster.Obs{Kind: cluster.ObsStatusSet, Job: 0, Pipeline: 0, Value: "FAILED"})
	at(1, cluster.Obs{Kind: cluster.ObsFailure, Job: 0, Pipeline: 0, Value: "CHECKPOINT_EXPIRED"}) // reported: fine
	at(2, cluster.Obs{Kind: cluster.ObsFailure, Job: 0, Pipeline: 1})
	at(3, cluster.Obs{Kind: cluster.ObsRestoreBegin, Job: 0, Pipeline: 1})
	at(4, cluster.Obs{Kind: cluster.ObsStatusSet, Job: 0, Pipeline: 1, Value: "FAILED"}) // reported before the restore only
	at(5, cluster.Obs{Kind: cluster.ObsCallIn, Job: 1, Pipeline: -1, Value: "Manager.Cancel"})
	at(6, cluster.Obs{Kind: cluster.ObsStatusSet, Job: 1, Pipeline: 0, Value: "FAILED"})   // the audited race: lost the future to the cancel
	at(7, cluster.Obs{Kind: cluster.ObsStatusSet, Job: 0, Pipeline: 2, Value: "CANCELED"}) // job 0 never canceled
	at(90, cluster.Obs{Kind: cluster.ObsStatusSet, Job: 0, Pipeline: 3, Value: "FAILED"})  // within the grace
	now = s(100)
	st.Judge([]Pipe{{Job: 0, Pipeline: 0, Status: "FAILED"}, {Job: 0, Pipeline: 1, Status: "FAILED"},
		{Job: 1, Pipeline: 0, Status: "FAILED"}, {Job: 0, Pipeline: 2, Status: "CANCELED"}, {Job: 0, Pipeline: 3, Status: "FAILED"}}, s(70))
	got := f.List()
	if len(got) != 3 {
		t.Fatalf("want 3 status-justified findings (0/1, 1/0, 0/2): %v", got)
	}
	for i, want := range []string{"since its last restore began at 3s", "the harness canceled its job at 5s", "the harness never canceled the job"} {
		if got[i].Check != StatusJustified || !strings.Contains(got[i].Message, want) {
			t.Errorf("finding %d: %v; want %q", i, got[i], want)
		}
	}
}

// TestFaultSurfacesWaitsForTheStatusLock: an expiry whose FAILED write
// took the status store before the thread that met a storage fault is no
// finding when that thread's next boundary call is its own FAILED write
// (it waited for the lock: double-failure seed 9 with BUGGIFY on); it is
// one when that thread goes on to another call, or makes none by the end.
func TestFaultSurfacesWaitsForTheStatusLock(t *testing.T) {
	run := func(next *cluster.Obs) []Finding {
		var now time.Duration
		var f Findings
		c := NewCauses(&f, func() time.Duration { return now })
		at := func(ms int, o cluster.Obs) { now = time.Duration(ms) * time.Millisecond; c.Observe(o) }
		at(1000, cluster.Obs{Kind: cluster.ObsAllocate, Job: 0, Pipeline: 0, ID: 14, Thread: 5})
		at(4000, cluster.Obs{Kind: cluster.ObsFault, Job: 0, Pipeline: 0, ID: 14, Fault: cluster.FaultStorage, Thread: 34})
		at(4300, cluster.Obs{Kind: cluster.ObsStatusSet, Job: 0, Pipeline: 0, Value: "FAILED", Thread: 26}) // the expiry's
		at(4600, cluster.Obs{Kind: cluster.ObsFailure, Job: 0, Pipeline: 0, Value: "CHECKPOINT_EXPIRED", Thread: 26})
		if next != nil {
			at(4600, *next)
		}
		c.Finish()
		return f.List()
	}
	if got := run(&cluster.Obs{Kind: cluster.ObsStatusSet, Job: 0, Pipeline: 0, Value: "FAILED", Thread: 34}); len(got) != 0 {
		t.Fatalf("the fault's thread wrote FAILED once it had the lock: %v", got)
	}
	if got := run(&cluster.Obs{Kind: cluster.ObsAllocate, Job: 0, Pipeline: 0, ID: 15, Thread: 34}); len(got) != 1 || got[0].Check != FaultSurfaces {
		t.Fatalf("the fault's thread went on without a failure: want fault-surfaces, got %v", got)
	}
	if got := run(nil); len(got) != 1 || got[0].Check != FaultSurfaces {
		t.Fatalf("the fault's thread made no call by the end: want fault-surfaces, got %v", got)
	}
}
