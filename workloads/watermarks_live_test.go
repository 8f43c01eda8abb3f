package workloads

import (
	"testing"

	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/workloads/cluster"
)

// TestWatermarkLivenessNamesStuckPartitions: a partition assigned at the
// end that committed nothing after heal is reported; a revoked one, or one
// that committed after heal, is not.
func TestWatermarkLivenessNamesStuckPartitions(t *testing.T) {
	w := sim.New(sim.Config{Seed: 1})
	h := newWatermarks(w, 10)
	h.used = true
	ops := []cluster.WatermarkOp{
		{Kind: cluster.WMBeginEpoch, Job: 0, Pipeline: 1, Partition: 0, Epoch: 1},
		{Kind: cluster.WMBeginEpoch, Job: 0, Pipeline: 1, Partition: 1, Epoch: 1},
		{Kind: cluster.WMBeginEpoch, Job: 1, Pipeline: 2, Partition: 3, Epoch: 1},
		{Kind: cluster.WMRevoke, Job: 0, Pipeline: 1, Partition: 1},
	}
	for _, o := range ops {
		h.track(o)
	}
	got := h.stuck(1) // heal at 1 ns: nothing committed since
	want := []string{"pipeline 1 partition 0", "pipeline 12 partition 3"}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("stuck = %v, want %v", got, want)
	}
	h.committed[partitionID{1, 0}] = 5
	if got := h.stuck(1); len(got) != 1 || got[0] != want[1] {
		t.Fatalf("after a commit: %v", got)
	}
}
