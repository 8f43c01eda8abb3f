package exec

import "testing"

// TestTaskQueueFIFO drives the ring through wrap-arounds and growths
// against a plain slice: the same tasks come out in the same order, and a
// queue that never drains, pushed and popped in step, keeps its array.
func TestTaskQueueFIFO(t *testing.T) {
	var q taskQueue
	var want []int
	next, got := 0, 0
	mark := func(i int) task { return task{on: func(string) { got = i }} }
	check := func() {
		t.Helper()
		q.pop().call("")
		if got != want[0] {
			t.Fatalf("popped %d, want %d", got, want[0])
		}
		want = want[1:]
		if q.len() != len(want) {
			t.Fatalf("len %d, want %d", q.len(), len(want))
		}
	}
	// Bursts of pushes (growing the ring while it has wrapped) and pops.
	for round := range 20 {
		for range round%7 + 1 {
			q.push(mark(next))
			want = append(want, next)
			next++
		}
		for range round % 5 {
			if len(want) > 0 {
				check()
			}
		}
	}
	for len(want) > 0 {
		check()
	}
	// Steady state: one in, one out, with a few queued all along.
	for range 3 {
		q.push(mark(next))
		want = append(want, next)
		next++
	}
	buf := &q.buf[0]
	for range 1000 {
		q.push(mark(next))
		want = append(want, next)
		next++
		check()
	}
	if &q.buf[0] != buf {
		t.Fatal("a queue that never drained reallocated its array")
	}
	for len(want) > 0 {
		check()
	}
	for i, x := range q.buf {
		if !x.none() {
			t.Fatalf("slot %d still references a popped task", i)
		}
	}
}
