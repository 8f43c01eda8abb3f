package sim

import (
	"math/rand/v2"
	"testing"
)

// TestTimerQueueOrder: the queue (a FIFO for timers set in key order, a
// heap for those overtaken) gives out timers in exactly the order a single
// heap does. The model is a run's: 50 threads each with a timer pending;
// the next due fires and its thread sets another, mostly one period ahead
// (the FIFO's case), sometimes sooner or later, now and then a far one,
// and sometimes none or two.
func TestTimerQueueOrder(t *testing.T) {
	for seed := range uint64(50) {
		r := rand.New(rand.NewPCG(seed, 7))
		var q timerQueue
		var ref timerHeap
		var now int64
		var seq uint64
		set := func() {
			seq++
			d := int64(10)
			switch r.IntN(16) {
			case 0:
				d = r.Int64N(30)
			case 1:
				d = 1000 + r.Int64N(1000)
			}
			q.push(timerEntry{at: now + d, seq: seq})
			ref.push(timerEntry{at: now + d, seq: seq})
		}
		for range 50 {
			set()
		}
		fromFIFO, fromHeap := 0, 0
		for range 5000 {
			if q.fromFIFO() {
				fromFIFO++
			} else {
				fromHeap++
			}
			if got, want := q.peek().seq, ref[0].seq; got != want {
				t.Fatalf("seed %d: peek gives timer %d, the heap %d", seed, got, want)
			}
			got, want := q.pop(), ref.pop()
			if got != want {
				t.Fatalf("seed %d: pop gives %+v, the heap %+v", seed, got, want)
			}
			now = got.at
			switch n := r.IntN(20); {
			case n == 0 && len(ref) > 10:
			case n == 1:
				set()
				set()
			default:
				set()
			}
			if q.len() != len(ref) {
				t.Fatalf("seed %d: %d timers left, the heap has %d", seed, q.len(), len(ref))
			}
		}
		if fromFIFO < 500 || fromHeap < 100 {
			t.Fatalf("seed %d: %d timers came from the FIFO and %d from the heap: one side untested", seed, fromFIFO, fromHeap)
		}
	}
}
