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

// restoringWriter is a savepoint store whose first write restores the
// coordinator before it returns: the job's restore lands while the
// savepoint's completion is between its write and the install of the
// latest completed checkpoint (as the harness's restore after a committed
// savepoint did under PCT).
type restoringWriter struct {
	r    *rig
	done bool
}

func (w *restoringWriter) WritePipeline(*Completed) error {
	if !w.done {
		w.done = true
		if err := w.r.c.Restore(true); err != nil {
			w.r.t.Errorf("restore: %v", err)
		}
	}
	return nil
}

// TestCompletionStraddlingRestoreKeepsRestoredGenerationRunning: found by
// checkpoint-progress on h5-savepoint-under-lock (fixed design, PCT seeds
// 500004 and 1500001): a savepoint whose completion straddled a restore
// installed the old generation's SAVEPOINT (final, not restored) as the
// latest completed of the restored generation, which then looked completed
// and never triggered again.
func TestCompletionStraddlingRestoreKeepsRestoredGenerationRunning(t *testing.T) {
	inSim(t, 50, func(t testing.TB, e env.Env) {
		r := newRig(t, e, Config{Interval: time.Second, Timeout: 30 * time.Second})
		defer r.close()
		r.c.Start()
		if !r.waitFor(10*time.Second, func() bool { return r.count(EvCompleted, nil) > 0 }) {
			t.Fatal("no checkpoint completed")
		}
		f, err := r.c.StartSavepoint(&restoringWriter{r: r})
		if err != nil {
			t.Fatal(err)
		}
		f.Get()
		if l := r.c.LatestCompleted(); l != nil && l.Type == Savepoint && !l.Restored {
			t.Fatalf("the restored generation's latest completed is the old generation's savepoint %d", l.ID)
		}
		before := r.count(EvTriggered, func(ev Event) bool { return ev.Type == Checkpoint })
		if !r.waitFor(10*time.Second, func() bool {
			return r.count(EvTriggered, func(ev Event) bool { return ev.Type == Checkpoint }) > before
		}) {
			t.Fatal("the restored generation never triggered a checkpoint again")
		}
	})
}

// TestTriggerOfEarlierGenerationDoesNothing: found by lease-cancel-effect
// on h2-cancel-after-handoff (fixed design, seeds 3000411, 3000415 and
// 3000926 of a 1000-seed campaign from 3000000): a periodic trigger due at
// the instant of a master failover was handed to a dispatch thread, the
// restore's clean then cancelled it (CancelAll, best-effort after the
// hand-off), and its body started. Its chain check passed, because the
// restore ends the old chain only when it resumes, and by the time it took
// coord.lock restoreState had cleared shutdown: it triggered a checkpoint in
// the restored generation. The body here is given the live chain token, as
// in that window; only the generation it was armed in tells it is stale.
func TestTriggerOfEarlierGenerationDoesNothing(t *testing.T) {
	inSim(t, 20, func(t testing.TB, e env.Env) {
		r := newRig(t, e, Config{Interval: 2 * time.Second, Timeout: 30 * time.Second})
		defer r.close()
		r.c.Start()
		if !r.waitFor(10*time.Second, func() bool { return r.completed() > 0 }) {
			t.Fatal("nothing completed")
		}
		stale := r.c.genNow.Load()
		done := r.completed()
		if err := r.c.Restore(true); err != nil {
			t.Fatal(err)
		}
		if !r.waitFor(10*time.Second, func() bool { return r.completed() > done && r.c.PendingCount() == 0 }) {
			t.Fatal("the restored generation completed nothing")
		}
		tok := r.c.newChain()    // end the live chain: nothing else triggers from here on
		e.Sleep(3 * time.Second) // past the interval: guard 3 holds nothing back
		if r.c.PendingCount() != 0 {
			t.Fatal("a checkpoint is still pending")
		}
		armed, triggered := r.count(EvTriggerArmed, nil), r.count(EvTriggered, nil)
		if err := r.c.triggerBody(Checkpoint, tok, stale); err != nil {
			t.Fatal(err)
		}
		e.Sleep(time.Second) // the pending checkpoint is built in hops on the executor
		if a, tr := r.count(EvTriggerArmed, nil), r.count(EvTriggered, nil); a != armed || tr != triggered {
			t.Fatalf("a trigger armed in generation %d ran in generation %d: armed %d -> %d, triggered %d -> %d",
				stale, r.c.genNow.Load(), armed, a, triggered, tr)
		}
		// The same body armed in the current generation triggers: the test
		// can fail.
		if err := r.c.triggerBody(Checkpoint, tok, r.c.genNow.Load()); err != nil {
			t.Fatal(err)
		}
		if !r.waitFor(time.Second, func() bool { return r.count(EvTriggered, nil) == triggered+1 }) {
			t.Fatal("a trigger of the current generation did not trigger")
		}
	})
}

// cleanAcrossRestore fails the generation with a task's error report and,
// when the job master is told, restores the pipeline on a thread of its
// own (tasks acknowledge from then on). It returns the checkpoints
// completed in the 10 s after the restore.
func cleanAcrossRestore(t testing.TB, e env.Env, vs variant.Set) int {
	r := newRig(t, e, Config{Interval: 2 * time.Second, Timeout: time.Minute, Variants: vs})
	defer r.close()
	r.withhold = true
	var restored bool
	r.onFailure = func() {
		r.onFailure = nil
		e.Go("job-master", func() {
			r.withhold = false
			if err := r.c.Restore(true); err != nil {
				t.Error(err)
			}
			restored = true
		})
	}
	r.c.Start()
	if !r.waitFor(10*time.Second, func() bool { return r.count(EvTriggered, nil) > 0 }) {
		t.Fatal("nothing triggered")
	}
	r.c.ReportTaskError(r.ids, "task 0 failed")
	if !r.waitFor(10*time.Second, func() bool { return restored }) {
		t.Fatal("the job master never restored")
	}
	before := r.completed()
	e.Sleep(10 * time.Second)
	return r.completed() - before
}

// TestNotifyWaitCleanOutlivesRestore: F027's window. With notify-wait=backoff
// the failure's handler waits one status backoff between telling the job
// master and its clean, while the job master restores; with
// deferred-fence=none (upstream's unfenced clean) the clean then cancels the
// restored generation's trigger and aborts its checkpoints, and nothing
// completes again. The port's fence (deferred-fence=generation) drops the
// late clean.
func TestNotifyWaitCleanOutlivesRestore(t *testing.T) {
	inSim(t, 20, func(t testing.TB, e env.Env) {
		if n := cleanAcrossRestore(t, e, variant.Set{NotifyWait: variant.NotifyBackoff}); n == 0 {
			t.Fatal("with the fence the restored generation completed nothing: the late clean was not dropped")
		}
	})
	inSim(t, 20, func(t testing.TB, e env.Env) {
		if n := cleanAcrossRestore(t, e, variant.Set{NotifyWait: variant.NotifyBackoff, DeferredFence: variant.FenceNone}); n != 0 {
			t.Fatalf("with deferred-fence=none and notify-wait=backoff the late clean should leave the restored generation nothing armed; %d completed", n)
		}
	})
}
