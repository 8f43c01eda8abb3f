package refresher_test

import (
	"fmt"

	"github.com/anishathalye/porcupine"

	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/sim/example/refresher"
)

// Run one seed of the correct cache under PCT and check its history with
// porcupine.
func Example() {
	r := refresher.Run(refresher.RunConfig{Seed: 1, Strategy: sim.StrategyPCT})
	fmt.Println(r.Outcome, r.Ops, "operations, porcupine:", r.Check)
	// Output: done 75 operations, porcupine: Ok
}

// Search seeds for the buggy cache's stale install, as a test would; a
// test prints r.Replay() for the seed caught ("go test
// ./sim/example/refresher -run TestReplay -v -args -seed S -strategy pct
// -buggy").
func Example_buggy() {
	for _, st := range []sim.StrategyKind{sim.StrategyRandom, sim.StrategyPCT} {
		caught := false
		for seed := range uint64(20) {
			r := refresher.Run(refresher.RunConfig{Seed: seed, Strategy: st, Buggy: true})
			if r.Check == porcupine.Illegal {
				caught = true
				break
			}
		}
		fmt.Printf("%s: caught within 20 seeds: %v\n", st, caught)
	}
	// Output:
	// random: caught within 20 seeds: true
	// pct: caught within 20 seeds: true
}

// The component is plain Go against core/env: here it runs in a simulated
// world, with a fixed origin, and serves its cached value while the lease
// holds.
func ExampleCache() {
	w := sim.New(sim.Config{Seed: 42})
	w.Run(func() {
		c := refresher.New(w, fixed{value: 7}, refresher.Config{Lease: 1e9, Refresh: 6e8})
		c.Start()
		fmt.Println("get:", c.Get())
		c.Put(8)
		fmt.Println("get after put:", c.Get())
		c.Close()
	})
	// Output:
	// get: 7
	// get after put: 8
}

// fixed is an origin with no latency.
type fixed struct {
	value   int
	version int64
}

func (f fixed) Read() (int, int64)          { return f.value, f.version }
func (f fixed) Write(v int) (version int64) { return f.version + 1 }
