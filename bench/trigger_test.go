//go:build linux

package bench

import (
	"flag"
	"fmt"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/core/env"
	"github.com/ckptsim/ckptsim/core/sched"
)

var (
	spacing       = flag.Duration("trigger.spacing", 20*time.Millisecond, "time between due triggers, member-wide (upstream: 20ms; interval = max(10, pipelines) x spacing)")
	precisePark   = flag.Duration("precise.park", 0, "env.PreciseWall's Park in BenchmarkTriggerPrecise (0: its default)")
	preciseSpin   = flag.Duration("precise.spin", 0, "env.PreciseWall's Spin in BenchmarkTriggerPrecise (0: its default)")
	preciseLead   = flag.Duration("precise.lead", 0, "env.PreciseWall's Lead in BenchmarkTriggerPrecise (0: its default, negative: off)")
	preciseBudget = flag.Float64("precise.budget", 0, "env.PreciseWall's SpinBudget (share of one core) in BenchmarkTriggerPrecise, BenchmarkTriggerCoordPrecise and BenchmarkIdleMember's env=precise(1) (0: its default, negative: none)")
	precisePoll   = flag.Bool("precise.poll", true, "env.PreciseWall's Poll in BenchmarkTriggerPrecise, BenchmarkTriggerCoordPrecise and BenchmarkIdleMember's env=precise(1) (default on, as env.Default; -precise.poll=false: the futex and Go-park phases)")
	pipelines     = []int{10, 100, 500}
	designs       = []sched.Design{sched.PerPipeline, sched.Shared, sched.SharedInline, sched.LeaderFollower}
)

// interval is upstream's max(200 ms, pipelines x 20 ms): the same
// aggregate trigger rate, one due trigger per spacing, at every count.
func interval(p int) time.Duration { return max(10, time.Duration(p)) * *spacing }

// collectTimeout bounds a collection: n samples at one per spacing, after
// the warm-up interval, with a generous margin.
func collectTimeout(n, p int) time.Duration {
	return 3*time.Duration(n)**spacing + 2*interval(p) + 10*time.Second
}

// BenchmarkTrigger is the synthetic trigger delay of the real scheduler
// designs in wall mode (upstream BENCH-1): each pipeline's periodic
// trigger re-arms itself from its body at a fixed rate, due times
// staggered evenly over the interval. One op is one observed firing.
//
// Delay is measured from the intended schedule: pipeline i's k-th firing
// is due at t0 + (i+1) x interval/P + k x interval whenever its body
// re-armed (Lease.ScheduleAt keeps a past due), so a late firing cannot
// hide the next one's lateness. Warm-up: every firing due in the first
// full interval (each pipeline's first) is discarded, as the JDK peer does.
func BenchmarkTrigger(b *testing.B) { benchTrigger(b, "wall", env.Wall{}) }

// BenchmarkTriggerPrecise is BenchmarkTrigger on env.PreciseWall, Poll on
// as env.Default (the -precise.* flags change it). make bench runs it at
// the machine's GOMAXPROCS and at 1 (bench/side.sh -cpu 0,1): the
// benchmark name's -N suffix says which, none for one P.
func BenchmarkTriggerPrecise(b *testing.B) {
	benchTrigger(b, "precise", env.PreciseWall{Park: *precisePark, Spin: *preciseSpin, Lead: *preciseLead, Poll: *precisePoll, SpinBudget: *preciseBudget})
}

func benchTrigger(b *testing.B, envName string, e env.Env) {
	for _, d := range designs {
		for _, p := range pipelines {
			b.Run(fmt.Sprintf("design=%s/pipelines=%d", d, p), func(b *testing.B) {
				key := fmt.Sprintf("trigger/%s/%s/%d/%v/procs=%d", envName, d, p, *spacing, runtime.GOMAXPROCS(0))
				f := fixtureFor(key, func() *triggerFixture { return newTriggerFixture(b, e, d, p) })
				diag := startDiag()
				spin := startSpin()
				cpu := startCPU()
				xs := f.col.collect(b, b.N, collectTimeout(b.N, p))
				cpu.report(b, b.N)
				cpu.reportSwitches(b, b.N)
				spin.report(b, e, b.N)
				diag.report(b, fmt.Sprintf("%s/%s/%d", envName, d, p), xs)
				reportTrigger(b, xs)
				st := f.s.Stats()
				b.ReportMetric(float64(st.TimerThreads+st.DispatchThreads), "goroutines")
				if l, ok := e.(env.TimerLeader); ok { // the lead at the end (PreciseWall's adapts)
					b.ReportMetric(float64(l.TimerLead()), "lead-ns")
				}
			})
		}
	}
}

func reportTrigger(b *testing.B, xs []sample) {
	delay, late, hop := split(xs)
	reportLatency(b, "", delay)
	b.ReportMetric(float64(quantile(late, 0.5)), "timer-late-p50-ns")
	b.ReportMetric(float64(quantile(late, 0.99)), "timer-late-p99-ns")
	b.ReportMetric(float64(quantile(hop, 0.5)), "hop-p50-ns")
	b.ReportMetric(float64(quantile(hop, 0.99)), "hop-p99-ns")
	b.ReportMetric(0, "ns/op") // one op is one spacing by construction
}

type triggerFixture struct {
	s    sched.Scheduler
	col  collector
	warm time.Time // firings due at or before this are warm-up
}

func newTriggerFixture(b *testing.B, e env.Env, d sched.Design, p int) *triggerFixture {
	f := &triggerFixture{}
	s, err := sched.New(e, sched.Config{Design: d, Cores: runtime.NumCPU(), Observe: f.observe})
	if err != nil {
		b.Fatal(err)
	}
	f.s = s
	iv := interval(p)
	start := e.Now()
	f.warm = start.Add(iv)
	for i := range p {
		periodic(s.Lease(1, i), start.Add(time.Duration(i+1)*iv/time.Duration(p)), iv)
	}
	return f
}

// periodic arms a trigger due at first that re-arms itself from its body
// at a fixed rate (first + k x iv), as the coordinator's trigger re-arms on
// its lease; a late body re-arms for the intended time, not from now.
func periodic(l *sched.Lease, first time.Time, iv time.Duration) {
	due := first
	var body func() error
	body = func() error {
		due = due.Add(iv)
		l.ScheduleAt(due, body)
		return nil
	}
	l.ScheduleAt(due, body)
}

func (f *triggerFixture) observe(x sched.Firing) {
	if x.Skipped || !x.Due.After(f.warm) {
		return
	}
	s := sample{delay: x.Delay(), late: x.TimerLate(), hop: x.Hop()}
	if *tailsOut != "" {
		s.due, s.fired, s.started, s.tid = x.Due, x.Fired, x.Started, syscall.Gettid()
	}
	f.col.add(s)
}

func (f *triggerFixture) close() { f.s.Close() }
