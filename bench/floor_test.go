//go:build linux

package bench

import (
	"flag"
	"syscall"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/core/env"
)

var floorSleep = flag.Duration("floor.sleep", 200*time.Microsecond, "the timed wait BenchmarkTimerFloor measures")

// BenchmarkTimerFloor measures how late a 200 µs timed wait ends, one op
// per wait, for Go's runtime timer (time.Sleep), a plain OS nanosleep on
// the calling thread, and env.PreciseWall's Sleep and Cond.WaitFor; with
// the CPU each costs.
func BenchmarkTimerFloor(b *testing.B) {
	d := *floorSleep
	pw := env.PreciseWall{SpinBudget: -1} // the primitive's floor: a wait every 200 µs would spend any budget
	m := pw.NewMutex("bench.floor")
	c := pw.NewCond(m)
	ways := []struct {
		name  string
		sleep func()
	}{
		{"go", func() { time.Sleep(d) }},
		{"nanosleep", func() {
			ts := syscall.NsecToTimespec(int64(d))
			syscall.Nanosleep(&ts, nil)
		}},
		{"precise", func() { pw.Sleep(d) }},
		{"precise-waitfor", func() { m.Lock(); c.WaitFor(d); m.Unlock() }},
	}
	for _, w := range ways {
		b.Run("sleep="+w.name, func(b *testing.B) {
			late := make([]time.Duration, 0, b.N)
			cpu := startCPU()
			for range b.N {
				start := time.Now()
				w.sleep()
				late = append(late, time.Since(start)-d)
			}
			cpu.report(b, b.N)
			reportLatency(b, "late-", late)
		})
	}
}
