package sim

import (
	"testing"
	"time"
)

// scanPCT checks every PCT pick against a scan of the run queue for the
// highest priority (then the lowest id), the rule PCT's heap keeps, and
// the heap's order and index records before it.
type scanPCT struct {
	*pct
	t     *testing.T
	picks int
}

func (s *scanPCT) pick(w *World, runq []*thread) int {
	q := s.pct.q
	if len(q) != len(runq) {
		s.t.Fatalf("step %d: %d threads in the heap, %d runnable", w.steps, len(q), len(runq))
	}
	for j, t := range q {
		if t.prioIdx != j || j > 0 && q.above(j, (j-1)/2) {
			s.t.Fatalf("step %d: heap broken at %d (%s, index record %d)", w.steps, j, t.name, t.prioIdx)
		}
	}
	i := s.pct.pick(w, runq)
	best := 0
	for j, t := range runq {
		if b := runq[best]; t.prio > b.prio || t.prio == b.prio && t.id < b.id {
			best = j
		}
	}
	if i != best {
		s.t.Fatalf("step %d: PCT picked %s (prio %d), the scan %s (prio %d)", w.steps, runq[i].name, runq[i].prio, runq[best].name, runq[best].prio)
	}
	s.picks++
	return i
}

// TestPCTHeapPicksAsScan: with 40 threads that lock, wait, signal, sleep
// and exit, and priority change points early in the run, PCT's heap picks
// the thread a scan of the run queue picks, at every step.
func TestPCTHeapPicksAsScan(t *testing.T) {
	for seed := range uint64(20) {
		w := New(Config{Seed: seed, Strategy: StrategyPCT, PCTDepth: 8, PCTSteps: 400})
		s := &scanPCT{pct: w.strategy.(*pct), t: t}
		w.strategy = s
		r := w.Run(func() {
			mu := w.NewMutex("m")
			c := w.NewCond(mu)
			n := 0
			for i := range 40 {
				w.Go("worker", func() {
					for k := range 5 + i%7 {
						mu.Lock()
						n++
						if k%3 == 0 {
							c.WaitFor(time.Duration(1+i%4) * time.Millisecond)
						} else {
							c.Signal()
						}
						mu.Unlock()
						w.Sleep(time.Duration(i%5) * time.Millisecond)
					}
				})
			}
			w.Sleep(time.Second)
		})
		if r.Outcome != OutcomeDone {
			t.Fatalf("seed %d: %v %s", seed, r.Outcome, r.Reason)
		}
		if s.picks < 500 || s.pct.next == 0 {
			t.Fatalf("seed %d: %d picks, %d priority changes: too few to test", seed, s.picks, s.pct.next)
		}
	}
}

// TestPrioHeap: random pushes and removals anywhere keep the heap ordered
// and its index records right, and the top is the highest thread.
func TestPrioHeap(t *testing.T) {
	r := NewRand(1, StreamSched)
	var h prioHeap
	var all []*thread
	for i := range 200 {
		all = append(all, &thread{id: int32(i), prio: r.Int64N(50), prioIdx: -1})
	}
	for step := range 20000 {
		x := all[r.IntN(len(all))]
		if x.prioIdx < 0 {
			h.push(x)
		} else {
			h.remove(x)
		}
		for j, y := range h {
			if y.prioIdx != j || j > 0 && h.above(j, (j-1)/2) {
				t.Fatalf("step %d: heap broken at %d", step, j)
			}
		}
	}
}
