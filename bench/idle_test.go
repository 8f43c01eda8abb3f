//go:build linux

package bench

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/core/env"
	"github.com/ckptsim/ckptsim/core/sched"
)

var idleWall = flag.Duration("idle.wall", 3*time.Second, "wall time BenchmarkIdleMember measures per sub-benchmark and op, after one interval of warm-up (20 s in each of three rounds for the record)")

// BenchmarkIdleMember is what a member costs between checkpoints: P
// pipelines (10, 100, 500) whose periodic triggers are due every interval
// (1 s, 10 s; due times staggered evenly over it, bodies that only re-arm,
// as BenchmarkTrigger's), on every scheduler design, on the default env
// (env=precise, env.PreciseWall with Poll; env=precise1 the same with
// GOMAXPROCS 1 for the sub-benchmark), on env.Wall (env=wall) and on env.Wall
// with GOMAXPROCS 1 (env=wall1: no idle P for the
// runtime to wake a second thread for on each firing, which is most of
// the difference in context switches to the JDK peer,
// results/bench/experiments/README.md, idle-switches). After setup
// and one interval of warm-up (threads started on demand are started), one
// op is one window of -idle.wall wall time (default 3 s; three rounds of
// 20 s for the record, make bench-idle), over which it reports:
//
//	cpu-%              process CPU (user + system, getrusage) per second of
//	                   wall time, in percent of one core
//	threads            the process's OS threads at the end (/proc/self/status)
//	rss-MiB            its resident set at the end (VmRSS), after a GC and
//	                   debug.FreeOSMemory before the window
//	stw-max-ns         the longest stop-the-world pause in the window, GC or
//	                   other (/sched/pauses/total/{gc,other}:seconds: the
//	                   upper bound of the highest bucket that moved)
//	stw-stopping-max-ns the longest time to stop the world in the window
//	                   (/sched/pauses/stopping/{gc,other}:seconds), the Go
//	                   analogue of the JVM's time to safepoint
//	gc-cycles          GC cycles in the window
//	firings/s          firings observed per second (the schedule ran)
//	ctxsw/s            the process's context switches (voluntary and
//	                   involuntary, getrusage) per second of wall time: a
//	                   count, which a host that stops the virtual machine
//	                   does not move, where it charges the stopped time as
//	                   CPU (results/bench/experiments/README.md, idle-switches: over
//	                   three runs of a cell there, cpu-% moved by up to
//	                   6.6x, 1.6-2.3x at the median, the switches per
//	                   firing by 2-7% at the median)
//
// Threads and RSS carry what earlier sub-benchmarks left in the process
// (the Go runtime keeps its threads): compare them only between fresh
// processes, one sub-benchmark each (bench/idle.sh).
func BenchmarkIdleMember(b *testing.B) {
	def := env.PreciseWall{Poll: *precisePoll, SpinBudget: *preciseBudget} // env.Default unless -precise.poll=false or -precise.budget
	envs := []struct {
		name  string
		e     env.Env
		procs int // GOMAXPROCS for the sub-benchmark; 0 leaves it
	}{{"precise", def, 0}, {"precise1", def, 1}, {"wall", env.Wall{}, 0}, {"wall1", env.Wall{}, 1}}
	for _, en := range envs {
		for _, d := range designs {
			for _, p := range pipelines {
				for _, iv := range []time.Duration{time.Second, 10 * time.Second} {
					name := fmt.Sprintf("env=%s/design=%s/pipelines=%d/interval=%v", en.name, d, p, iv)
					b.Run(name, func(b *testing.B) {
						if en.procs > 0 {
							defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(en.procs))
						}
						key := "idle/" + name
						f := fixtureFor(key, func() *idleFixture { return newIdleFixture(b, en.e, d, p, iv) })
						for range b.N {
							f.window(b, *idleWall)
						}
						b.ReportMetric(0, "ns/op") // one op is one window by construction
					})
				}
			}
		}
	}
}

type idleFixture struct {
	s     sched.Scheduler
	e     env.Env
	fired atomic.Int64
	mu    sync.Mutex
	rec   bool            // the window is open: record delays
	delay []time.Duration // the window's firings' delays from their due times
}

func newIdleFixture(b *testing.B, e env.Env, d sched.Design, p int, iv time.Duration) *idleFixture {
	f := &idleFixture{e: e}
	s, err := sched.New(e, sched.Config{Design: d, Cores: runtime.NumCPU(), Observe: func(x sched.Firing) {
		if !x.Skipped {
			f.fired.Add(1)
			f.mu.Lock()
			if f.rec {
				f.delay = append(f.delay, x.Delay())
			}
			f.mu.Unlock()
		}
	}})
	if err != nil {
		b.Fatal(err)
	}
	f.s = s
	start := e.Now()
	for i := range p {
		periodic(s.Lease(1, i), start.Add(time.Duration(i+1)*iv/time.Duration(p)), iv)
	}
	time.Sleep(iv) // warm-up: every pipeline has fired once
	return f
}

func (f *idleFixture) close() { f.s.Close() }

var stwNames = []string{
	"/sched/pauses/total/gc:seconds",
	"/sched/pauses/total/other:seconds",
	"/sched/pauses/stopping/gc:seconds",
	"/sched/pauses/stopping/other:seconds",
	"/gc/cycles/total:gc-cycles",
}

func readSTW() []metrics.Sample {
	s := make([]metrics.Sample, len(stwNames))
	for i, n := range stwNames {
		s[i].Name = n
	}
	metrics.Read(s)
	return s
}

// window measures one op: wall of idle time.
func (f *idleFixture) window(b *testing.B, wall time.Duration) {
	runtime.GC()
	debug.FreeOSMemory()
	before := readSTW()
	fired := f.fired.Load()
	f.mu.Lock()
	f.rec, f.delay = true, make([]time.Duration, 0, 1024)
	f.mu.Unlock()
	spin := startSpin()
	cpu0, sw0 := usage()
	t0 := time.Now()
	time.Sleep(wall)
	cpu1, sw1 := usage()
	cpu, el := cpu1-cpu0, time.Since(t0)
	n := f.fired.Load() - fired
	sp := spin.delta()
	f.mu.Lock()
	f.rec = false
	delay := f.delay
	f.mu.Unlock()
	after := readSTW()
	// What the firings' timing was worth: the delay from the due time,
	// and for a PreciseWall what it spun for it (percent of one core) and
	// the share of its waits that the spin budget sent to sleep.
	b.ReportMetric(float64(quantile(delay, 0.5)), "p50-ns")
	b.ReportMetric(float64(quantile(delay, 0.99)), "p99-ns")
	if _, ok := f.e.(env.PreciseWall); ok {
		b.ReportMetric(100*float64(sp.Spun)/float64(el), "spin-%")
		if w := sp.Waits + sp.OverBudget; w > 0 {
			b.ReportMetric(100*float64(sp.OverBudget)/float64(w), "over-budget-%")
		}
	}
	b.ReportMetric(100*float64(cpu)/float64(el), "cpu-%")
	b.ReportMetric(float64(n)/el.Seconds(), "firings/s")
	b.ReportMetric(float64(sw1-sw0)/el.Seconds(), "ctxsw/s")
	var total, stopping float64
	for i := range 2 {
		_, hi := histDelta(before[i].Value.Float64Histogram(), after[i].Value.Float64Histogram(), 1)
		total = max(total, hi)
		_, hi = histDelta(before[i+2].Value.Float64Histogram(), after[i+2].Value.Float64Histogram(), 1)
		stopping = max(stopping, hi)
	}
	b.ReportMetric(total*1e9, "stw-max-ns")
	b.ReportMetric(stopping*1e9, "stw-stopping-max-ns")
	b.ReportMetric(float64(after[4].Value.Uint64()-before[4].Value.Uint64()), "gc-cycles")
	threads, rss := procStatus()
	b.ReportMetric(float64(threads), "threads")
	b.ReportMetric(float64(rss)/(1<<20), "rss-MiB")
}

// procStatus returns the process's OS threads and resident set in bytes
// (/proc/self/status).
func procStatus() (threads int, rss int64) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		fs := strings.Fields(v)
		if len(fs) == 0 {
			continue
		}
		n, _ := strconv.ParseInt(fs[0], 10, 64)
		switch k {
		case "Threads":
			threads = int(n)
		case "VmRSS":
			rss = n << 10 // kB
		}
	}
	return threads, rss
}
