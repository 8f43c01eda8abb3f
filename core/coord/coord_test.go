package coord

import (
	"bytes"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/core/env"
	"github.com/ckptsim/ckptsim/core/variant"
)

// TestGuardTable checks SPEC 1.4 row by row: each guard's outcome and
// whether it re-arms.
func TestGuardTable(t *testing.T) {
	rows := []struct {
		name    string
		typ     Type
		setup   func(r *rig)
		stopped string        // EvTriggerStopped reason, "" if none
		rearm   time.Duration // EvTriggerArmed delay, -1 if none
		creates bool          // a pending checkpoint is created
	}{
		{"0 scheduler closed", Checkpoint, func(r *rig) { r.s.Close() }, "scheduler closed", -1, false},
		{"1 tasks not ready", Checkpoint, func(r *rig) { r.c.allTaskReady.Store(false) }, "tasks not ready", -1, false},
		{"3 interval not elapsed", Checkpoint, func(r *rig) { r.c.latestTrigger.Store(r.e.Now().Add(-3 * time.Second).UnixNano()) }, "", 7 * time.Second, false},
		{"4 min-pause", Checkpoint, func(r *rig) {
			r.c.cfg.MinPause = 5 * time.Second
			r.c.latestCompleted.Store(&Completed{ID: 1, Type: Checkpoint, CompletedAt: r.e.Now().Add(-time.Second)})
		}, "", 4 * time.Second, false},
		{"5 shut down", Checkpoint, func(r *rig) { r.c.shutdown.Store(true) }, "completed or shut down", -1, false},
		{"5 completed", Savepoint, func(r *rig) { r.c.latestCompleted.Store(&Completed{ID: 9, Type: Savepoint}) }, "completed or shut down", -1, false},
		{"6 schema changing", Checkpoint, func(r *rig) { r.c.schemaChanging.Store(true) }, "schema changing", -1, false},
		{"6 schema type passes", SchemaChangeBefore, func(r *rig) { r.c.schemaChanging.Store(true) }, "", -1, true},
		{"7 pending", Checkpoint, func(r *rig) { r.c.pendingCounter.Store(1) }, "", 500 * time.Millisecond, false},
		{"7 pending savepoint type", Savepoint, func(r *rig) { r.c.pendingCounter.Store(1) }, "", 500 * time.Millisecond, false},
		{"8-9 create and re-arm", Checkpoint, func(r *rig) {}, "", 10 * time.Second, true},
		{"9 final type skips re-arm", CompletedPoint, func(r *rig) {}, "", -1, true},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			inSim(t, 20, func(t testing.TB, e env.Env) {
				r := newRig(t, e, Config{})
				defer r.close()
				e.Sleep(time.Minute) // past the first interval
				r.c.allTaskReady.Store(true)
				row.setup(r)
				if err := r.c.tryTrigger(row.typ, 0, r.c.genNow.Load()); err != nil {
					t.Fatal(err)
				}
				r.checkRow(row.stopped, row.rearm, row.creates)
			})
		})
	}
}

func (r *rig) checkRow(stopped string, rearm time.Duration, creates bool) {
	t := r.t
	if got := r.count(EvTriggerStopped, func(ev Event) bool { return string(ev.Reason) == stopped }); (stopped != "") != (got == 1) {
		t.Errorf("stopped %q: %d events; all: %v", stopped, got, r.events)
	}
	armed := r.count(EvTriggerArmed, nil)
	if rearm < 0 && armed != 0 {
		t.Errorf("re-armed although the guard must not: %v", r.events)
	}
	if rearm >= 0 && r.count(EvTriggerArmed, func(ev Event) bool { return ev.Delay == rearm }) != 1 {
		t.Errorf("want one re-arm after %v: %v", rearm, r.events)
	}
	created := r.waitFor(time.Second, func() bool { return r.count(EvTriggered, nil) > 0 })
	if created != creates {
		t.Errorf("pending created=%v, want %v", created, creates)
	}
}

// TestOnePendingIncreasingIDs: a 10-pipeline job with random ack delays
// never has two pending checkpoints and ids only increase.
func TestOnePendingIncreasingIDs(t *testing.T) {
	inSim(t, 1000, func(t testing.TB, e env.Env) {
		r := newRig(t, e, Config{Interval: 2 * time.Second, Timeout: time.Second})
		defer r.close()
		r.ackDelay = 600 * time.Millisecond
		r.c.Start()
		e.Sleep(30 * time.Second)
		last := int64(0)
		for _, ev := range r.events {
			switch ev.Kind {
			case EvPendingCount:
				if ev.Count > 1 || ev.Count < 0 {
					t.Fatalf("pending counter %d", ev.Count)
				}
			case EvTriggered:
				if ev.ID <= last {
					t.Fatalf("id %d after %d", ev.ID, last)
				}
				last = ev.ID
			}
		}
		if r.completed() < 5 {
			t.Fatalf("only %d checkpoints completed", r.completed())
		}
	})
}

// expiryAcrossRestore holds the expiry behind a blocked coordinator
// executor, restores, then releases it. It returns whether the restored
// generation was failed.
func expiryAcrossRestore(t testing.TB, e env.Env, fence variant.Fence, restore bool) bool {
	r := newRig(t, e, Config{Interval: 2 * time.Second, Timeout: time.Second, Variants: variant.Set{ExpiryFence: fence}})
	defer r.close()
	r.withhold = true
	r.c.Start()
	r.waitFor(10*time.Second, func() bool { return r.count(EvTriggered, nil) > 0 })
	r.gate.block()                                               // the coordinator executor stops taking work
	e.Sleep(1500 * time.Millisecond)                             // the watchdog fires; the expiry waits in the executor
	if r.count(EvGenFailed, nil) != 0 || len(r.gate.held) == 0 { // nothing failed yet
		t.Fatalf("expiry not held: %v", r.events)
	}
	if restore {
		r.withhold = false
		if err := r.c.Restore(true); err != nil {
			t.Fatal(err)
		}
	}
	r.gate.release()
	e.Sleep(5 * time.Second)
	gen, _ := r.c.Generation()
	return r.count(EvGenFailed, func(ev Event) bool { return ev.Gen == gen }) > 0
}

func TestStaleExpiryDoesNotFailRestoredGeneration(t *testing.T) {
	inSim(t, 200, func(t testing.TB, e env.Env) {
		if expiryAcrossRestore(t, e, variant.FenceGeneration, true) {
			t.Fatal("a stale expiry failed the restored generation")
		}
	})
}

func TestUnfencedExpiryFailsRestoredGeneration(t *testing.T) {
	inSim(t, 200, func(t testing.TB, e env.Env) {
		if !expiryAcrossRestore(t, e, variant.FenceNone, true) {
			t.Fatal("with expiry-fence=none the stale expiry should fail the restored generation (H1)")
		}
	})
}

func TestCurrentExpiryStillFails(t *testing.T) {
	inSim(t, 200, func(t testing.TB, e env.Env) {
		if !expiryAcrossRestore(t, e, variant.FenceGeneration, false) {
			t.Fatal("an expiry of the current generation must fail it")
		}
	})
}

// TestSavepointWaitsForPending: a savepoint requested while a periodic
// checkpoint is pending waits for it, then completes, and is never a
// scheduler task.
func TestSavepointWaitsForPending(t *testing.T) {
	inSim(t, 300, func(t testing.TB, e env.Env) {
		r := newRig(t, e, Config{Interval: 5 * time.Second, Timeout: 20 * time.Second})
		defer r.close()
		r.ackDelay = 3 * time.Second
		r.c.Start()
		r.waitFor(10*time.Second, func() bool { return r.c.PendingCount() == 1 })
		f, err := r.c.StartSavepoint(nil)
		if err != nil {
			t.Fatal(err)
		}
		cp, ok, err := f.GetFor(time.Minute)
		if !ok || err != nil || cp.Type != Savepoint {
			t.Fatalf("savepoint: %v %v %v", cp, err, ok)
		}
		if n := r.count(EvTriggerArmed, func(ev Event) bool { return ev.Type == Savepoint }); n != 0 {
			t.Fatalf("the savepoint went to the timer queue %d times", n)
		}
		sp := r.firstOf(EvTriggered, Savepoint)
		prev := r.lastCompletedBefore(sp)
		if prev == nil || prev.Type != Checkpoint {
			t.Fatalf("savepoint did not wait for the pending checkpoint: %v", r.events)
		}
	})
}

func (r *rig) firstOf(k EventKind, typ Type) int {
	for i, ev := range r.events {
		if ev.Kind == k && ev.Type == typ {
			return i
		}
	}
	return -1
}

func (r *rig) lastCompletedBefore(i int) *Event {
	for j := i - 1; j >= 0; j-- {
		if r.events[j].Kind == EvCompleted {
			return &r.events[j]
		}
	}
	return nil
}

// TestFailoverMidProtocol restores during barrier dispatch, during
// completion and during a savepoint; the coordinator keeps its lease and
// completes checkpoints again.
func TestFailoverMidProtocol(t *testing.T) {
	phases := []struct {
		name  string
		setup func(r *rig)
		wait  func(r *rig) bool
	}{
		{"barrier dispatch", func(r *rig) { r.dispatch = 400 * time.Millisecond }, func(r *rig) bool { return r.count(EvTriggered, nil) > 0 }},
		{"completion", func(r *rig) { r.storeLat = 2 * time.Second }, func(r *rig) bool {
			return r.c.PendingCount() == 1 && r.c.lookup(1) != nil && r.c.lookup(1).FullyAcked()
		}},
		{"savepoint", func(r *rig) { r.ackDelay = time.Second }, func(r *rig) bool {
			if r.count(EvTriggered, nil) == 0 {
				return false
			}
			r.c.StartSavepoint(nil)
			return true
		}},
	}
	for _, ph := range phases {
		t.Run(ph.name, func(t *testing.T) {
			inSim(t, 200, func(t testing.TB, e env.Env) {
				r := newRig(t, e, Config{Interval: 2 * time.Second, Timeout: 5 * time.Second})
				defer r.close()
				ph.setup(r)
				lease := r.c.Lease()
				r.c.Start()
				if !r.waitFor(30*time.Second, func() bool { return ph.wait(r) }) {
					t.Fatal("phase not reached")
				}
				if err := r.c.Restore(true); err != nil {
					t.Fatal(err)
				}
				r.dispatch, r.storeLat = 0, 0
				before := r.completed()
				if !r.waitFor(time.Minute, func() bool { return r.completed() >= before+3 }) || r.c.Lease() != lease {
					t.Fatalf("no progress after restore: %d completed, same lease %v", r.completed()-before, r.c.Lease() == lease)
				}
			})
		})
	}
}

// TestStepDownExpiryFallsBackInline: with the coordinator executor shut
// down (master step-down) the expiry still fails the checkpoint, inline.
func TestStepDownExpiryFallsBackInline(t *testing.T) {
	inSim(t, 200, func(t testing.TB, e env.Env) {
		r := newRig(t, e, Config{Interval: 2 * time.Second, Timeout: time.Second})
		defer r.close()
		r.withhold = true
		r.c.Start()
		r.waitFor(10*time.Second, func() bool { return r.count(EvTriggered, nil) > 0 && r.c.PendingCount() == 1 })
		e.Sleep(100 * time.Millisecond) // barriers dispatched, watchdog armed
		r.pool.ShutdownNow()
		e.Sleep(3 * time.Second)
		if r.count(EvExpiryFallback, nil) != 1 || r.count(EvGenFailed, func(ev Event) bool { return ev.Reason == ReasonExpired }) != 1 {
			t.Fatalf("expiry did not fall back inline: %v", r.events)
		}
	})
}

// triggerThrow plants one exception in the trigger path and reports how
// many checkpoints completed afterwards and whether the generation failed.
func triggerThrow(t testing.TB, e env.Env, mode variant.TriggerErrors) (after int, failed bool) {
	planted := false
	cfg := Config{Interval: time.Second, Timeout: time.Second, Variants: variant.Set{TriggerErrors: mode}}
	cfg.Hooks.TriggerFault = func(int64, int) error {
		if planted {
			return nil
		}
		planted = true
		return errPlanted
	}
	r := newRig(t, e, cfg)
	defer r.close()
	r.c.Start()
	e.Sleep(5 * time.Second)
	before := r.completed()
	e.Sleep(20 * time.Second)
	return r.completed() - before, len(r.failures) > 0
}

func TestTriggerErrorsSilentStopsCheckpoints(t *testing.T) {
	inSim(t, 100, func(t testing.TB, e env.Env) {
		if after, failed := triggerThrow(t, e, variant.ErrorsSilent); after != 0 || failed {
			t.Fatalf("silent: %d checkpoints after the throw, failed=%v; want 0 and a running pipeline (H4)", after, failed)
		}
	})
	inSim(t, 100, func(t testing.TB, e env.Env) {
		if after, failed := triggerThrow(t, e, variant.ErrorsReport); after == 0 && !failed {
			t.Fatal("report: checkpoints stopped without a visible failure")
		}
	})
}

func TestWallSmoke(t *testing.T) {
	e := env.Wall{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		r := newRig(t, e, Config{Interval: 20 * time.Millisecond, Timeout: time.Second})
		defer r.close()
		r.ackDelay = time.Millisecond
		r.c.Start()
		if !r.waitFor(10*time.Second, func() bool { return r.completed() >= 10 }) {
			t.Errorf("wall: only %d checkpoints in 10 s", r.completed())
		}
		if err := r.c.Restore(true); err != nil {
			t.Error(err)
		}
		before := r.completed()
		if !r.waitFor(10*time.Second, func() bool { return r.completed() >= before+5 }) {
			t.Error("wall: no progress after restore")
		}
	}()
	<-done
}

// TestNilLeaseRefused pins H7: upstream's coordinator took a null lease
// from a mocked manager and failed later with an NPE; New refuses it at
// construction, naming the job and pipeline.
func TestNilLeaseRefused(t *testing.T) {
	defer func() {
		v := recover()
		if msg, _ := v.(string); msg != "coord: nil scheduler lease for job 7 pipeline 3" {
			t.Fatalf("recovered %v", v)
		}
	}()
	New(Deps{Env: env.Wall{}}, 7, 3, Config{}, nil)
	t.Fatal("New accepted a nil lease")
}

// TestSchemaChangeDuringRestore: a schema change requested while a restore
// is between its clean and its resume (here: a slow status-store read) has
// both triggers dropped by guard 5 (shut down). The schema change must end
// with them, or guard 6 stops every periodic trigger of the restored
// generation for good (found by swarm seed 101259).
func TestSchemaChangeDuringRestore(t *testing.T) {
	inSim(t, 100, func(t testing.TB, e env.Env) {
		r := newRig(t, e, Config{Interval: 2 * time.Second, Timeout: 5 * time.Second})
		defer r.close()
		r.c.Start()
		if !r.waitFor(30*time.Second, func() bool { return r.completed() > 0 }) {
			t.Fatal("no checkpoint before the restore")
		}
		r.getLat = 3 * time.Second
		restored := false
		e.Go("restorer", func() {
			defer func() { restored = true }()
			if err := r.c.Restore(true); err != nil {
				t.Error(err)
			}
		})
		e.Sleep(time.Second) // the restore is reading the status store
		if r.c.SchemaChangeBefore() {
			e.Sleep(500 * time.Millisecond)
			r.c.SchemaChangeAfter()
		}
		if !r.waitFor(time.Minute, func() bool { return restored }) {
			t.Fatal("restore did not return")
		}
		r.getLat = 0
		before := r.completed()
		if !r.waitFor(time.Minute, func() bool { return r.completed() >= before+3 }) {
			t.Fatalf("no checkpoint after the restore: %d completed; stopped: %v", r.completed()-before,
				r.count(EvTriggerStopped, func(ev Event) bool { return ev.Reason == "schema changing" }))
		}
	})
}

// rejectAfter runs its first inline hand-offs on the caller's thread and
// rejects every later one (an executor a master step-down shut down).
type rejectAfter struct {
	inline   int
	rejected int
}

func (s *rejectAfter) Execute(fn func()) error {
	if s.inline > 0 {
		s.inline--
		fn()
		return nil
	}
	s.rejected++
	return errors.New("rejected: coordinator executor shut down")
}

// TestRejectedContinuationUnderLockDoesNotSelfDeadlock: the pending
// checkpoint's creation finished before the trigger registered its
// continuation (the executor ran the three hops first), so the
// registration runs the continuation's hand-off at once, on the trigger's
// dispatch thread, inside coord.lock; a step-down has shut the executor
// down in between and the hand-off is rejected. Failing the generation
// there took coord.lock again for the clean: the dispatch thread waited
// for itself and the pipeline and its job master stopped for good (found
// by PCT, failovers seeds 5000517, 5000641, 5000662). The failure must be
// reported, and the coordinator keep going.
func TestRejectedContinuationUnderLockDoesNotSelfDeadlock(t *testing.T) {
	inSim(t, 10, func(t testing.TB, e env.Env) {
		r := newRig(t, e, Config{Interval: time.Second})
		defer r.close()
		r.c.Start()
		if !r.waitFor(30*time.Second, func() bool { return r.completed() > 0 && r.c.PendingCount() == 0 }) {
			t.Fatalf("no checkpoint completed: %v", r.events)
		}
		s := &rejectAfter{inline: 3} // the creation's three hops, then the continuation's is rejected
		r.gate.replace(s)
		if !r.waitFor(10*time.Second, func() bool { return s.rejected > 0 }) {
			t.Fatalf("no hand-off rejected in 10 s")
		}
		if !r.waitFor(10*time.Second, func() bool { return len(r.failures) > 0 }) {
			t.Fatalf("the rejected continuation failed no generation")
		}
		free := func() bool {
			if r.c.lock.TryLock() {
				r.c.lock.Unlock()
				return true
			}
			return false
		}
		if !r.waitFor(10*time.Second, free) {
			t.Fatalf("coord.lock held for good after the failure (the trigger thread waits for itself)")
		}
	})
}

// TestRestoreSkipsCorruptCheckpoint rots the latest stored checkpoint (one
// byte of one task's state flips, its checksum as stored) and restores: the
// restore must hand the tasks the newest intact checkpoint, never the
// rotted bytes. Before restores verified Completed.Sum, the rotted latest
// was re-committed to every task as it was read.
func TestRestoreSkipsCorruptCheckpoint(t *testing.T) {
	inSim(t, 1000, func(t testing.TB, e env.Env) {
		got, rot, prev := restoreRottedLatest(t, e, variant.Set{})
		if !got.Intact() || got.ID != prev {
			t.Fatalf("the restore re-committed checkpoint %d (intact %v, state %q); want the intact %d before the rotted %d",
				got.ID, got.Intact(), got.States[0], prev, rot.ID)
		}
	})
}

// restoreRottedLatest completes three checkpoints of a rig under vs, rots
// one state byte of the latest stored one, restores, and returns the first
// checkpoint the restore re-committed to the tasks, the rotted latest and
// the id stored before it.
func restoreRottedLatest(t testing.TB, e env.Env, vs variant.Set) (got, rot *Completed, prev int64) {
	r := newRig(t, e, Config{Interval: 2 * time.Second, Timeout: time.Second, Variants: vs})
	defer r.close()
	r.keep = true
	r.c.Start()
	if !r.waitFor(30*time.Second, func() bool { return r.completed() >= 3 }) {
		t.Fatalf("only %d checkpoints completed", r.completed())
	}
	r.gate.block() // no completion moves storage meanwhile
	r.mu.Lock()
	n := len(r.stored)
	latest := r.kept[r.stored[n-1]]
	prev = r.stored[n-2]
	rotted := *latest
	rotted.States = map[TaskID][]byte{}
	for task, b := range latest.States {
		rotted.States[task] = slices.Clone(b)
	}
	rotted.States[0][0] ^= 0x10
	r.kept[rotted.ID] = &rotted
	r.notified = nil
	r.mu.Unlock()
	if err := r.c.Restore(true); err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.notified) == 0 {
		t.Fatal("the restore re-committed no checkpoint")
	}
	return r.notified[0], &rotted, prev
}

// TestRestoreLoadsRottedUnderChecksumIgnore: with checkpoint-checksum=ignore
// (F035's variant: upstream's localfile plugin stores no checksum and only
// deserialises what it reads) the same rotted latest checkpoint is loaded
// and re-committed to the tasks as it was read: the variant keeps the
// behaviour the default fixed.
func TestRestoreLoadsRottedUnderChecksumIgnore(t *testing.T) {
	inSim(t, 1000, func(t testing.TB, e env.Env) {
		got, rot, _ := restoreRottedLatest(t, e, variant.Set{CheckpointChecksum: variant.ChecksumIgnore})
		if got.Intact() || got.ID != rot.ID || !bytes.Equal(got.States[0], rot.States[0]) {
			t.Fatalf("the restore re-committed checkpoint %d (intact %v); want the rotted latest %d as read under checkpoint-checksum=ignore",
				got.ID, got.Intact(), rot.ID)
		}
	})
}

// TestRestoreFailsClosedWhenEveryCheckpointRotted rots every stored
// checkpoint and restores: the restore must fail with
// ErrNoIntactCheckpoint and hand the tasks nothing. Before, the fall-back
// restarted the pipeline as from empty storage, dropping its state
// without a word, while the production store (Checkpoints.Latest) failed
// closed on the same situation.
func TestRestoreFailsClosedWhenEveryCheckpointRotted(t *testing.T) {
	inSim(t, 1000, func(t testing.TB, e env.Env) {
		r := newRig(t, e, Config{Interval: 2 * time.Second, Timeout: time.Second})
		defer r.close()
		r.keep = true
		r.c.Start()
		if !r.waitFor(30*time.Second, func() bool { return r.completed() >= 3 }) {
			t.Fatalf("only %d checkpoints completed", r.completed())
		}
		r.gate.block() // no completion moves storage meanwhile
		r.mu.Lock()
		for _, id := range r.stored {
			cp := r.kept[id]
			if cp == nil || len(cp.States[0]) == 0 {
				t.Fatalf("checkpoint %d kept without task 0's state", id)
			}
			rot := *cp
			rot.States = map[TaskID][]byte{}
			for task, b := range cp.States {
				rot.States[task] = slices.Clone(b)
			}
			rot.States[0][0] ^= 0x10
			r.kept[id] = &rot
		}
		r.notified = nil
		r.mu.Unlock()
		err := r.c.Restore(true)
		if !errors.Is(err, ErrNoIntactCheckpoint) {
			t.Fatalf("restore over only rotted checkpoints returned %v; want ErrNoIntactCheckpoint", err)
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		if len(r.notified) != 0 {
			t.Fatalf("the restore handed the tasks checkpoint %d; want nothing", r.notified[0].ID)
		}
	})
}

// TestRearmOfReplacedGenerationIsStopped: a periodic re-arm that reaches
// the lease after a restore switched the generation but before the
// restore's resume started the new chain (so its chain token is still the
// live one) arms nothing: it is stopped as a trigger of an earlier
// generation. Without the check (mutant rearm-ignores-generation) it arms
// a trigger of the replaced generation. No campaign sees that: the
// resume's newChain cancels the task before the new chain starts, and if
// it runs first its body is fenced (staleTrigger) and makes no boundary
// call, so this test pins the check.
func TestRearmOfReplacedGenerationIsStopped(t *testing.T) {
	inSim(t, 5, func(t testing.TB, e env.Env) {
		r := boundedRig(t, e)
		defer r.close()
		c := r.c
		old, _ := c.Generation()
		c.restoreMu.Lock()
		c.newGeneration() // a restore's switch; its resume has not run
		c.periodicMu.Lock()
		tok := c.periodicTok
		c.periodicMu.Unlock()
		armed := r.count(EvTriggerArmed, nil)
		c.rearm(Checkpoint, time.Second, tok, old)
		c.restoreMu.Unlock()
		if got := r.count(EvTriggerArmed, nil); got != armed {
			t.Fatalf("a re-arm of generation %d armed %d trigger(s) after the restore switched the generation", old, got-armed)
		}
		if r.count(EvTriggerStopped, func(ev Event) bool { return ev.Reason == "trigger of an earlier generation" }) == 0 {
			t.Fatalf("the re-arm was not stopped as a trigger of an earlier generation: %v", r.events)
		}
	})
}

// TestSavepointNotTakenOfRedeployedTasks: a savepoint requested while a
// checkpoint is pending waits for it outside coord.lock; a redeploy
// (Restore(false)) that runs meanwhile leaves its tasks waiting for their
// state, and the savepoint must not be taken of them: it fails with
// ErrTasksNotReady and no SAVEPOINT is triggered. Taken, it became the
// latest completed and was handed back to the redeployed tasks as their
// state (restore-integrity; swarm seed 246 with redeploy).
func TestSavepointNotTakenOfRedeployedTasks(t *testing.T) {
	inSim(t, 40, func(t testing.TB, e env.Env) {
		r := newRig(t, e, Config{Interval: 5 * time.Second, Timeout: 20 * time.Second})
		defer r.close()
		r.ackDelay = 3 * time.Second
		r.c.Start()
		r.waitFor(10*time.Second, func() bool { return r.c.PendingCount() == 1 })
		var done bool
		var spErr error
		e.Go("savepoint", func() {
			f, err := r.c.StartSavepoint(nil)
			if err == nil {
				_, _, err = f.GetFor(time.Minute)
			}
			done, spErr = true, err
		})
		e.Sleep(time.Second) // the savepoint waits for the pending checkpoint
		if err := r.c.Restore(false); err != nil {
			t.Fatal(err)
		}
		if !r.waitFor(time.Minute, func() bool { return done }) {
			t.Fatal("the savepoint request never returned")
		}
		if !errors.Is(spErr, ErrTasksNotReady) || r.firstOf(EvTriggered, Savepoint) >= 0 {
			t.Fatalf("savepoint after a redeploy, tasks not ready: err %v, triggered at event %d", spErr, r.firstOf(EvTriggered, Savepoint))
		}
	})
}
