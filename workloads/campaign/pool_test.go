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

// TestExecuteUntilAbandons: once abandon ends, ExecuteUntil returns
// without the seed still running (here one that never returns), and
// ordered still sees every finished result in index order, those after
// the unfinished one included.
func TestExecuteUntilAbandons(t *testing.T) {
	never := make(chan struct{})
	defer close(never)
	ctx, stop := context.WithCancel(context.Background())
	abandon, giveUp := context.WithCancel(context.Background())
	defer stop()
	defer giveUp()
	var done, seen []int
	started := ExecuteUntil(ctx, abandon, 3, 3, func(i int) int {
		if i == 1 {
			<-never
		}
		return i
	}, func(i, _ int) {
		done = append(done, i)
		if len(done) == 2 { // 0 and 2: stop, then give up on 1
			stop()
			giveUp()
		}
	}, func(i, _ int) { seen = append(seen, i) })
	if started != 3 || !slices.Equal(seen, []int{0, 2}) {
		t.Errorf("started %d, ordered saw %v; want 3 and [0 2]", started, seen)
	}
}
