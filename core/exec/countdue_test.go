package exec

import (
	"container/heap"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// TestCountDueLimit: the capped count is the full count capped, on any
// heap and instant, so the wake-ups takeLocked computes from it are the
// same (min(F, min(due, F)+x) = min(F, due+x)).
func TestCountDueLimit(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		base := time.Unix(0, 0)
		var h entryHeap
		for i, at := range rapid.SliceOfN(rapid.IntRange(0, 20), 0, 60).Draw(t, "at") {
			heap.Push(&h, &Handle{at: base.Add(time.Duration(at)), seq: uint64(i)})
		}
		now := base.Add(time.Duration(rapid.IntRange(-1, 21).Draw(t, "now")))
		full := 0
		for _, e := range h {
			if !e.at.After(now) {
				full++
			}
		}
		if got := h.countDue(0, now, len(h)); got != full {
			t.Fatalf("unlimited count %d, want %d", got, full)
		}
		limit := rapid.IntRange(0, 70).Draw(t, "limit")
		if got := h.countDue(0, now, limit); got != min(full, limit) {
			t.Fatalf("count with limit %d: %d, want %d", limit, got, min(full, limit))
		}
	})
}
