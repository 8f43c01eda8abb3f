package coord

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/core/env"
	"github.com/ckptsim/ckptsim/core/exec"
	"github.com/ckptsim/ckptsim/core/variant"
)

// The paths of this file are ones no simulation of the shipped defaults
// takes (results/coverage/defensive.txt says why for each); each test
// shows what the path does.

// startedRig is a started pipeline of two tasks, task 0 its one source,
// 1 s interval, after its first checkpoint completed with nothing
// pending, under cfg.
func startedRig(t testing.TB, e env.Env, cfg Config) *rig {
	cfg.Interval, cfg.Tasks, cfg.StartingTasks = time.Second, 2, 1
	r := newRig(t, e, cfg)
	r.c.Start()
	if !r.waitFor(30*time.Second, func() bool { return r.completed() > 0 && r.c.PendingCount() == 0 }) {
		r.close()
		t.Fatalf("no checkpoint completed: %v", r.events)
	}
	return r
}

// TestStatusStoreDownForEveryRetry: a status store that fails every try
// of the IMap retry loop. The loop gives up after StatusRetries tries with
// the last error; a status write that still fails is logged and the
// generation goes on (updateStatus); a ready-to-close report whose set
// cannot be persisted returns the error but still triggers the final
// checkpoint; a restore that cannot read the ready set fails its new
// generation visibly (the job master restores again). The simulated status
// store fails one call in twenty at most, independently, and the loop
// tries 30 times: no simulation exhausts it.
func TestStatusStoreDownForEveryRetry(t *testing.T) {
	inSim(t, 10, func(t testing.TB, e env.Env) {
		r := startedRig(t, e, Config{StatusRetries: 3})
		defer r.close()

		tries := 0
		err := r.c.retryStatus(func() error { tries++; return fmt.Errorf("%w: down", ErrRetryable) })
		if tries != 3 || !errors.Is(err, ErrRetryable) {
			t.Fatalf("retryStatus: %d tries, %v; want 3 and the last retryable error", tries, err)
		}

		gen, _ := r.c.Generation()
		key := r.c.statusKey()
		before := r.status[key]
		r.setFails, r.setFailsKey = 100, key
		if w := r.c.updateStatus(gen, Failed); w != statusWritten {
			t.Fatalf("updateStatus of the current generation: %d, want written", w)
		}
		if r.setFails != 97 || r.status[key] != before {
			t.Fatalf("status write: %d tries, status %q; want 3 tries and %q kept", 100-r.setFails, r.status[key], before)
		}
		r.setFails = 0

		r.setFails, r.setFailsKey = 100, r.c.readyToCloseKey()
		err = r.c.ReadyToClose(0)
		if err == nil || !strings.Contains(err.Error(), "persist ready-to-close") || !errors.Is(err, ErrRetryable) {
			t.Fatalf("ReadyToClose with the status store down: %v; want the persist error", err)
		}
		if !r.waitFor(time.Minute, r.finalCompleted) {
			t.Fatal("the final checkpoint never completed after the ready set failed to persist")
		}
	})
	inSim(t, 10, func(t testing.TB, e env.Env) {
		r := startedRig(t, e, Config{StatusRetries: 3})
		defer r.close()
		r.getFails, r.getFailsKey = 100, r.c.readyToCloseKey()
		err := r.c.Restore(true)
		if err == nil || !strings.Contains(err.Error(), "load ready-to-close") {
			t.Fatalf("Restore with the ready set unreadable: %v; want its load error", err)
		}
		if r.getFails != 97 {
			t.Fatalf("%d reads of the ready set, want 3", 100-r.getFails)
		}
		gen, _ := r.c.Generation()
		if r.count(EvGenFailed, func(ev Event) bool { return ev.Gen == gen && ev.Reason == ReasonInsideError }) != 1 {
			t.Fatalf("the restored generation %d did not fail: %v", gen, r.events)
		}
	})
}

// TestRelabelHookSeesEveryExpiry: Hooks.Relabel (the planted relabelling
// mutant of workloads' TestRelabellingStillFails; nil in production) is
// asked about every expiry that reaches the generation fence, with the
// generation that armed it and the current one, and its answer is what
// the fence compares: an expiry of the current generation relabelled as
// an earlier one is dropped as stale instead of failing the generation.
func TestRelabelHookSeesEveryExpiry(t *testing.T) {
	inSim(t, 20, func(t testing.TB, e env.Env) {
		var asked [][2]uint64
		cfg := Config{Interval: 2 * time.Second, Timeout: time.Second}
		cfg.Hooks.Relabel = func(armed, current uint64) uint64 {
			asked = append(asked, [2]uint64{armed, current})
			return current - 1
		}
		r := newRig(t, e, cfg)
		defer r.close()
		r.withhold = true
		r.c.Start()
		if !r.waitFor(10*time.Second, func() bool { return len(asked) > 0 }) {
			t.Fatalf("no expiry asked Relabel: %v", r.events)
		}
		gen, _ := r.c.Generation()
		if asked[0] != [2]uint64{gen, gen} {
			t.Fatalf("Relabel asked %v; want first (%d, %d)", asked, gen, gen)
		}
		if n := r.count(EvGenFailed, nil); n != 0 || len(r.failures) != 0 {
			t.Fatalf("an expiry relabelled as earlier failed the generation: %v", r.events)
		}
		if r.count(EvStaleDropped, func(ev Event) bool { return ev.Reason == ReasonExpired && ev.ArmedGen == gen-1 }) == 0 {
			t.Fatalf("the relabelled expiry was not dropped as stale: %v", r.events)
		}
	})
}

// TestFinalRearmNoneReturnsTheTriggerError: with final-rearm=none
// (upstream) a final trigger that fails inside ReadyToClose is returned to
// the reporting task, which drops it, and nothing re-arms it. Only that
// variant takes the path.
func TestFinalRearmNoneReturnsTheTriggerError(t *testing.T) {
	inSim(t, 10, func(t testing.TB, e env.Env) {
		r := boundedRigWith(t, e, variant.Set{FinalRearm: variant.FinalRearmNone})
		defer r.close()
		r.pool.ShutdownNow() // a step-down: the final trigger's creation is rejected
		err := r.c.ReadyToClose(0)
		if !errors.Is(err, exec.ErrClosed) {
			t.Fatalf("ReadyToClose during a step-down under final-rearm=none: %v; want the rejection", err)
		}
		if n := r.count(EvTriggerArmed, func(ev Event) bool { return ev.Type == CompletedPoint }); n != 0 {
			t.Fatalf("the failed final trigger was re-armed %d times", n)
		}
	})
}

// TestSavepointRequestChecks: a savepoint asked of a coordinator whose
// tasks are not all ready is refused, and a second request while one is
// in flight shares its future. coord.Manager asks each pipeline once per
// job-wide savepoint and shares its own future while one is in flight
// (TriggerSavepoint), so the second request reaches a coordinator only
// from a direct caller.
func TestSavepointRequestChecks(t *testing.T) {
	inSim(t, 20, func(t testing.TB, e env.Env) {
		r := newRig(t, e, Config{Interval: 5 * time.Second, Timeout: 20 * time.Second})
		defer r.close()
		if f, err := r.c.StartSavepoint(nil); !errors.Is(err, ErrTasksNotReady) || f != nil {
			t.Fatalf("savepoint before READY_START: %v, %v; want ErrTasksNotReady", f, err)
		}
		r.ackDelay = 3 * time.Second
		r.c.Start()
		r.waitFor(10*time.Second, func() bool { return r.c.PendingCount() == 1 })
		f1, err := r.c.StartSavepoint(nil)
		if err != nil {
			t.Fatal(err)
		}
		f2, err := r.c.StartSavepoint(nil)
		if err != nil || f2 != f1 {
			t.Fatalf("second request in flight: %p, %v; want the first's future %p", f2, err, f1)
		}
		cp, ok, err := f1.GetFor(time.Minute)
		if !ok || err != nil || cp.Type != Savepoint {
			t.Fatalf("savepoint: %v %v %v", cp, err, ok)
		}
		if n := r.count(EvTriggered, func(ev Event) bool { return ev.Type == Savepoint }); n != 1 {
			t.Fatalf("%d savepoints triggered for two requests, want 1", n)
		}
	})
}

// TestTriggerPanicFailsTheGeneration: a panic in the trigger path fails
// the generation as a trigger error does. Every boundary call's panic is
// already its error (PluginPanic), so only a panic of core's own code
// (here the planted trigger fault) reaches the recover.
func TestTriggerPanicFailsTheGeneration(t *testing.T) {
	inSim(t, 20, func(t testing.TB, e env.Env) {
		planted := false
		cfg := Config{Interval: time.Second, Timeout: time.Second}
		cfg.Hooks.TriggerFault = func(int64, int) error {
			if !planted {
				planted = true
				panic("planted panic in the trigger path")
			}
			return nil
		}
		r := newRig(t, e, cfg)
		defer r.close()
		r.c.Start()
		if !r.waitFor(10*time.Second, func() bool { return len(r.failures) > 0 }) {
			t.Fatalf("the trigger's panic failed nothing: %v", r.events)
		}
		if r.failures[0] != ReasonTriggerFailed {
			t.Fatalf("failures %v, want %s first", r.failures, ReasonTriggerFailed)
		}
	})
}

// TestSupersededTriggerDoesNothing: a CHECKPOINT trigger of a chain a
// newer chain replaced, in the current generation, stops without
// triggering. Under the default variants a chain is replaced only by a
// restore (resumeChain), whose new generation stops the old chain's
// bodies first (staleTrigger); periodic-arm=new-chain replaces it within
// a generation.
func TestSupersededTriggerDoesNothing(t *testing.T) {
	inSim(t, 10, func(t testing.TB, e env.Env) {
		r := startedRig(t, e, Config{})
		defer r.close()
		tok := r.c.newChain() // the live chain ends; tok-1 is the one it replaced
		gen, _ := r.c.Generation()
		triggered, stopped := r.count(EvTriggered, nil), r.count(EvTriggerStopped, nil)
		if err := r.c.triggerBody(Checkpoint, tok-1, gen); err != nil {
			t.Fatal(err)
		}
		if r.count(EvTriggered, nil) != triggered {
			t.Fatalf("a superseded trigger triggered: %v", r.events)
		}
		if r.count(EvTriggerStopped, func(ev Event) bool { return ev.Reason == "superseded periodic trigger" }) != 1 ||
			r.count(EvTriggerStopped, nil) != stopped+1 {
			t.Fatalf("the superseded trigger did not report its stop: %v", r.events)
		}
	})
}

// TestInlineContinuationOfAFailedCreation: with barrier-continuation=
// inline, a creation that already failed when the trigger continues (its
// failure was reported by the hop that failed) sends no barrier and fails
// nothing more. Only that variant continues inline.
func TestInlineContinuationOfAFailedCreation(t *testing.T) {
	inSim(t, 5, func(t testing.TB, e env.Env) {
		r := startedRig(t, e, Config{Variants: variant.Set{BarrierContinuation: variant.ContinueInline}})
		defer r.close()
		sent, failures := len(r.barriers), len(r.failures)
		pf := NewFuture[*Pending](e)
		pf.Fail(errPlanted)
		r.c.lock.Lock()
		r.c.continueInline(pf)
		r.c.lock.Unlock()
		if r.count(EvInlineContinuation, nil) == 0 {
			t.Fatal("no inline continuation")
		}
		if len(r.barriers) != sent || len(r.failures) != failures {
			t.Fatalf("a failed creation sent %d barriers and failed %v", len(r.barriers)-sent, r.failures[failures:])
		}
	})
}

// TestPendingIDsSortedAndDistinct: pendingLocked lists the pending
// checkpoints by id; ids come from the id counter, one per checkpoint, so
// two pending checkpoints never share one.
func TestPendingIDsSortedAndDistinct(t *testing.T) {
	ids := []int64{9, 3, 7}
	c := &Coordinator{pending: map[int64]*Pending{}}
	for _, id := range ids {
		c.pending[id] = &Pending{ID: id}
	}
	var got []int64
	for _, p := range c.pendingLocked() {
		got = append(got, p.ID)
	}
	if !slices.Equal(got, []int64{3, 7, 9}) {
		t.Fatalf("pendingLocked ids %v, want [3 7 9]", got)
	}
}

// TestMalformedReadySetFailsTheRestore: a persisted ready-to-close set
// that is not a list of task numbers fails the restore that reads it, and
// the restored generation fails visibly. Only ReadyToClose writes the set,
// as comma-joined task numbers: no simulation stores another value.
func TestMalformedReadySetFailsTheRestore(t *testing.T) {
	inSim(t, 5, func(t testing.TB, e env.Env) {
		r := startedRig(t, e, Config{})
		defer r.close()
		r.status[r.c.readyToCloseKey()] = "0,one"
		err := r.c.Restore(true)
		if err == nil || !strings.Contains(err.Error(), `ready-to-close entry "one"`) {
			t.Fatalf("Restore with a malformed ready set: %v; want the entry's parse error", err)
		}
		gen, _ := r.c.Generation()
		if r.count(EvGenFailed, func(ev Event) bool { return ev.Gen == gen && ev.Reason == ReasonInsideError }) != 1 {
			t.Fatalf("the restored generation %d did not fail: %v", gen, r.events)
		}
	})
}

// TestBatchCheckpointArmsNoWatchdog: a coordinator without an interval (a
// batch job: Config.Interval 0, no periodic trigger) arms no timeout
// watchdog for a checkpoint it triggers other than a COMPLETED_POINT or a
// savepoint (continuation): a schema change's checkpoint whose tasks never
// acknowledge stays pending past every timeout instead of expiring. Every
// scenario sets checkpoint.interval (at least 10 ms): no simulation runs
// a coordinator without one.
func TestBatchCheckpointArmsNoWatchdog(t *testing.T) {
	inSim(t, 5, func(t testing.TB, e env.Env) {
		r := newRig(t, e, Config{Timeout: time.Second, SchemaTimeout: time.Second})
		defer r.close()
		r.c.cfg.Interval = 0
		r.withhold = true
		r.c.Start()
		if !r.waitFor(5*time.Second, func() bool { return r.c.allTaskReady.Load() }) {
			t.Fatal("the pipeline never started")
		}
		if !r.c.SchemaChangeBefore() {
			t.Fatal("SchemaChangeBefore refused")
		}
		if !r.waitFor(5*time.Second, func() bool { return r.c.PendingCount() == 1 && len(r.barriers) == 2 }) {
			t.Fatalf("no schema-change checkpoint pending with its barriers sent: %d pending, %d barriers", r.c.PendingCount(), len(r.barriers))
		}
		e.Sleep(10 * time.Second) // ten timeouts
		ps := r.c.pendingSnapshot()
		if len(ps) != 1 || ps[0].Type != SchemaChangeBefore {
			t.Fatalf("pending %v; want the one SCHEMA_CHANGE_BEFORE checkpoint", ps)
		}
		if ps[0].watchdog.Load() != nil {
			t.Fatal("a watchdog was armed for a checkpoint of a coordinator without an interval")
		}
		if n := r.count(EvGenFailed, nil); n != 0 || len(r.failures) != 0 {
			t.Fatalf("the checkpoint expired: %v", r.events)
		}
		if got := r.count(EvTriggered, nil); got != 1 {
			t.Fatalf("%d triggers; want the schema change's only (no periodic trigger without an interval)", got)
		}
	})
}

// TestFailureAfterEndingBeganWritesNoFailed: a failure that looked at its
// generation's future while a cancel had begun to end the generation (the
// cancel stores endedGen first, then cleans, writes CANCELED and completes
// the future) writes no FAILED: under the status lock it either lands
// before the cancel's write or sees the ending (F045: it wrote FAILED over
// CANCELED, then lost the future to the cancel and reported nothing).
func TestFailureAfterEndingBeganWritesNoFailed(t *testing.T) {
	inSim(t, 10, func(t testing.TB, e env.Env) {
		r := startedRig(t, e, Config{})
		defer r.close()
		gen, fut := r.c.Generation()
		key := r.c.statusKey()
		r.c.endedGen.Store(gen) // Cancel's first step
		if w := r.c.updateStatus(gen, Failed); w != statusEnded {
			t.Fatalf("updateStatus(FAILED) of an ending generation: %d, want ended", w)
		}
		r.c.handleError(gen, ReasonTaskReported, errors.New("a task's error, as the cancel cleans"), fenceDeferred)
		if got := r.status[key]; got == Failed.String() {
			t.Fatalf("status %q after a failure of a generation a cancel is ending", got)
		}
		if n := r.count(EvGenFailed, nil); n != 0 || fut.Done() {
			t.Fatalf("the failure failed the ending generation: %d failures, future done %v", n, fut.Done())
		}
		r.c.Cancel()
		if !fut.Done() {
			t.Fatal("the cancel left the generation's future open")
		}
		if st, _ := fut.Get(); r.status[key] != Canceled.String() || st != Canceled {
			t.Fatalf("after the cancel: status %q, future %v; want CANCELED for both", r.status[key], st)
		}
	})
}
