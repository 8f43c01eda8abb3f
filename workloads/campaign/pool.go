package campaign

import (
	"context"
	"maps"
	"slices"
	"sync"
)

// Execute runs fn(0..n-1) on parallel workers, started in index order.
// complete sees each result as it finishes (on the calling goroutine);
// ordered sees them in index order. When ctx ends no new index starts and
// running ones finish. It returns how many started, always a prefix.
func Execute[T any](ctx context.Context, n, parallel int, fn func(i int) T, complete, ordered func(i int, v T)) int {
	return ExecuteUntil(ctx, context.Background(), n, parallel, fn, complete, ordered)
}

// ExecuteUntil is Execute that stops waiting when abandon ends, as it
// does when ctx ends: no new index starts, and it returns at once without
// the results of the indices still running (their fn runs on, unseen,
// until it returns or the process exits). ordered then sees the finished
// results it held back, those after the first unfinished index, still in
// index order. It returns how many started.
func ExecuteUntil[T any](ctx, abandon context.Context, n, parallel int, fn func(i int) T, complete, ordered func(i int, v T)) int {
	next := make(chan int)
	type result struct {
		i int
		v T
	}
	results := make(chan result)
	started := 0
	fed := make(chan struct{})
	go func() {
		defer close(fed)
		defer close(next)
		for i := range n {
			if ctx.Err() != nil || abandon.Err() != nil {
				return
			}
			select {
			case next <- i:
				started++
			case <-ctx.Done():
				return
			case <-abandon.Done():
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range max(parallel, 1) {
		wg.Go(func() {
			for i := range next {
				select {
				case results <- result{i, fn(i)}:
				case <-abandon.Done():
					return
				}
			}
		})
	}
	go func() { wg.Wait(); close(results) }()
	pending := map[int]T{}
	flushed := 0
	for {
		select {
		case r, ok := <-results:
			if !ok {
				<-fed
				return started
			}
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
		case <-abandon.Done():
			for _, i := range slices.Sorted(maps.Keys(pending)) {
				if ordered != nil {
					ordered(i, pending[i])
				}
			}
			<-fed
			return started
		}
	}
}

// Map runs fn(0..n-1) on parallel workers and returns the results in
// index order.
func Map[T any](n, parallel int, fn func(i int) T) []T {
	out := make([]T, n)
	Execute(context.Background(), n, parallel, fn, nil, func(i int, v T) { out[i] = v })
	return out
}
