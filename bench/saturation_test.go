package bench

import (
	"flag"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/core/env"
	"github.com/ckptsim/ckptsim/core/sched"
	"github.com/ckptsim/ckptsim/sim"
)

// The saturation workload: satPipelines periodic triggers on the shared
// design, due one per satSpacing member-wide, each body blocking (a sleep,
// as a blocked I/O call) for util x satDispatch x satSpacing so that the
// bounded dispatch pool is busy util of the time. Past 100% the queue
// grows for as long as the run lasts, so figures there depend on b.N:
// results/ use -benchtime=1000x (2 s of triggers).
const (
	satPipelines = 100
	satDispatch  = 8 // max(8, 2 x cores) on the 2-core machine
	satSpacing   = 2 * time.Millisecond
)

var (
	utils       = []int{10, 30, 50, 80, 100, 120, 150}
	simPerStep  = flag.Duration("sim.perstep", time.Microsecond, "CPU model: virtual time charged per scheduling point")
	simCores    = flag.Int("sim.cores", 2, "CPU model: virtual cores")
	satInterval = satPipelines * satSpacing
)

func bodyTime(util int) time.Duration {
	return time.Duration(util) * satDispatch * satSpacing / 100
}

// satRun records what one saturation run observed.
type satRun struct {
	warm  time.Time // firings due at or before this are warm-up
	delay []time.Duration
	rearm []time.Duration // from the later of due and the re-arm: the old, flattering figure
	queue []time.Duration // queued tasks at each firing, as a count
	busy  time.Duration   // sum of body run times
	first time.Time
	last  time.Time
}

// observe records one firing; it reports whether it was kept (not
// skipped, not warm-up).
func (r *satRun) observe(x sched.Firing, queued int) bool {
	if x.Skipped || !x.Due.After(r.warm) {
		return false
	}
	if r.first.IsZero() {
		r.first = x.Due
	}
	r.last = x.Ended
	r.delay = append(r.delay, x.Delay())
	r.rearm = append(r.rearm, x.RearmDelay())
	r.queue = append(r.queue, time.Duration(queued))
	r.busy += x.Ended.Sub(x.Started)
	return true
}

// report writes the figures; sim adds the deterministic copies that
// cmd/benchgate gates (assume=exact units).
func (r *satRun) report(b *testing.B, sim bool) {
	reportLatency(b, "", r.delay)
	b.ReportMetric(float64(quantile(r.rearm, 0.5)), "rearm-p50-ns")
	b.ReportMetric(float64(quantile(r.rearm, 0.99)), "rearm-p99-ns")
	q50, qmax := float64(quantile(r.queue, 0.5)), float64(quantile(r.queue, 1))
	b.ReportMetric(q50, "queue-p50")
	b.ReportMetric(qmax, "queue-max")
	if w := r.last.Sub(r.first); w > 0 {
		b.ReportMetric(100*float64(r.busy)/float64(satDispatch*w), "util-%")
	}
	if sim {
		b.ReportMetric(float64(quantile(r.delay, 0.5)), "sim-p50-ns")
		b.ReportMetric(float64(quantile(r.delay, 0.99)), "sim-p99-ns")
		b.ReportMetric(q50, "sim-queue-p50")
		b.ReportMetric(qmax, "sim-queue-max")
	}
}

// startSaturation arms the workload on a new scheduler of design d;
// observe gets every firing and the queue length when it ran. Each
// trigger re-arms for its intended time (t0 + k x interval), so a late
// body's successor counts its delay from when it should have run.
func startSaturation(e env.Env, d sched.Design, util int, r *satRun, observe func(sched.Firing, int)) (sched.Scheduler, error) {
	var s sched.Scheduler
	s, err := sched.New(e, sched.Config{Design: d, DispatchThreads: satDispatch,
		Observe: func(x sched.Firing) { observe(x, s.Stats().Queued) }})
	if err != nil {
		return nil, err
	}
	body := bodyTime(util)
	start := e.Now()
	r.warm = start.Add(satInterval)
	for i := range satPipelines {
		l := s.Lease(1, i)
		due := start.Add(time.Duration(i+1) * satSpacing)
		var fn func() error
		fn = func() error {
			due = due.Add(satInterval)
			l.ScheduleAt(due, fn)
			e.Sleep(body)
			return nil
		}
		l.ScheduleAt(due, fn)
	}
	return s, nil
}

// BenchmarkSaturation drives the real shared scheduler in wall mode at a
// chosen dispatch-pool utilisation. One op is one observed firing after
// one interval of warm-up; delay is from the intended schedule
// (rearm-p50/p99-ns: from the later of that and the re-arm, the figure
// that hides coordinated omission, kept for comparison only). util-% is
// measured from body run times (bodies sleep, and a runtime sleep ends
// up to ~1 ms late).
func BenchmarkSaturation(b *testing.B) { benchSaturation(b, sched.Shared) }

// BenchmarkSaturationLeaderFollower is BenchmarkSaturation on the
// leader-follower design (8 threads, the leader among them).
func BenchmarkSaturationLeaderFollower(b *testing.B) { benchSaturation(b, sched.LeaderFollower) }

func benchSaturation(b *testing.B, d sched.Design) {
	for _, u := range utils {
		b.Run(fmt.Sprintf("util=%d", u), func(b *testing.B) {
			var mu sync.Mutex
			n := b.N // bodies still running after Close must not read b.N
			run := &satRun{}
			done := make(chan struct{}) // made before any firing can close it
			s, err := startSaturation(env.Wall{}, d, u, run, func(x sched.Firing, q int) {
				mu.Lock()
				defer mu.Unlock()
				if len(run.delay) < n && run.observe(x, q) && len(run.delay) == n {
					close(done)
				}
			})
			if err != nil {
				b.Fatal(err)
			}
			select {
			case <-done:
			case <-time.After(10*time.Duration(b.N)*satSpacing + satInterval + 10*time.Second):
				b.Fatal("saturation run timed out")
			}
			s.Close()
			mu.Lock()
			defer mu.Unlock()
			run.report(b, false)
			b.ReportMetric(0, "ns/op")
		})
	}
}

// BenchmarkSaturationSim is the simulator's prediction of
// BenchmarkSaturation: the same workload in a sim.World with the CPU
// model (K virtual cores, a cost per scheduling point). Metrics are in
// virtual time and deterministic for the seed (sim-* units are declared
// assume=exact and gated by cmd/benchgate); ns/op is the wall cost of
// simulating one firing.
func BenchmarkSaturationSim(b *testing.B) { benchSaturationSim(b, sched.Shared) }

// BenchmarkSaturationSimLeaderFollower is BenchmarkSaturationSim on the
// leader-follower design.
func BenchmarkSaturationSimLeaderFollower(b *testing.B) {
	benchSaturationSim(b, sched.LeaderFollower)
}

func benchSaturationSim(b *testing.B, d sched.Design) {
	for _, u := range utils {
		b.Run(fmt.Sprintf("util=%d", u), func(b *testing.B) {
			w := sim.New(sim.Config{Seed: 1, CPU: &sim.CPUModel{Cores: *simCores, PerStep: *simPerStep}})
			run := &satRun{}
			res := w.Run(func() {
				s, err := startSaturation(w, d, u, run, func(x sched.Firing, q int) {
					if len(run.delay) < b.N {
						run.observe(x, q)
					}
				})
				if err != nil {
					panic(err)
				}
				for len(run.delay) < b.N {
					w.Sleep(satSpacing)
				}
				s.Close()
			})
			if res.Outcome != sim.OutcomeDone {
				b.Fatalf("%v: %s", res.Outcome, res.Reason)
			}
			run.report(b, true)
			b.ReportMetric(float64(res.Steps)/float64(b.N), "steps/op")
		})
	}
}
