package sim

import (
	"fmt"
	"testing"
	"time"
)

// TestRunQueueRecords: wherever a thread runs, the world's record of the
// running thread's run-queue entry (curIdx, which a scheduling point's
// switch uses instead of the thread's own runIdx) and the entry itself
// name that thread, and every runnable thread's entry holds its id. The
// threads lock, wait with and without deadlines, signal, sleep, spawn and
// return, under the random strategy and PCT, so entries move at every
// removal. It fails if a switch (switchTo) or a thread picked again after
// its block (park) leaves curIdx behind (both checked). removeRunnable and
// makeRunnable also keep curIdx if the running thread's entry moves or the
// running thread is queued again, which no path does today (while a
// thread runs, only it leaves the queue, and it is not queued again), so
// this test cannot see those two.
func TestRunQueueRecords(t *testing.T) {
	for _, strat := range []StrategyKind{StrategyRandom, StrategyPCT} {
		for seed := uint64(1); seed <= 20; seed++ {
			w := New(Config{Seed: seed, Strategy: strat, PCTSteps: 2000})
			checks := 0
			check := func() {
				checks++
				cur := w.current
				if w.curIdx < 0 || w.curIdx >= len(w.runq) || w.runq[w.curIdx].t != cur || cur.runIdx != w.curIdx {
					panic(fmt.Sprintf("%v seed %d: %s runs with curIdx %d, runIdx %d, %d runnable", strat, seed, cur.name, w.curIdx, cur.runIdx, len(w.runq)))
				}
				for i, e := range w.runq {
					if e.t.runIdx != i || e.id != e.t.id {
						panic(fmt.Sprintf("%v seed %d: entry %d holds %s (runIdx %d, id %d for %d)", strat, seed, i, e.t.name, e.t.runIdx, e.id, e.t.id))
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
