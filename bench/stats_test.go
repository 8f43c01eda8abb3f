package bench

import (
	"bytes"
	"os"
	"slices"
	"strconv"
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

// threadCPU is the time on CPU so far of each of the process's live
// threads, in nanoseconds, by thread id: field 1 of
// /proc/self/task/TID/schedstat (the scheduler's sum_exec_runtime, the
// counter getrusage's user plus system time is scaled to add up to, read
// without that scaling). The JDK peer reads the same files around the same
// window (peer/jdk/TriggerPeer.java), so both sides of a trigger cell count
// CPU with one clock. ok is false where /proc cannot be read.
func threadCPU() (cpu map[int]int64, ok bool) {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil, false
	}
	cpu = make(map[int]int64, len(ents))
	for _, e := range ents {
		tid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		buf, err := os.ReadFile("/proc/self/task/" + e.Name() + "/schedstat")
		if err != nil {
			continue // the thread ended between the listing and the read
		}
		f, _, _ := bytes.Cut(buf, []byte(" "))
		ns, err := strconv.ParseInt(string(f), 10, 64)
		if err != nil {
			return nil, false
		}
		cpu[tid] = ns
	}
	return cpu, true
}

// threadCPUSince is the CPU time the process's threads spent since start
// (a threadCPU reading): each live thread's time less its time at start (a
// thread born since counts whole; one that ended since takes its time in
// the window with it, which in a Go process, whose threads do not end, is
// none).
func threadCPUSince(start map[int]int64) (time.Duration, bool) {
	now, ok := threadCPU()
	if !ok {
		return 0, false
	}
	var d int64
	for tid, ns := range now {
		d += ns - start[tid]
	}
	return time.Duration(d), true
}

// cpuClock names the clock of cpu-ns/op (the files' "cpu-clock:" line,
// printed by TestMain; bench/cmd/plot says it under the tables).
const cpuClock = "schedstat"

// cpuMeter reports CPU per op over a measured section, and on request the
// context switches per op. Its CPU is threadCPU's (getrusage's where /proc
// cannot be read).
type cpuMeter struct {
	start    time.Duration
	threads  map[int]int64
	switches int64
}

func startCPU() cpuMeter {
	cpu, switches := usage()
	threads, _ := threadCPU()
	return cpuMeter{cpu, threads, switches}
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

// elapsed is the process's CPU time since startCPU.
func (m cpuMeter) elapsed() time.Duration {
	if m.threads != nil {
		if d, ok := threadCPUSince(m.threads); ok {
			return d
		}
	}
	return cpuTime() - m.start
}

func (m cpuMeter) report(b *testing.B, ops int) {
	if ops > 0 {
		b.ReportMetric(float64(m.elapsed())/float64(ops), "cpu-ns/op")
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
