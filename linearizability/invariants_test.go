package linearizability

import (
	"strings"
	"testing"
	"time"
)

func TestInvariants(t *testing.T) {
	tests := []struct {
		name string
		run  func(iv *Invariants)
		want string // "" for Ok, else text of the first violation
	}{
		{"quiet run", func(iv *Invariants) {
			iv.PendingAdded(1, 0)
			iv.PendingRemoved(1, 5)
			iv.PendingAdded(1, 10)
			iv.CheckpointID(1, 1, 0)
			iv.CheckpointID(1, 2, 10)
			iv.TimerThreads(2, 2, 10)
		}, ""},
		{"two pending", func(iv *Invariants) {
			iv.PendingAdded(3, 0)
			iv.PendingAdded(3, int64(2*time.Second))
		}, "one-pending: 2 checkpoints pending (at 2s virtual)"},
		{"pending below zero", func(iv *Invariants) { iv.PendingRemoved(3, 0) }, "one-pending: pending count would go below zero"},
		{"id regress", func(iv *Invariants) {
			iv.CheckpointID(4, 5, 0)
			iv.CheckpointID(4, 5, 1)
		}, "increasing-ids: checkpoint id 5 after 5"},
		{"ids resume after restore", func(iv *Invariants) {
			iv.CheckpointID(4, 5, 0)
			iv.RestoreIDs(4, 3)
			iv.CheckpointID(4, 4, 1)
		}, ""},
		{"timer threads", func(iv *Invariants) { iv.TimerThreads(3, 2, 0) }, "timer-threads: 3 timer threads, want 2"},
		{"custom assertion", func(iv *Invariants) {
			iv.Assert(false, "lease-drains", "pipeline 9", 7, "%d tasks outstanding", 2)
			iv.Assert(false, "lease-drains", "pipeline 9", 8, "%d tasks outstanding", 1)
		}, "lease-drains: 2 tasks outstanding (at 7ns virtual); 1 more violations"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var iv Invariants
			tt.run(&iv)
			v := iv.Verdict()
			if tt.want == "" {
				if !v.Pass() {
					t.Fatalf("%v, want ok", v)
				}
				return
			}
			if v.Result != Illegal || !strings.Contains(v.Message, tt.want) {
				t.Fatalf("%v, want illegal with %q", v, tt.want)
			}
		})
	}
}
