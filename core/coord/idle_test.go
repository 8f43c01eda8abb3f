package coord

import (
	"slices"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/core/env"
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
