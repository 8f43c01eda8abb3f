//go:build unix

package bench

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ckptsim/ckptsim/sim"
)

// The timed-wake workload, the same in both simulators: N threads, each
// waking every 10 ms of virtual time and taking one shared lock (a counter
// increment under it), as a periodic trigger does. ckptsim's world
// (sim.World, threads, Sleep, a simulated mutex) runs it against Go's
// testing/synctest (goroutines in a bubble, time.Sleep, sync.Mutex). The
// measured window starts once every thread has started and sleeps (5 ms
// in) and ends after a whole number of rounds; it leaves out thread
// creation and teardown. Both arms read the real clock the same way
// (realNow: time.Now is the bubble's fake clock inside synctest).

const (
	wakePeriod = 10 * time.Millisecond
	wakeStart  = 5 * time.Millisecond // every thread asleep until wakePeriod
)

var timedWakeThreads = []int{10, 100, 500}

// timedWake is one arm: it runs rounds rounds of the workload with n
// threads and returns the wakes it counted and the real time and the
// process's CPU time (user plus system, every OS thread) they took.
type timedWake func(n, rounds int) (wakes int, wall, cpu time.Duration)

// realNow reads the OS clock directly (vDSO gettimeofday): inside a
// synctest bubble time.Now is the bubble's clock, which does not move
// while goroutines run.
func realNow() time.Duration {
	var tv syscall.Timeval
	if err := syscall.Gettimeofday(&tv); err != nil {
		panic(err)
	}
	return time.Duration(tv.Nano())
}

// timedWakeSim is the workload on a sim.World (random strategy, seed 1).
func timedWakeSim(n, rounds int) (wakes int, wall, cpu time.Duration) {
	w := sim.New(sim.Config{Seed: 1})
	r := w.Run(func() {
		mu := w.NewMutex("timedwake")
		for range n {
			w.Go("waker", func() {
				for {
					w.Sleep(wakePeriod)
					mu.Lock()
					wakes++
					mu.Unlock()
				}
			})
		}
		w.Sleep(wakeStart)
		start, cpu0 := realNow(), cpuTime()
		w.Sleep(time.Duration(rounds) * wakePeriod)
		wall, cpu = realNow()-start, cpuTime()-cpu0
	})
	if r.Outcome != sim.OutcomeDone {
		panic(fmt.Sprintf("timed wake on sim: %v %s", r.Outcome, r.Reason))
	}
	return wakes, wall, cpu
}

// timedWakeSynctest is the workload in a testing/synctest bubble. The
// wakers stop at the first wake after the window (Test waits for every
// bubble goroutine to return); those wakes are not counted.
func timedWakeSynctest(n, rounds int) (wakes int, wall, cpu time.Duration) {
	inBubble(func() {
		var mu sync.Mutex
		var wg sync.WaitGroup
		stop := false
		for range n {
			wg.Go(func() {
				for {
					time.Sleep(wakePeriod)
					mu.Lock()
					if stop {
						mu.Unlock()
						return
					}
					wakes++
					mu.Unlock()
				}
			})
		}
		time.Sleep(wakeStart)
		start, cpu0 := realNow(), cpuTime()
		time.Sleep(time.Duration(rounds) * wakePeriod)
		wall, cpu = realNow()-start, cpuTime()-cpu0
		mu.Lock()
		stop = true
		mu.Unlock()
		wg.Wait()
	})
	return wakes, wall, cpu
}

// inBubble runs f in a synctest bubble. synctest.Test takes a *testing.T,
// which a benchmark has not: testing.RunTests makes one. RunTests runs its
// list -test.count times and sets GOMAXPROCS to each -test.cpu value, so f
// runs on the first call only and GOMAXPROCS is put back.
func inBubble(f func()) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	ran := false
	all := func(string, string) (bool, error) { return true, nil } // -test.run '^$' must not filter it out
	ok := testing.RunTests(all, []testing.InternalTest{{Name: "TimedWakeBubble", F: func(t *testing.T) {
		if ran {
			return
		}
		ran = true
		synctest.Test(t, func(*testing.T) { f() })
	}}})
	if !ok || !ran {
		panic("timed wake: the synctest bubble failed")
	}
}

// BenchmarkTimedWake is the timed-wake workload on each simulator: one op
// is one wake (b.N wakes rounded up to whole rounds of N threads). ns/wake
// (cpu-ns/wake) is the measured window's real (CPU) time over the wakes in
// it; ns/op also counts thread creation and teardown. On a loaded machine
// the CPU figure is the steadier one: it leaves out the time the process
// waited for a core.
func BenchmarkTimedWake(b *testing.B) {
	for _, impl := range []struct {
		name string
		run  timedWake
	}{{"sim", timedWakeSim}, {"synctest", timedWakeSynctest}} {
		for _, n := range timedWakeThreads {
			b.Run(fmt.Sprintf("impl=%s/threads=%d", impl.name, n), func(b *testing.B) {
				rounds := (b.N + n - 1) / n
				wakes, wall, cpu := impl.run(n, rounds)
				if wakes != rounds*n {
					b.Fatalf("%d wakes in %d rounds of %d threads", wakes, rounds, n)
				}
				b.ReportMetric(float64(wall)/float64(wakes), "ns/wake")
				b.ReportMetric(float64(cpu)/float64(wakes), "cpu-ns/wake")
			})
		}
	}
}

// BenchmarkTimedWakeRatio runs both arms in one process, one after the
// other, for each op (which goes first alternates), about timedWakeRounds
// wakes each. It reports each arm's median ns/wake and cpu-ns/wake over
// the ops, and the median over the ops of synctest's figure over sim's
// (synctest/sim on real time, cpu-synctest/sim on CPU time: how many times
// faster sim is). The two arms of an op run a few milliseconds apart and
// see the same machine, so the ratios are the figures to compare across
// machines; CI gates them (bench-ci).
func BenchmarkTimedWakeRatio(b *testing.B) {
	for _, n := range timedWakeThreads {
		b.Run(fmt.Sprintf("threads=%d", n), func(b *testing.B) {
			rounds := max(1, timedWakeRounds/n)
			var wall, cpu [2][]float64 // per arm: sim, synctest
			var ratio, cpuRatio []float64
			for i := range b.N {
				arms := [2]timedWake{timedWakeSim, timedWakeSynctest}
				var w, c [2]float64
				for j := range arms {
					k := (i + j) % 2
					wakes, wk, ck := arms[k](n, rounds)
					w[k], c[k] = float64(wk)/float64(wakes), float64(ck)/float64(wakes)
					wall[k], cpu[k] = append(wall[k], w[k]), append(cpu[k], c[k])
				}
				ratio = append(ratio, w[1]/w[0])
				cpuRatio = append(cpuRatio, c[1]/c[0])
			}
			b.ReportMetric(median(wall[0]), "sim-ns/wake")
			b.ReportMetric(median(wall[1]), "synctest-ns/wake")
			b.ReportMetric(median(cpu[0]), "sim-cpu-ns/wake")
			b.ReportMetric(median(cpu[1]), "synctest-cpu-ns/wake")
			b.ReportMetric(median(ratio), "synctest/sim")
			b.ReportMetric(median(cpuRatio), "cpu-synctest/sim")
		})
	}
}

// timedWakeRounds is about how many wakes one arm of one
// BenchmarkTimedWakeRatio op has (rounds = timedWakeRounds/threads).
const timedWakeRounds = 20000

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
