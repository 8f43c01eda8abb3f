//go:build linux

package bench

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/metrics"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// Diagnosis of the trigger tail (-trigger.tails FILE): every collected
// sample of BenchmarkTrigger[Precise] is appended to FILE as CSV with its
// CLOCK_MONOTONIC times and the OS thread that ran the body, so that the
// tail samples can be joined with `perf sched record -k CLOCK_MONOTONIC`
// (bench/cmd/tailattr); and each sub-benchmark reports what the Go
// runtime saw over its collection window (runtime/metrics): GC cycles,
// the longest GC pause, and the Go scheduling latency (runnable to
// running) p99 and maximum, and the process's heap allocations per
// firing (objects and bytes). Off by default: the extra metrics and the
// gettid per firing exist only with the flag.
var tailsOut = flag.String("trigger.tails", "", "append every trigger sample (CLOCK_MONOTONIC ns, thread id) to this CSV file and report runtime/metrics GC and scheduling-latency figures (tail diagnosis)")

// monoOffset converts a time.Time's monotonic reading to CLOCK_MONOTONIC
// nanoseconds (perf's -k CLOCK_MONOTONIC clock).
var mono struct {
	ref  time.Time
	base int64
}

func clockMonotonic() int64 {
	var ts syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 1, uintptr(unsafe.Pointer(&ts)), 0)
	return ts.Nano()
}

func initMono() {
	if mono.base != 0 {
		return
	}
	// Bracket the clock read between two time.Now calls; keep the
	// tightest of a few tries.
	best := time.Duration(math.MaxInt64)
	for range 20 {
		a := time.Now()
		m := clockMonotonic()
		c := time.Now()
		if d := c.Sub(a); d < best {
			best = d
			mono.ref = a.Add(d / 2)
			mono.base = m
		}
	}
}

func monoNs(t time.Time) int64 { return mono.base + int64(t.Sub(mono.ref)) }

// tailDiag is the per-fixture diagnosis state.
type tailDiag struct {
	before []metrics.Sample
	mem    runtime.MemStats
}

var diagNames = []string{
	"/gc/cycles/total:gc-cycles",
	"/gc/pauses:seconds",
	"/sched/latencies:seconds",
}

func startDiag() *tailDiag {
	if *tailsOut == "" {
		return nil
	}
	initMono()
	d := &tailDiag{before: make([]metrics.Sample, len(diagNames))}
	for i, n := range diagNames {
		d.before[i].Name = n
	}
	metrics.Read(d.before)
	// runtime/metrics' allocation counts lag (they move when a span is
	// refilled, and leave out tiny objects); ReadMemStats flushes the
	// caches, at the price of a short stop-the-world, outside the window.
	runtime.ReadMemStats(&d.mem)
	return d
}

// report writes the samples and reports the runtime's figures over the
// window since startDiag.
func (d *tailDiag) report(b *testing.B, name string, xs []sample) {
	if d == nil {
		return
	}
	after := make([]metrics.Sample, len(diagNames))
	for i, n := range diagNames {
		after[i].Name = n
	}
	metrics.Read(after)
	b.ReportMetric(float64(after[0].Value.Uint64()-d.before[0].Value.Uint64()), "gc-cycles")
	_, pmax := histDelta(d.before[1].Value.Float64Histogram(), after[1].Value.Float64Histogram(), 1)
	b.ReportMetric(pmax*1e9, "gc-pause-max-ns")
	p99, smax := histDelta(d.before[2].Value.Float64Histogram(), after[2].Value.Float64Histogram(), 0.99)
	b.ReportMetric(p99*1e9, "go-sched-p99-ns")
	b.ReportMetric(smax*1e9, "go-sched-max-ns")
	var mem runtime.MemStats
	runtime.ReadMemStats(&mem)
	if n := len(xs); n > 0 { // the whole process's allocation over the window, per firing
		b.ReportMetric(float64(mem.Mallocs-d.mem.Mallocs)/float64(n), "allocs/firing")
		b.ReportMetric(float64(mem.TotalAlloc-d.mem.TotalAlloc)/float64(n), "B/firing")
	}
	f, err := os.OpenFile(*tailsOut, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for _, s := range xs {
		fmt.Fprintf(w, "%s,%d,%d,%d,%d\n", name, monoNs(s.due), monoNs(s.fired), monoNs(s.started), s.tid)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
}

// histDelta returns the q-quantile (upper bucket bound) and the largest
// non-empty bucket's upper bound of after - before.
func histDelta(before, after *metrics.Float64Histogram, q float64) (quant, hi float64) {
	var total uint64
	counts := make([]uint64, len(after.Counts))
	for i := range after.Counts {
		counts[i] = after.Counts[i] - before.Counts[i]
		total += counts[i]
	}
	if total == 0 {
		return 0, 0
	}
	want := uint64(math.Ceil(q * float64(total)))
	var seen uint64
	quant = math.NaN()
	for i, c := range counts {
		if c == 0 {
			continue
		}
		seen += c
		up := after.Buckets[i+1]
		if math.IsInf(up, 1) {
			up = after.Buckets[i]
		}
		if seen >= want && math.IsNaN(quant) {
			quant = up
		}
		hi = up
	}
	return quant, hi
}
