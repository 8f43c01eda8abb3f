package campaign

import (
	"context"
	"sync"
)

// Execute runs fn(0..n-1) on parallel workers, started in index order.
// complete sees each result as it finishes (on the calling goroutine);
// ordered sees them in index order. When ctx ends no new index starts and
// running ones finish. It returns how many started, always a prefix.
func Execute[T any](ctx context.Context, n, parallel int, fn func(i int) T, complete, ordered func(i int, v T)) int {
	next := make(chan int)
	type result struct {
		i int
		v T
	}
	results := make(chan result)
	started := 0
	go func() {
		defer close(next)
		for i := range n {
			if ctx.Err() != nil {
				return
			}
			select {
			case next <- i:
				started++
			case <-ctx.Done():
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range max(parallel, 1) {
		wg.Go(func() {
			for i := range next {
				results <- result{i, fn(i)}
			}
		})
	}
	go func() { wg.Wait(); close(results) }()
	pending := map[int]T{}
	flushed := 0
	for r := range results {
		if complete != nil {
			complete(r.i, r.v)
		}
		pending[r.i] = r.v
		for v, ok := pending[flushed]; ok; v, ok = pending[flushed] {
			delete(pending, flushed)
			if ordered != nil {
				ordered(flushed, v)
			}
			flushed++
		}
	}
	return started
}

// Map runs fn(0..n-1) on parallel workers and returns the results in
// index order.
func Map[T any](n, parallel int, fn func(i int) T) []T {
	out := make([]T, n)
	Execute(context.Background(), n, parallel, fn, nil, func(i int, v T) { out[i] = v })
	return out
}
