package coord

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/core/env"
	"github.com/ckptsim/ckptsim/core/exec"
	"github.com/ckptsim/ckptsim/core/variant"
)

// sentSince returns the barriers dispatched at or after t.
func (r *rig) sentSince(t time.Time) []sentBarrier {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []sentBarrier
	for _, s := range r.barriers {
		if !s.at.Before(t) {
			out = append(out, s)
		}
	}
	return out
}

// TestIdleTaskCloses: a non-starting task that asks to close is prepared
// by the next checkpoint, closes when that checkpoint completes, gets no
// barrier afterwards, and stays closed across a restore; idle-restore=forget
// (upstream before #12042) sends it barriers again after the restore.
func TestIdleTaskCloses(t *testing.T) {
	for _, forget := range []bool{false, true} {
		inSim(t, 20, func(t testing.TB, e env.Env) {
			cfg := Config{Interval: time.Second, Tasks: 3, StartingTasks: 1}
			if forget {
				cfg.Variants.IdleRestore = variant.IdleForget
			}
			r := newRig(t, e, cfg)
			defer r.close()
			r.c.Start()
			if err := r.c.ReadyToCloseIdle(0); err == nil {
				t.Errorf("a starting task was accepted as idle")
			}
			if err := r.c.ReadyToCloseIdle(2); err != nil {
				t.Fatalf("ReadyToCloseIdle(2): %v", err)
			}
			if !r.waitFor(time.Minute, func() bool { return slices.Equal(r.c.ClosedTasks(), []TaskID{2}) }) {
				t.Fatalf("task 2 never closed; closed %v", r.c.ClosedTasks())
			}
			prepared := false
			for _, s := range r.sentSince(time.Time{}) {
				prepared = prepared || (s.task == 2 && slices.Equal(s.b.PrepareClose, []TaskID{2}))
			}
			if !prepared {
				t.Errorf("task 2 closed without a barrier preparing it to close")
			}
			closedAt := e.Now()
			r.waitFor(5*time.Second, func() bool { return false })
			for _, s := range r.sentSince(closedAt) {
				if s.task == 2 {
					t.Errorf("barrier %d sent to closed task 2", s.b.ID)
				}
				if !slices.Equal(s.b.Closed, []TaskID{2}) {
					t.Errorf("barrier %d names closed tasks %v, want [2]", s.b.ID, s.b.Closed)
				}
			}
			restoredAt := e.Now()
			if err := r.c.Restore(true); err != nil {
				t.Fatalf("restore: %v", err)
			}
			r.waitFor(5*time.Second, func() bool { return false })
			toClosed := 0
			for _, s := range r.sentSince(restoredAt) {
				if s.task == 2 {
					toClosed++
				}
			}
			if forget && toClosed == 0 {
				t.Errorf("idle-restore=forget: no barrier reached closed task 2 after the restore")
			}
			if !forget && toClosed > 0 {
				t.Errorf("%d barriers reached closed task 2 after the restore", toClosed)
			}
		})
	}
}

// TestRejectedReportHandledInline: READY_START reports that the executor
// rejects still start checkpointing (the first trigger is armed). Dropping
// them left the pipeline without a trigger for good (found by BUGGIFY,
// site executor-rejects, expiries seeds 1 and 2).
func TestRejectedReportHandledInline(t *testing.T) {
	inSim(t, 5, func(t testing.TB, e env.Env) {
		r := newRig(t, e, Config{})
		defer r.close()
		r.pool.ShutdownNow() // every hand-off is rejected
		r.c.Start()
		if n := r.count(EvTriggerArmed, nil); n == 0 {
			t.Errorf("no trigger armed after every task reported READY_START to a rejecting executor")
		}
	})
}

// boundedRig is a started pipeline with one source (task 0) of two tasks,
// 1 s interval, after its first checkpoint completed with nothing pending.
func boundedRig(t testing.TB, e env.Env) *rig { return boundedRigWith(t, e, variant.Set{}) }

// boundedRigWith is boundedRig under the variants vs.
func boundedRigWith(t testing.TB, e env.Env, vs variant.Set) *rig {
	r := newRig(t, e, Config{Interval: time.Second, Tasks: 2, StartingTasks: 1, Variants: vs})
	r.c.Start()
	if !r.waitFor(30*time.Second, func() bool { return r.completed() > 0 && r.c.PendingCount() == 0 }) {
		r.close()
		t.Fatalf("no checkpoint completed: %v", r.events)
	}
	return r
}

// finalCompleted reports whether the COMPLETED_POINT checkpoint completed.
func (r *rig) finalCompleted() bool {
	return r.count(EvCompleted, func(ev Event) bool { return ev.Type == CompletedPoint }) > 0
}

// TestReadyToCloseDuringStepDownStillFinishes: the last source reports
// ready to close (readyToClose) while a master step-down has shut the
// coordinator executor down, so the inline COMPLETED_POINT trigger's
// creation is rejected; the master reactivates with a new executor and
// keeps the coordinator. The report is fire and forget (upstream's
// enumerator sends LastCheckpointNotifyOperation and never repeats it),
// so a trigger lost there left the pipeline checkpointing forever without
// finishing (found by BUGGIFY, site executor-rejects, idle-close-late seed
// 8). The final checkpoint must still complete.
func TestReadyToCloseDuringStepDownStillFinishes(t *testing.T) {
	inSim(t, 20, func(t testing.TB, e env.Env) {
		r := boundedRig(t, e)
		defer r.close()
		// The step-down, the report and the reactivation in one virtual
		// instant: no periodic trigger falls inside the window.
		r.pool.ShutdownNow()
		_ = r.c.ReadyToClose(0) // fire and forget
		r.pool = exec.NewPool(e, exec.PoolConfig{Name: "coordinator-executor", Core: 4, Max: 1 << 20, KeepAlive: time.Minute, Queue: exec.Direct})
		r.gate.replace(r.pool)
		if !r.waitFor(time.Minute, r.finalCompleted) {
			t.Fatalf("the final checkpoint never completed after the rejected readyToClose trigger (%d checkpoints completed since)", r.completed())
		}
	})
}

// TestReadyToClosePersistRetries: the ready-to-close set is persisted with
// the status store's retry loop (SPEC 1.12: retry, throw on failure), so a
// retryable write failure neither fails the report nor drops the final
// trigger of a caller that never repeats it.
func TestReadyToClosePersistRetries(t *testing.T) {
	inSim(t, 20, func(t testing.TB, e env.Env) {
		r := boundedRig(t, e)
		defer r.close()
		r.setFails, r.setFailsKey = 3, r.c.readyToCloseKey()
		if err := r.c.ReadyToClose(0); err != nil {
			t.Errorf("ReadyToClose after 3 retryable write failures: %v", err)
		}
		if got := r.status[r.c.readyToCloseKey()]; got != "0" {
			t.Errorf("persisted ready set %q, want \"0\"", got)
		}
		if !r.waitFor(time.Minute, r.finalCompleted) {
			t.Fatalf("the final checkpoint never completed")
		}
	})
}

// TestFinalDuringRestoreEndsThePipeline: the last source reports ready
// to close while a restore is in flight (its RUNNING write is slow: the
// new generation installed, the old one not yet cleaned, the latest
// checkpoint not yet reloaded). Triggered at once, the final checkpoint
// completed in the new generation, closed the tasks and finished the
// pipeline; then the restore's clean dropped the ready set, it reloaded
// an older checkpoint and resumed periodic checkpoints to the closed
// tasks (barrier-to-closed-task; BUGGIFY status-slow, idle-close-late
// seeds 5300012 and others). Nothing may be triggered after the finish.
func TestFinalDuringRestoreEndsThePipeline(t *testing.T) {
	inSim(t, 20, func(t testing.TB, e env.Env) {
		r := boundedRig(t, e)
		defer r.close()
		r.statusLat = map[string]time.Duration{Running.String(): 2 * time.Second}
		e.Go("restore", func() { _ = r.c.Restore(true) })
		e.Sleep(100 * time.Millisecond) // the restore waits in its RUNNING write
		_ = r.c.ReadyToClose(0)
		if !r.waitFor(time.Minute, func() bool { return r.count(EvFinished, nil) > 0 }) {
			t.Fatalf("the pipeline never finished: %v", r.events)
		}
		e.Sleep(10 * time.Second)
		finished := false
		for _, ev := range r.events {
			finished = finished || ev.Kind == EvFinished
			if finished && ev.Kind == EvTriggered {
				t.Fatalf("checkpoint %d (%v) triggered after the pipeline finished", ev.ID, ev.Type)
			}
		}
	})
}

// TestStaleFailureKeepsFinishedPipelineFinished: a failure of a generation
// a restore replaced (a deferred effect that arrives late) is dropped by
// the generation fence, and must leave no first error behind: Restore
// reads it to tell a finished pipeline whose current generation failed
// since (restored) from one that is done (left alone). Recorded before the
// fence, the stale failure made the job master's next Restore restore the
// finished pipeline again.
func TestStaleFailureKeepsFinishedPipelineFinished(t *testing.T) {
	inSim(t, 20, func(t testing.TB, e env.Env) {
		r := boundedRig(t, e)
		defer r.close()
		if err := r.c.Restore(true); err != nil { // a failover: generation 2
			t.Fatal(err)
		}
		gen, _ := r.c.Generation()
		_ = r.c.ReadyToClose(0)
		if !r.waitFor(time.Minute, func() bool { return r.count(EvFinished, nil) > 0 }) {
			t.Fatalf("the pipeline never finished: %v", r.events)
		}
		r.c.handleError(gen-1, ReasonTriggerFailed, errors.New("a late hop of the replaced generation"), fenceDeferred)
		if r.count(EvStaleDropped, nil) == 0 {
			t.Fatal("the failure of the replaced generation was not dropped as stale")
		}
		gens, first := r.count(EvGeneration, nil), r.c.firstError.Load()
		if err := r.c.Restore(true); err != nil {
			t.Fatal(err)
		}
		if got := r.count(EvGeneration, nil); got != gens {
			t.Fatalf("a stale failure of generation %d made Restore restore the finished pipeline (first error %q)", gen-1, *first)
		}
	})
}

// TestStaleFinalAckDoesNotCount: every COMPLETED_POINT has the same id, so
// an acknowledgement of a replaced generation's final barrier that arrives
// after a restore must not count for the restored generation's final
// checkpoint: AcknowledgeBarrier drops it by its trigger timestamp, and the
// pipeline finishes only on the acknowledgements of its own barriers
// (finish-before-close on idle-close-late seeds 2 and 3). Plain Acknowledge
// (the id alone) cannot tell them apart; the test shows that too.
func TestStaleFinalAckDoesNotCount(t *testing.T) {
	for _, byID := range []bool{false, true} {
		inSim(t, 10, func(t testing.TB, e env.Env) {
			r, finals, old := restoredFinal(t, e, variant.Set{})
			defer r.close()
			for task := range TaskID(2) {
				if byID {
					r.c.Acknowledge(task, old.ID, []byte("s"))
				} else {
					r.c.AcknowledgeBarrier(task, old, []byte("s"))
				}
			}
			e.Sleep(time.Second)
			if got := r.finalCompleted(); got != byID {
				t.Fatalf("final completed on the replaced generation's acknowledgements: %v, want %v", got, byID)
			}
			if byID {
				return
			}
			for _, s := range finals()[2:] {
				r.c.AcknowledgeBarrier(s.task, s.b, []byte("s"))
			}
			if !r.waitFor(10*time.Second, func() bool { return r.count(EvFinished, nil) > 0 }) {
				t.Fatalf("the pipeline did not finish on its own generation's acknowledgements")
			}
		})
	}
}

// restoredFinal is a bounded pipeline under vs whose final checkpoint was
// sent to both tasks and left unacknowledged (the rig withholds acks), then
// restored, and whose restored generation sent its own final: it returns the
// rig, the finals sent so far (in order) and the replaced generation's final.
func restoredFinal(t testing.TB, e env.Env, vs variant.Set) (*rig, func() []sentBarrier, Barrier) {
	r := boundedRigWith(t, e, vs)
	r.mu.Lock()
	r.withhold = true
	r.mu.Unlock()
	finals := func() []sentBarrier {
		var out []sentBarrier
		for _, s := range r.sentSince(time.Time{}) {
			if s.b.Type == CompletedPoint {
				out = append(out, s)
			}
		}
		return out
	}
	_ = r.c.ReadyToClose(0)
	if !r.waitFor(10*time.Second, func() bool { return len(finals()) == 2 }) {
		r.close()
		t.Fatalf("the first final was not sent to both tasks: %v", finals())
	}
	old := finals()[0].b
	e.Sleep(time.Second) // the restored generation's final gets another timestamp
	if err := r.c.Restore(true); err != nil {
		r.close()
		t.Fatalf("restore: %v", err)
	}
	_ = r.c.ReadyToClose(0)
	if !r.waitFor(10*time.Second, func() bool { return len(finals()) == 4 }) {
		r.close()
		t.Fatalf("the restored generation's final was not sent: %v", finals())
	}
	return r, finals, old
}

// TestStaleFinalAckCountsUnderAckMatchID: with ack-match=id (F032's
// variant: upstream's acknowledgeTask matches by the barrier's id alone and
// every COMPLETED_POINT has one id) the replaced generation's final
// acknowledgements, carrying their own barrier, count for the restored
// generation's final, which completes on them: the variant keeps the
// behaviour the default fixed.
func TestStaleFinalAckCountsUnderAckMatchID(t *testing.T) {
	inSim(t, 10, func(t testing.TB, e env.Env) {
		r, finals, old := restoredFinal(t, e, variant.Set{AckMatch: variant.MatchID})
		defer r.close()
		if now := finals()[2].b; now.Timestamp.Equal(old.Timestamp) {
			t.Fatalf("the restored final has the replaced one's timestamp %v: the test shows nothing", now.Timestamp)
		}
		for task := range TaskID(2) {
			r.c.AcknowledgeBarrier(task, old, []byte("s"))
		}
		e.Sleep(time.Second)
		if !r.finalCompleted() {
			t.Fatalf("under ack-match=id the replaced generation's final acknowledgements did not count")
		}
	})
}
