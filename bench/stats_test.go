package bench

import (
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/core/env"
)

// quantile returns the nearest-rank q-quantile of xs (sorted in place).
func quantile(xs []time.Duration, q float64) time.Duration {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	i := int(q*float64(len(xs))+0.999999) - 1
	return xs[min(max(i, 0), len(xs)-1)]
}

// reportLatency reports p50, p99 and p999 of xs under prefix ("" or
// "late-").
func reportLatency(b *testing.B, prefix string, xs []time.Duration) {
	b.ReportMetric(float64(quantile(xs, 0.50)), prefix+"p50-ns")
	b.ReportMetric(float64(quantile(xs, 0.99)), prefix+"p99-ns")
	if prefix == "" {
		b.ReportMetric(float64(quantile(xs, 0.999)), "p999-ns")
	}
}

// usage is the process's user plus system CPU time so far and its context
// switches, voluntary and involuntary, summed over every thread (one
// getrusage RUSAGE_SELF); zero if the call fails.
func usage() (cpu time.Duration, switches int64) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), ru.Nvcsw + ru.Nivcsw
}

// cpuTime is the process's user plus system CPU time so far.
func cpuTime() time.Duration {
	cpu, _ := usage()
	return cpu
}

// cpuMeter reports CPU per op over a measured section, and on request the
// context switches per op.
type cpuMeter struct {
	start    time.Duration
	switches int64
}

func startCPU() cpuMeter {
	cpu, switches := usage()
	return cpuMeter{cpu, switches}
}

// reportSwitches reports context switches per op (ctxsw/op): a count,
// which a host that stops the virtual machine during the run does not
// move, where it charges the stopped time as CPU to whichever thread the
// guest thought was running (results/bench/experiments/README.md, stalls, wakeups).
func (m cpuMeter) reportSwitches(b *testing.B, ops int) {
	if ops > 0 {
		_, switches := usage()
		b.ReportMetric(float64(switches-m.switches)/float64(ops), "ctxsw/op")
	}
}

func (m cpuMeter) report(b *testing.B, ops int) {
	if ops > 0 {
		b.ReportMetric(float64(cpuTime()-m.start)/float64(ops), "cpu-ns/op")
	}
}

// spinMeter is what the process's env.PreciseWall waits spun over a
// window, and how many of them its spin budget sent to sleep to their
// deadline instead (env.ReadSpinStats).
type spinMeter struct{ start env.SpinStats }

func startSpin() spinMeter { return spinMeter{env.ReadSpinStats()} }

func (m spinMeter) delta() env.SpinStats {
	s := env.ReadSpinStats()
	return env.SpinStats{Spun: s.Spun - m.start.Spun, Waits: s.Waits - m.start.Waits, OverBudget: s.OverBudget - m.start.OverBudget}
}

// report reports, for a PreciseWall e, the spin per op (spin-ns/op: the
// share of cpu-ns/op that is the env spinning to deadlines) and the waits
// per op that the spin budget made sleep to their deadline
// (over-budget/op).
func (m spinMeter) report(b *testing.B, e env.Env, ops int) {
	if _, ok := e.(env.PreciseWall); !ok || ops <= 0 {
		return
	}
	d := m.delta()
	b.ReportMetric(float64(d.Spun)/float64(ops), "spin-ns/op")
	b.ReportMetric(float64(d.OverBudget)/float64(ops), "over-budget/op")
}
