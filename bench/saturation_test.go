package bench

import (
	"flag"
	"fmt"
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
	delay []time.Duration
	queue []time.Duration // queued tasks at each firing, as a count
	busy  time.Duration   // sum of body run times
	first time.Time
	last  time.Time
}

func (r *satRun) observe(x sched.Firing, queued int) {
	if x.Skipped {
		return
	}
	if r.first.IsZero() {
		r.first = x.Due
	}
	r.last = x.Ended
	r.delay = append(r.delay, x.Delay())
	r.queue = append(r.queue, time.Duration(queued))
	r.busy += x.Ended.Sub(x.Started)
}

func (r *satRun) report(b *testing.B) {
	reportLatency(b, "", r.delay)
	b.ReportMetric(float64(quantile(r.queue, 0.5)), "queue-p50")
	b.ReportMetric(float64(quantile(r.queue, 1)), "queue-max")
	if w := r.last.Sub(r.first); w > 0 {
		b.ReportMetric(100*float64(r.busy)/float64(satDispatch*w), "util-%")
	}
}

// startSaturation arms the workload on a new shared scheduler; observe
// gets every firing and the queue length when it ran.
func startSaturation(e env.Env, util int, observe func(sched.Firing, int)) (sched.Scheduler, error) {
	var s sched.Scheduler
	s, err := sched.New(e, sched.Config{Design: sched.Shared, DispatchThreads: satDispatch,
		Observe: func(x sched.Firing) { observe(x, s.Stats().Queued) }})
	if err != nil {
		return nil, err
	}
	body := bodyTime(util)
	start := e.Now()
	for i := range satPipelines {
		l := s.Lease(1, i)
		due := start.Add(time.Duration(i+1) * satSpacing)
		var fn func() error
		fn = func() error {
			due = due.Add(satInterval)
			l.Schedule(due.Sub(e.Now()), fn)
			e.Sleep(body)
			return nil
		}
		l.Schedule(due.Sub(e.Now()), fn)
	}
	return s, nil
}

// BenchmarkSaturation drives the real shared scheduler in wall mode at a
// chosen dispatch-pool utilisation. One op is one observed firing;
// util-% is the utilisation measured from body run times (bodies sleep,
// and a runtime sleep ends up to ~1 ms late).
func BenchmarkSaturation(b *testing.B) {
	for _, u := range utils {
		b.Run(fmt.Sprintf("util=%d", u), func(b *testing.B) {
			run := &satRun{}
			col := &collector{}
			s, err := startSaturation(env.Wall{}, u, func(x sched.Firing, q int) {
				col.mu.Lock()
				if len(run.delay) < b.N {
					run.observe(x, q)
					if len(run.delay) == b.N {
						close(col.done)
					}
				}
				col.mu.Unlock()
			})
			if err != nil {
				b.Fatal(err)
			}
			col.mu.Lock()
			col.done = make(chan struct{})
			done := col.done
			col.mu.Unlock()
			select {
			case <-done:
			case <-time.After(10*time.Duration(b.N)*satSpacing + 10*time.Second):
				b.Fatal("saturation run timed out")
			}
			s.Close()
			col.mu.Lock()
			defer col.mu.Unlock()
			run.report(b)
			b.ReportMetric(0, "ns/op")
		})
	}
}

// BenchmarkSaturationSim is the simulator's prediction of
// BenchmarkSaturation: the same workload in a sim.World with the CPU
// model (K virtual cores, a cost per scheduling point). Metrics are in
// virtual time and deterministic for the seed; ns/op is the wall cost of
// simulating one firing.
func BenchmarkSaturationSim(b *testing.B) {
	for _, u := range utils {
		b.Run(fmt.Sprintf("util=%d", u), func(b *testing.B) {
			w := sim.New(sim.Config{Seed: 1, CPU: &sim.CPUModel{Cores: *simCores, PerStep: *simPerStep}})
			run := &satRun{}
			res := w.Run(func() {
				s, err := startSaturation(w, u, func(x sched.Firing, q int) {
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
			run.report(b)
			b.ReportMetric(float64(res.Steps)/float64(b.N), "steps/op")
		})
	}
}
