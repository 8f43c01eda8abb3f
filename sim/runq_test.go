package sim

import (
	"fmt"
	"testing"
	"time"
)

// TestRunQueueRecords: wherever a thread runs, its run-queue entry names
// it and holds no slot (it is running), and every runnable thread's entry
// is at its runIdx, holds its id, and holds a slot unless it is the one
// running. The threads lock, wait with and without deadlines, signal,
// sleep, spawn and return, under the random strategy and PCT, so entries
// move at every removal. It fails if removeRunnable forgets the moved
// entry's runIdx, or a switch leaves the picked thread's slot in its entry
// (both checked).
func TestRunQueueRecords(t *testing.T) {
	for _, strat := range []StrategyKind{StrategyRandom, StrategyPCT} {
		for seed := uint64(1); seed <= 20; seed++ {
			w := New(Config{Seed: seed, Strategy: strat, PCTSteps: 2000})
			checks := 0
			check := func() {
				checks++
				cur := w.current
				if i := cur.runIdx; i < 0 || i >= len(w.runq) || w.runq[i].t != cur || w.runq[i].at != nil || cur.at != nil {
					panic(fmt.Sprintf("%v seed %d: %s runs with runIdx %d, %d runnable", strat, seed, cur.name, i, len(w.runq)))
				}
				for i, e := range w.runq {
					if e.t.runIdx != i || e.id != e.t.id || (e.at == nil) != (e.t == cur) {
						panic(fmt.Sprintf("%v seed %d: entry %d holds %s (runIdx %d, id %d for %d, slot %p)", strat, seed, i, e.t.name, e.t.runIdx, e.id, e.t.id, e.at))
					}
				}
			}
			r := w.Run(func() {
				mu := w.NewMutex("m")
				c := w.NewCond(mu)
				ready := 0
				for i := range 12 {
					w.Go(fmt.Sprintf("worker-%d", i), func() {
						for j := range 6 {
							check()
							mu.Lock()
							check()
							switch (i + j) % 3 {
							case 0:
								ready++
								c.Signal()
							case 1:
								c.WaitFor(time.Duration(1+i) * time.Millisecond)
							default:
								c.Broadcast()
							}
							check()
							mu.Unlock()
							check()
							w.Sleep(time.Duration(j) * time.Millisecond)
							check()
							if j == 3 {
								w.Go("child", func() { check(); w.Yield(); check() })
							}
						}
					})
				}
				for range 40 {
					w.Sleep(time.Millisecond)
					check()
				}
			})
			if r.Outcome != OutcomeDone {
				t.Fatalf("%v seed %d: %v %s", strat, seed, r.Outcome, r.Reason)
			}
			if checks < 424 { // 12 workers x 6 rounds x 5, 12 children x 2, main 40
				t.Fatalf("%v seed %d: %d checks", strat, seed, checks)
			}
		}
	}
}
