package sim_test

import (
	"fmt"
	"time"

	"github.com/ckptsim/ckptsim/sim"
)

// Two threads increment a counter under a mutex, one of them after a
// virtual sleep: the run takes no wall time, virtual time jumps to the
// sleeper's deadline, and the same seed gives the same trace hash.
func Example() {
	run := func(seed uint64) sim.Result {
		w := sim.New(sim.Config{Seed: seed})
		var n int
		return w.Run(func() {
			mu := w.NewMutex("counter")
			for i, delay := range []time.Duration{0, time.Second} {
				w.Go(fmt.Sprintf("worker-%d", i), func() {
					w.Sleep(delay)
					mu.Lock()
					n++
					mu.Unlock()
				})
			}
			w.Sleep(2 * time.Second)
			fmt.Println("count:", n, "at", w.Elapsed())
		})
	}
	a, b := run(7), run(7)
	fmt.Println(a.Outcome, "same hash:", a.TraceHash == b.TraceHash)
	// Output:
	// count: 2 at 2s
	// count: 2 at 2s
	// done same hash: true
}

// A lost wake-up: the waiter checks its condition, then waits without a
// deadline, and the only signal can come before the wait. Over seeds the
// random walk finds the interleaving, and the world reports the deadlock
// with each thread's wait instead of hanging.
func Example_deadlock() {
	found := -1
	for seed := uint64(0); seed < 50 && found < 0; seed++ {
		w := sim.New(sim.Config{Seed: seed})
		res := w.Run(func() {
			mu := w.NewMutex("flag")
			cond := w.NewCond(mu)
			ready := false
			w.Go("signaller", func() {
				mu.Lock()
				ready = true
				mu.Unlock()
				cond.Signal() // the bug: the flag and the signal are not one step for a waiter that checked first
			})
			mu.Lock()
			seen := ready
			mu.Unlock()
			if !seen {
				mu.Lock()
				cond.Wait() // the bug: no loop over the flag
				mu.Unlock()
			}
		})
		if res.Outcome == sim.OutcomeDeadlock {
			found = int(seed)
		}
	}
	fmt.Println("deadlock found:", found >= 0)
	// Output:
	// deadlock found: true
}
