package coord

import (
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/core/env"
	"github.com/ckptsim/ckptsim/core/variant"
)

// Reproductions of the two bugs the harness's boundary-only generation
// checks found in the fixed design (issue 13; results/README.md).

// staleTaskReport triggers a checkpoint whose acknowledgements never come,
// restores (a failover), then lets a task of the old deployment report an
// error for that checkpoint. It returns the failure notifications the job
// master received after the restore.
func staleTaskReport(t testing.TB, e env.Env, fence variant.Fence, restore bool) []Reason {
	r := newRig(t, e, Config{Interval: 2 * time.Second, Timeout: 30 * time.Second, Variants: variant.Set{DeferredFence: fence}})
	defer r.close()
	r.withhold = true
	r.c.Start()
	if !r.waitFor(10*time.Second, func() bool { return r.count(EvTriggered, nil) > 0 }) {
		t.Fatal("nothing triggered")
	}
	id := r.ids
	if restore {
		if err := r.c.Restore(true); err != nil {
			t.Fatal(err)
		}
	}
	before := len(r.failures)
	r.c.ReportTaskError(id, "task 0 failed")
	e.Sleep(time.Second)
	return r.failures[before:]
}

// TestStaleTaskReportDoesNotFailRestoredGeneration: found by
// generation-justified on h9-deferred-fence (fixed design, seed 2 before
// the fix): a task's error report for a checkpoint of a replaced generation
// failed the restored one, because the report carried no checkpoint id and
// was fenced by the generation current when it arrived.
func TestStaleTaskReportDoesNotFailRestoredGeneration(t *testing.T) {
	inSim(t, 100, func(t testing.TB, e env.Env) {
		if got := staleTaskReport(t, e, variant.FenceGeneration, true); len(got) != 0 {
			t.Fatalf("a stale task report failed the restored generation: %v", got)
		}
	})
}

func TestTaskReportOfCurrentCheckpointFails(t *testing.T) {
	inSim(t, 100, func(t testing.TB, e env.Env) {
		if got := staleTaskReport(t, e, variant.FenceGeneration, false); len(got) != 1 || got[0] != ReasonTaskReported {
			t.Fatalf("a task report of the pending checkpoint must fail its generation once: %v", got)
		}
	})
}

func TestUnfencedStaleTaskReportFailsRestoredGeneration(t *testing.T) {
	inSim(t, 100, func(t testing.TB, e env.Env) {
		if got := staleTaskReport(t, e, variant.FenceNone, true); len(got) != 1 {
			t.Fatalf("with deferred-fence=none the stale report should fail the restored generation (H9): %v", got)
		}
	})
}

// TestStaleFailedStatusDoesNotOverwriteRunning: found by the generation
// model once it read the status store in simulation (h9-deferred-fence and
// swarm, fixed design): a failing generation's FAILED write, slower than the
// RUNNING write of the restore that replaced it, landed last and left the
// running generation marked FAILED in the status store.
func TestStaleFailedStatusDoesNotOverwriteRunning(t *testing.T) {
	inSim(t, 100, func(t testing.TB, e env.Env) {
		r := newRig(t, e, Config{Interval: 2 * time.Second, Timeout: 30 * time.Second})
		defer r.close()
		r.withhold = true
		r.c.Start()
		if !r.waitFor(10*time.Second, func() bool { return r.count(EvTriggered, nil) > 0 }) {
			t.Fatal("nothing triggered")
		}
		r.statusLat = map[string]time.Duration{Failed.String(): 500 * time.Millisecond, Running.String(): 10 * time.Millisecond}
		r.c.ReportTaskError(r.ids, "task 0 failed") // the generation fails; its FAILED write is slow
		e.Sleep(50 * time.Millisecond)
		if err := r.c.Restore(true); err != nil { // a failover meanwhile
			t.Fatal(err)
		}
		e.Sleep(2 * time.Second)
		if got := r.status[r.c.statusKey()]; got != Running.String() {
			t.Fatalf("status of the running generation is %q", got)
		}
	})
}
