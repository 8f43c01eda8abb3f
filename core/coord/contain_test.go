package coord

import (
	"errors"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/core/env"
	"github.com/ckptsim/ckptsim/core/variant"
)

// TestBoundaryPanicFailsTheCheckpoint: a plugin call that panics on the
// coordinator executor (a barrier dispatch, a store, a notify) fails its
// checkpoint and the generation as that call's error would: the job
// master is told, the panic never reaches the executor's pool, and after
// the restore the pipeline completes checkpoints again. Without the
// containment (containDeps) the panic killed the executor thread in the
// middle of the continuation: no failure was reported and the pending
// checkpoint stayed registered for good, so nothing triggered again.
func TestBoundaryPanicFailsTheCheckpoint(t *testing.T) {
	for _, call := range []string{"Transport.TriggerBarrier", "Storage.Store", "Transport.NotifyComplete"} {
		t.Run(call, func(t *testing.T) {
			inSim(t, 40, func(t testing.TB, e env.Env) {
				r := newRig(t, e, Config{Interval: 2 * time.Second, Timeout: time.Second})
				defer r.close()
				r.panics = map[string]bool{call: true}
				r.c.Start()
				if !r.waitFor(20*time.Second, func() bool { return len(r.failures) > 0 }) {
					t.Fatalf("%s panicked and no failure reached the job master", call)
				}
				if n := r.pool.Stats().Panicked; n != 0 {
					t.Fatalf("%d panics reached the coordinator executor", n)
				}
				if err := r.c.Restore(true); err != nil {
					t.Fatal(err)
				}
				before := r.completed()
				if !r.waitFor(20*time.Second, func() bool { return r.completed() > before }) {
					t.Fatalf("no checkpoint completed after the restore that followed %s's panic", call)
				}
			})
		})
	}
}

// TestStatusWritePanicIsAnError: a status write that panics is the
// write's error, retried as a retryable one (retryStatus): the failure
// still reaches the job master, and no panic reaches the executor.
func TestStatusWritePanicIsAnError(t *testing.T) {
	inSim(t, 10, func(t testing.TB, e env.Env) {
		r := newRig(t, e, Config{Interval: 2 * time.Second, Timeout: time.Second})
		defer r.close()
		r.withhold = true // the first checkpoint expires: its failure writes FAILED
		r.c.Start()
		r.panics = map[string]bool{"StatusStore.Set": true}
		if !r.waitFor(20*time.Second, func() bool { return len(r.failures) > 0 }) {
			t.Fatalf("the expiry's status write panicked and no failure reached the job master")
		}
		if n := r.pool.Stats().Panicked; n != 0 {
			t.Fatalf("%d panics reached the coordinator executor", n)
		}
	})
}

// TestContainReturnsPluginPanic: contain turns a panic into a *PluginPanic
// naming the call, and leaves a returned error alone.
func TestContainReturnsPluginPanic(t *testing.T) {
	call := func(fn func() error) (err error) {
		defer contain("Storage.Store", &err)
		return fn()
	}
	var pp *PluginPanic
	if err := call(func() error { panic("boom") }); !errors.As(err, &pp) || pp.Call != "Storage.Store" || pp.Value != "boom" {
		t.Fatalf("got %v", err)
	}
	plain := errors.New("plain")
	if err := call(func() error { return plain }); err != plain {
		t.Fatalf("got %v", err)
	}
}

// TestFinishedStatusWritePanicRetried: the FINISHED write of a pipeline
// whose final checkpoint completed panics once; the status retry loop
// retries it as a retryable failure (status writes are idempotent), so
// the status store says FINISHED. Dropped as a failed write, it left the
// finished pipeline RUNNING in the status store for good (bounded-finish
// on idle-close-late with boundary_panic, seed 7).
func TestFinishedStatusWritePanicRetried(t *testing.T) {
	inSim(t, 20, func(t testing.TB, e env.Env) {
		if got := finishWithStatusPanic(t, e, variant.Set{}); got != Finished.String() {
			t.Fatalf("status %q after the pipeline finished, want %s", got, Finished)
		}
	})
}

// TestStatusPanicDropKeepsUpstreamsDrop: with status-panic=drop (F039's
// variant: upstream's updateStatus retries three exception types and drops
// any other's write) the same FINISHED write that panicked once is not
// retried, and the status store never says FINISHED for the finished
// pipeline: the variant keeps the behaviour the default fixed.
func TestStatusPanicDropKeepsUpstreamsDrop(t *testing.T) {
	inSim(t, 20, func(t testing.TB, e env.Env) {
		if got := finishWithStatusPanic(t, e, variant.Set{StatusPanic: variant.PanicDrop}); got == Finished.String() {
			t.Fatalf("status %s after the FINISHED write panicked under status-panic=drop: want the write dropped", got)
		}
	})
}

// finishWithStatusPanic finishes a bounded pipeline under vs whose FINISHED
// status write panics once, and returns what the status store holds after.
func finishWithStatusPanic(t testing.TB, e env.Env, vs variant.Set) string {
	r := boundedRigWith(t, e, vs)
	defer r.close()
	r.mu.Lock()
	r.panics = map[string]bool{"StatusStore.Set " + Finished.String(): true}
	r.mu.Unlock()
	_ = r.c.ReadyToClose(0)
	if !r.waitFor(time.Minute, func() bool { return r.count(EvFinished, nil) > 0 }) {
		t.Fatalf("the pipeline never finished: %v", r.events)
	}
	r.mu.Lock()
	armed := r.panics["StatusStore.Set "+Finished.String()]
	r.mu.Unlock()
	if armed {
		t.Fatalf("the FINISHED write never panicked")
	}
	return r.status[r.c.statusKey()]
}
