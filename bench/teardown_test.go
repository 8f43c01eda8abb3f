package bench

import (
	"fmt"
	"testing"

	"github.com/ckptsim/ckptsim/core/sched"
	"github.com/ckptsim/ckptsim/sim"
)

// TestSaturationSimTearsDown runs the saturation workload of
// BenchmarkSaturationSim past saturation, on the designs make bench-ci
// runs, for as many firings as bench-ci takes, and checks that the world
// ends cleanly: its teardown stops every thread left blocked or runnable
// (a switch slot lost by the run queue made it panic "a coroutine survived
// the teardown" at util=150 on leader-follower, found only by bench-ci).
func TestSaturationSimTearsDown(t *testing.T) {
	for _, d := range []sched.Design{sched.Shared, sched.LeaderFollower} {
		for _, u := range []int{100, 150} {
			t.Run(fmt.Sprintf("%s/util=%d", d, u), func(t *testing.T) {
				w := sim.New(sim.Config{Seed: 1, CPU: &sim.CPUModel{Cores: *simCores, PerStep: *simPerStep}})
				run := &satRun{}
				const firings = 1000
				res := w.Run(func() {
					s, err := startSaturation(w, d, u, run, func(x sched.Firing, q int) {
						if len(run.delay) < firings {
							run.observe(x, q)
						}
					})
					if err != nil {
						panic(err)
					}
					for len(run.delay) < firings {
						w.Sleep(satSpacing)
					}
					s.Close()
				})
				if res.Outcome != sim.OutcomeDone {
					t.Fatalf("%v: %s", res.Outcome, res.Reason)
				}
			})
		}
	}
}
