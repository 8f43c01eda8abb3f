package campaign

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
)

// TestExecuteOrderAndPrefix: results come in index order whatever the
// finishing order, and a cancelled context starts no more jobs, leaving a
// prefix.
func TestExecuteOrderAndPrefix(t *testing.T) {
	got := Map(50, 4, func(i int) int { return i * i })
	for i, v := range got {
		if v != i*i {
			t.Fatalf("Map[%d] = %d", i, v)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	var ran atomic.Int64
	var ordered []int
	started := Execute(ctx, 1000, 3, func(i int) int {
		if ran.Add(1) == 10 {
			cancel()
		}
		return i
	}, nil, func(i, v int) { ordered = append(ordered, v) })
	if started >= 1000 || started < 10 || int(ran.Load()) != started {
		t.Fatalf("started %d, ran %d after a cancel at the 10th job", started, ran.Load())
	}
	if !slices.Equal(ordered, seqInts(started)) {
		t.Fatalf("ordered callbacks %v, want 0..%d", ordered, started-1)
	}
}

func seqInts(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
