//go:build linux

package bench

import (
	"testing"
	"time"
)

// BenchmarkWakeFloor is the least a periodic timed wake costs in this
// process, the floor under a trigger cell's CPU per firing: one goroutine
// that sleeps (time.Sleep, a Go runtime timer) to absolute deadlines one
// -trigger.spacing apart, the trigger cells' member-wide firing rate, and
// does nothing else. One op is one wake. It is bench/cmd/wakefloor's sleep
// mode (the wake-floor experiment, results/bench/experiments/README.md)
// made a benchmark, so that it runs in the same process run as the
// trigger cells (make bench-ci) or interleaved with them (bench/side.sh),
// and its CPU is counted by the same clock (cpu-ns/op, threadCPU). A
// trigger fixture still alive from an earlier benchmark is closed first:
// nothing else runs in the window. One wake before the window is warm-up.
//
// Metrics: cpu-ns/op (CPU per wake), ctxsw/op, late-p50-ns and
// late-p99-ns (wake to deadline). The goal of issue 46 (tables.md) and the
// bench-ci gate (cmd/benchgate -rel) compare each design's CPU per firing
// with this figure from the same run, not with an absolute.
func BenchmarkWakeFloor(b *testing.B) {
	closeFixture()
	period := *spacing
	next := time.Now()
	wake := func() time.Duration {
		next = next.Add(period)
		for d := time.Until(next); d > 0; d = time.Until(next) {
			time.Sleep(d)
		}
		return time.Since(next)
	}
	wake() // warm-up
	late := make([]time.Duration, 0, b.N)
	cpu := startCPU()
	for range b.N {
		late = append(late, wake())
	}
	cpu.report(b, b.N)
	cpu.reportSwitches(b, b.N)
	reportLatency(b, "late-", late)
	b.ReportMetric(0, "ns/op") // one op is one spacing by construction
}
