package oracle

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/core/coord"
	"github.com/ckptsim/ckptsim/workloads/cluster"
)

// TestCheckpointsFromBoundaries feeds the checkpoint-sequence checks
// synthetic boundary observations: each case is a sequence on job 0
// pipeline 0 and the check ids it must fire (none for a legal one).
func TestCheckpointsFromBoundaries(t *testing.T) {
	alloc := func(id int64) cluster.Obs { return cluster.Obs{Kind: cluster.ObsAllocate, ID: id} }
	// barrier: one checkpoint per id (its trigger timestamp follows from
	// the id); again: another checkpoint under the same id.
	barrier := func(id int64, task int) cluster.Obs {
		return cluster.Obs{Kind: cluster.ObsBarrier, ID: id, Task: task, Stamp: id%1000 + 1}
	}
	again := func(id int64, task int, stamp int64) cluster.Obs {
		return cluster.Obs{Kind: cluster.ObsBarrier, ID: id, Task: task, Stamp: stamp}
	}
	stored := func(id int64) cluster.Obs { return cluster.Obs{Kind: cluster.ObsStored, ID: id} }
	notify := func(id int64) cluster.Obs { return cluster.Obs{Kind: cluster.ObsNotify, ID: id} }
	cancelAll := cluster.Obs{Kind: cluster.ObsCancelAll}
	restore := cluster.Obs{Kind: cluster.ObsRestoreBegin, Call: 1}
	failure := cluster.Obs{Kind: cluster.ObsFailure}
	cases := []struct {
		name string
		obs  []cluster.Obs
		want []string
	}{
		{"one after another", []cluster.Obs{alloc(1), barrier(1, 0), barrier(1, 1), stored(1), notify(1),
			alloc(2), barrier(2, 0), barrier(2, 1), stored(2)}, nil},
		{"a savepoint ends at its notification", []cluster.Obs{alloc(1), barrier(1, 0), notify(1), alloc(2), barrier(2, 0)}, nil},
		{"two outstanding", []cluster.Obs{alloc(1), barrier(1, 0), alloc(2), barrier(2, 0)}, []string{OneOutstanding}},
		{"a failure alone does not end it", []cluster.Obs{alloc(1), barrier(1, 0), failure, alloc(2), barrier(2, 0)},
			[]string{OneOutstanding}},
		{"the clean ends it, and a late barrier of a dead checkpoint is not a new one", []cluster.Obs{alloc(1), barrier(1, 0),
			alloc(2), failure, cancelAll, barrier(1, 1), barrier(2, 0), alloc(3), barrier(3, 0)}, nil},
		{"ids handed out again after a restore", []cluster.Obs{alloc(1), barrier(1, 0), alloc(2), restore, cancelAll, alloc(2)},
			[]string{GenerationOrder}},
		{"an id computed, not drawn from the counter", []cluster.Obs{alloc(1), barrier(1, 0), stored(1), alloc(2), cancelAll,
			barrier(2, 0), cancelAll, barrier(2, 0)}, nil},
		{"a savepoint id after the latest completed", []cluster.Obs{alloc(1), barrier(1, 0), stored(1), alloc(2), barrier(2, 0),
			cancelAll, again(2, 0, 99)}, []string{IncreasingIDs}},
		{"a dead checkpoint's late barrier and another checkpoint under its id", []cluster.Obs{alloc(1), barrier(1, 0),
			cancelAll, barrier(1, 1), alloc(2), barrier(2, 0), again(1, 0, 99)}, []string{IncreasingIDs, OneOutstanding}},
		{"the counter hands out an id a barrier carried", []cluster.Obs{alloc(1), stored(1), barrier(2, 0), stored(2), alloc(2)},
			[]string{IncreasingIDs}},
		{"COMPLETED_POINT's fixed id", []cluster.Obs{alloc(5), barrier(5, 0), stored(5), again(coord.CompletedPointID, 0, 7),
			notify(coord.CompletedPointID), restore, cancelAll, alloc(6), barrier(6, 0), stored(6),
			again(coord.CompletedPointID, 0, 8), again(coord.CompletedPointID, 1, 8)}, nil},
		{"a COMPLETED_POINT while a checkpoint is outstanding", []cluster.Obs{alloc(5), barrier(5, 0),
			again(coord.CompletedPointID, 0, 7)}, []string{OneOutstanding}},
		{"a barrier from a lease body", []cluster.Obs{alloc(1), {Kind: cluster.ObsBarrier, ID: 1, InLeaseBody: true}},
			[]string{BarrierInLeaseBody}},
	}
	for _, tc := range cases {
		var fs Findings
		var now time.Duration
		k := NewCheckpoints(&fs, func() time.Duration { return now })
		for _, o := range tc.obs {
			now += time.Millisecond
			k.Observe(o)
		}
		got := IDs(fs.List())
		if !slices.Equal(got, tc.want) {
			var lines []string
			for _, f := range fs.List() {
				lines = append(lines, f.String())
			}
			t.Errorf("%s: fired %v, want %v\n%s", tc.name, got, tc.want, strings.Join(lines, "\n"))
		}
	}
}
