package coord

import (
	"slices"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/core/env"
	"github.com/ckptsim/ckptsim/core/variant"
)

// TestAbortedRestoreStillHandsTheLatest: under restore-load=once a restore
// whose one read of the ready-to-close set fails ends there, as upstream's
// restoreCoordinator throws out of L670, and what follows is upstream's
// redeploy: the tasks get the latest completed checkpoint (restoreTaskState
// and allTaskReady read the field, not anything the restore set up), so
// they do not restart from empty; the shutdown flag the pipeline's end left
// set stops the trigger the redeploy arms, and no checkpoint completes
// after (F001).
func TestAbortedRestoreStillHandsTheLatest(t *testing.T) {
	inSim(t, 100, func(t testing.TB, e env.Env) {
		r := newRig(t, e, Config{Interval: 2 * time.Second, Timeout: time.Second,
			Variants: variant.Set{RestoreLoad: variant.LoadOnce}})
		defer r.close()
		r.keep = true
		r.c.Start()
		if !r.waitFor(30*time.Second, func() bool { return r.completed() >= 2 }) {
			t.Fatalf("only %d checkpoints completed", r.completed())
		}
		r.c.Cancel() // the pipeline ended: cancelCheckpoint's clean shuts the coordinator down
		before := r.c.latestCompleted.Load()
		r.mu.Lock()
		r.notified = nil
		r.getFails, r.getFailsKey = 1, "ready_to_close"
		r.mu.Unlock()
		if err := r.c.Restore(true); err != nil {
			t.Fatalf("the aborted restore returned %v: upstream's caller sees no error", err)
		}
		r.mu.Lock()
		notified, left := slices.Clone(r.notified), r.getFails
		r.mu.Unlock()
		if left != 0 {
			t.Fatal("the restore never read the ready-to-close set")
		}
		latest := r.c.latestCompleted.Load()
		if latest == nil || latest.ID < before.ID || !latest.Restored {
			t.Fatalf("latest after the aborted restore %+v (before %d): want it marked restored, as restoreTaskState does", latest, before.ID)
		}
		if len(notified) != r.c.cfg.Tasks || notified[0].ID != latest.ID {
			t.Fatalf("the aborted restore re-committed %d checkpoints to %d tasks (first %v), want checkpoint %d to each: the redeployed tasks start from empty",
				len(notified), r.c.cfg.Tasks, notified, latest.ID)
		}
		n := r.completed()
		e.Sleep(5 * r.c.cfg.Interval)
		if got := r.completed(); got != n {
			t.Fatalf("%d checkpoints completed after the aborted restore: its shutdown flag (F001) should stop the redeploy's trigger", got-n)
		}
	})
}

// TestRestoreChain: a restore's resume starts a new periodic chain, so a
// trigger or re-arm of the chain that ran before it is superseded; with
// restore-chain=live (upstream, whose triggers carry no chain) the resume
// continues the live chain, and such a late re-arm is not stopped by its
// token (F029).
func TestRestoreChain(t *testing.T) {
	for _, tc := range []struct {
		chain      variant.RestoreChain
		superseded bool
	}{{variant.ChainNew, true}, {variant.ChainLive, false}} {
		inSim(t, 20, func(t testing.TB, e env.Env) {
			r := newRig(t, e, Config{Interval: 2 * time.Second, Timeout: time.Second,
				Variants: variant.Set{RestoreChain: tc.chain}})
			defer r.close()
			r.c.Start()
			if !r.waitFor(30*time.Second, func() bool { return r.completed() >= 1 }) {
				t.Fatalf("only %d checkpoints completed", r.completed())
			}
			r.c.periodicMu.Lock()
			old := r.c.periodicTok
			r.c.periodicMu.Unlock()
			if err := r.c.Restore(true); err != nil {
				t.Fatal(err)
			}
			if got := r.c.superseded(Checkpoint, old); got != tc.superseded {
				t.Fatalf("restore-chain=%d: the old chain superseded after the restore: %v, want %v", tc.chain, got, tc.superseded)
			}
		})
	}
}
