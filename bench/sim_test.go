package bench

import (
	"fmt"
	"iter"
	"runtime"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/core/coord"
	"github.com/ckptsim/ckptsim/core/sched"
	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/workloads/cluster"
)

// simSpan is the virtual length of one BenchmarkSim scenario run.
const simSpan = 2 * time.Minute

// BenchmarkSim is the simulator's speed on a failover + savepoint
// workload: one job of P pipelines x 2 tasks on the shared scheduler,
// 10 s interval, task acks after 10 ms..2 s; at 40 s a master step-down,
// reactivation and restore of every coordinator; at 90 s a job savepoint
// (which ends the job); 2 virtual minutes. One op is one run with seed 1:
// steps/op (scheduling points) is deterministic, and so (to the runtime's
// own allocations) is allocs/step.
func BenchmarkSim(b *testing.B) {
	for _, p := range pipelines {
		b.Run(fmt.Sprintf("pipelines=%d", p), func(b *testing.B) {
			var steps, switches int64
			var ms0, ms1 runtime.MemStats
			runtime.ReadMemStats(&ms0)
			start := time.Now()
			for range b.N {
				r := simScenario(b, p)
				steps += r.Steps
				switches += r.Switches
			}
			wall := time.Since(start)
			runtime.ReadMemStats(&ms1)
			b.ReportMetric(simSpan.Seconds()*float64(b.N)/wall.Seconds(), "sim-s/s")
			b.ReportMetric(float64(steps)/wall.Seconds(), "steps/s")
			b.ReportMetric(float64(steps)/float64(b.N), "steps/op")
			b.ReportMetric(float64(switches)/float64(b.N), "switches/op")
			b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/float64(steps), "allocs/step")
		})
	}
}

func simScenario(b *testing.B, p int) sim.Result {
	w := sim.New(sim.Config{Seed: 1, MaxTime: simSpan + time.Minute})
	var savepoint *coord.Future[error]
	r := w.Run(func() {
		c, err := cluster.New(w, cluster.Config{
			Jobs: 1, Pipelines: p, Tasks: 2,
			Coord: coord.Config{Interval: 10 * time.Second, Timeout: 5 * time.Second, MaxRetained: 3},
			Sched: sched.Config{Cores: 2},
			Workload: cluster.Workload{
				AckLatency:      cluster.Dist{Kind: "uniform", Min: 10 * time.Millisecond, Max: 2 * time.Second},
				DispatchLatency: cluster.Dist{Kind: "uniform", Max: time.Millisecond},
				RestartDelay:    cluster.Dist{Min: time.Second},
			},
		})
		if err != nil {
			panic(err)
		}
		c.Start()
		w.Sleep(40 * time.Second)
		c.StepDown()
		w.Sleep(time.Second)
		c.Reactivate()
		if err := c.Managers[0].Restore(); err != nil {
			panic(err)
		}
		w.Sleep(49 * time.Second)
		savepoint = c.Managers[0].TriggerSavepoint(memSavepoint{})
		w.Sleep(simSpan - 90*time.Second)
	})
	if r.Outcome != sim.OutcomeDone {
		b.Fatalf("pipelines=%d: %v %s", p, r.Outcome, r.Reason)
	}
	if savepoint == nil || !savepoint.Done() {
		b.Fatalf("pipelines=%d: savepoint did not finish", p)
	}
	return r
}

// memSavepoint is a savepoint session that keeps nothing.
type memSavepoint struct{}

func (memSavepoint) WritePipeline(*coord.Completed) error { return nil }
func (memSavepoint) Commit() error                        { return nil }
func (memSavepoint) Abort()                               {}

// BenchmarkSchedPoint is the cost of one simulator scheduling point: two
// simulated threads yielding to each other under the random strategy.
// One op is one scheduling point.
func BenchmarkSchedPoint(b *testing.B) {
	w := sim.New(sim.Config{Seed: 1})
	b.ReportAllocs()
	b.ResetTimer()
	r := w.Run(func() {
		w.Go("peer", func() {
			for {
				w.Yield()
			}
		})
		for w.Steps() < int64(b.N) {
			w.Yield()
		}
	})
	b.StopTimer()
	if r.Outcome != sim.OutcomeDone {
		b.Fatalf("%v %s", r.Outcome, r.Reason)
	}
}

// BenchmarkSchedPointThreads is BenchmarkSchedPoint with n threads
// yielding under the random strategy: nearly every point then hands the
// processor to another thread, whose goroutine stack, g and thread record
// are the cache's to miss. One op is one scheduling point. It is the floor
// under BenchmarkSim's switches/op (a run with hundreds of live threads).
// switches/step is the share of points that switch: half of them at 2
// threads, nearly all at 1000, so ns/op grows from 2 to 10 threads by
// the cost of a coroutine switch whatever the simulator keeps per thread.
// cpu-ns/op is the process's CPU time per point over the same window,
// steadier than ns/op on a shared machine (no time waiting for a core).
func BenchmarkSchedPointThreads(b *testing.B) {
	for _, n := range []int{2, 10, 100, 1000} {
		b.Run(fmt.Sprintf("threads=%d", n), func(b *testing.B) {
			w := sim.New(sim.Config{Seed: 1})
			var from int64
			var cpu cpuMeter
			b.ResetTimer()
			r := w.Run(func() {
				for range n - 1 {
					w.Go("peer", func() {
						for {
							w.Yield()
						}
					})
				}
				for range n { // every peer started and parked in Yield
					w.Yield()
				}
				b.ResetTimer()
				cpu = startCPU()
				from = w.Steps()
				for w.Steps() < from+int64(b.N) {
					w.Yield()
				}
				b.StopTimer()
				cpu.report(b, b.N)
			})
			if r.Outcome != sim.OutcomeDone {
				b.Fatalf("%v %s", r.Outcome, r.Reason)
			}
			// The share of points that hand the processor to another
			// thread (1-1/n under the random strategy; the whole run).
			b.ReportMetric(float64(r.Switches)/float64(r.Steps), "switches/step")
		})
	}
}

// BenchmarkSwitch compares the two ways to hand control between simulated
// threads: a coroutine switch (iter.Pull, what sim uses) and a channel
// ping-pong between goroutines. One op is one hand-off.
func BenchmarkSwitch(b *testing.B) {
	b.Run("impl=coroutine", func(b *testing.B) {
		next, stop := iter.Pull(func(yield func(struct{}) bool) {
			for yield(struct{}{}) {
			}
		})
		defer stop()
		b.ResetTimer()
		for i := 0; i < b.N; i += 2 { // resume and yield back: two hand-offs
			next()
		}
	})
	b.Run("impl=channel", func(b *testing.B) {
		ping, pong := make(chan struct{}), make(chan struct{})
		go func() {
			for range ping {
				pong <- struct{}{}
			}
		}()
		defer close(ping)
		b.ResetTimer()
		for i := 0; i < b.N; i += 2 {
			ping <- struct{}{}
			<-pong
		}
	})
}

// BenchmarkCoroutineThreads is BenchmarkSchedPointThreads's floor: the
// bare coroutine switch (iter.Pull, what sim uses) with n coroutines, each
// op resuming one drawn at random (as the random strategy draws the next
// thread) that yields straight back. It has no run queue, thread table or
// strategy, so what it gains from 2 to 1 000 coroutines is the Go
// runtime's and the machine's share of sim's growth (cold coroutine
// stacks and g structures), which no change to sim can remove.
func BenchmarkCoroutineThreads(b *testing.B) {
	for _, n := range []int{2, 10, 100, 1000} {
		b.Run(fmt.Sprintf("threads=%d", n), func(b *testing.B) {
			nexts := make([]func() (struct{}, bool), n)
			for i := range nexts {
				next, stop := iter.Pull(func(yield func(struct{}) bool) {
					for yield(struct{}{}) {
					}
				})
				defer stop()
				nexts[i] = next
			}
			x := uint64(88172645463325252)
			b.ResetTimer()
			for range b.N {
				x ^= x << 13
				x ^= x >> 7
				x ^= x << 17
				nexts[x%uint64(n)]()
			}
		})
	}
}
