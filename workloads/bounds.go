package workloads

import (
	"fmt"
	"time"

	"github.com/ckptsim/ckptsim/core/sched"
	"github.com/ckptsim/ckptsim/workloads/oracle"
)

// The latency-bound rule (workloads/REFERENCE.md, "Latency bounds"): each
// bound is BoundSlack times what the scenario's configuration implies, plus
// BoundFloor, and applies to the run's 99th percentile (judged in
// workloads/oracle: oracle.LatencyBounds).
const (
	BoundSlack = oracle.BoundSlack
	BoundFloor = oracle.BoundFloor
)

// Bounds are the p99 latency bounds of one run.
type Bounds struct {
	SchedDelay time.Duration // due to body start, every lease body
	// SchedWave is taken off the scheduling delay of each body due inside
	// a step-down window the harness injected (from the step-down to
	// SchedWave after the reactivation) before the p99 is judged: one
	// status write at its longest, plus one status backoff when the
	// faults make a status-retry wave possible (statusRetryWave); 0
	// without step-downs. Bodies due elsewhere get no allowance.
	SchedWave time.Duration
	// SchedStall is added to the scheduling-delay bound when bodies queue
	// for the pool (fewer threads than leases) and the faults can fail a
	// trigger on its dispatch thread (triggerFailsOnThread): that
	// thread then sits one FAILED status write, and the bodies queued
	// behind it wait as long. 0 otherwise.
	SchedStall        time.Duration
	TriggerToComplete time.Duration // checkpoint triggered to completed
	FailoverToFirst   time.Duration // restore to the pipeline's first completed checkpoint
}

// dmax is the longest draw of d (an exponential without max: min + 5 means).
func dmax(d Dist) time.Duration {
	switch d.Kind {
	case "uniform":
		return max(d.Min.D, d.Max.D)
	case "exp":
		if d.Max.D > 0 {
			return d.Max.D
		}
		return d.Min.D + 5*d.Mean.D
	}
	return d.Min.D
}

// dtyp is the typical draw of d: the mean, capped by its max.
func dtyp(d Dist) time.Duration {
	switch d.Kind {
	case "uniform":
		return (d.Min.D + max(d.Min.D, d.Max.D)) / 2
	case "exp":
		if d.Max.D > 0 {
			return min(d.Min.D+d.Mean.D, d.Max.D)
		}
		return d.Min.D + d.Mean.D
	}
	return d.Min.D
}

// bounds derives the bounds from the scenario's configuration and the
// scheduler design in effect (variants may change it):
//
//	threads  = dispatch threads (shared: max(8, 2 x cores) or dispatch_threads;
//	           shared-inline: the 2 timer threads; per-pipeline: 2 per lease)
//	sched    = ceil(leases / threads) x typical body_slowness
//	           (one wave of every lease's trigger through the pool)
//	wave     = when the faults step the master down: one status write
//	           at its longest (max status_latency + max status_slow),
//	           plus the status backoff (2 s) when they also fail
//	           status-store calls retryably (statusRetryWave); else 0.
//	           Taken off the delay of each
//	           body due inside a step-down window (step-down to
//	           reactivation + wave, as the harness injected it), not
//	           added to sched, so a slowdown anywhere else still fails
//	complete = tasks x (max dispatch_latency + max notify_latency)
//	           + min(max ack_latency, timeout) + max storage_latency + 2 x max status_latency
//	failover = max restart_delay + interval + complete + sched + wave
//
// and each bound is BoundSlack x that + BoundFloor (the scheduling bound
// plus stall). f are the faults the
// run injects (a swarm seed's draw, else the scenario's).
func (s *Scenario) bounds(design sched.Design, f Faults) Bounds {
	leases := s.Cluster.Jobs * s.Cluster.Pipelines
	cores := s.Cluster.Cores
	if cores == 0 {
		cores = 2
	}
	threads := sched.Config{Cores: cores, DispatchThreads: s.Scheduler.DispatchThreads}.Bound()
	switch design {
	case sched.SharedInline:
		threads = 2
	case sched.PerPipeline:
		threads = 2 * leases
	}
	w := s.Workload
	timeout := s.Checkpoint.Timeout.D
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	tasks := time.Duration(max(s.Cluster.Tasks, 1))
	sd := time.Duration((leases+threads-1)/threads) * dtyp(w.BodySlowness)
	var wave time.Duration
	if f.StepDown.On() {
		// at a step-down every trigger due fails on its dispatch thread
		// and writes FAILED there: one status write at its longest (the
		// store's latency, slowed while faults are on), and one backoff
		// when the store fails retryably (statusRetryWave)
		wave = dmax(w.StatusLatency) + dmax(f.StatusSlow)
		if statusRetryWave(f) {
			wave += statusBackoff
		}
	}
	var stall time.Duration
	if threads < leases && triggerFailsOnThread(f) {
		stall = dmax(w.StatusLatency) + dmax(f.StatusSlow)
		if f.StatusRetryable > 0 {
			stall += statusBackoff
		}
	}
	tc := tasks*(dmax(w.DispatchLatency)+dmax(w.NotifyLatency)) + min(dmax(w.AckLatency), timeout) +
		dmax(w.StorageLatency) + 2*dmax(w.StatusLatency)
	fo := dmax(w.RestartDelay) + s.Checkpoint.Interval.D + tc + sd + wave
	b := func(d time.Duration) time.Duration { return BoundSlack*d + BoundFloor }
	return Bounds{SchedDelay: b(sd) + stall, SchedWave: wave, SchedStall: stall, TriggerToComplete: b(tc), FailoverToFirst: b(fo)}
}

// triggerFailsOnThread reports whether the faults can fail a trigger
// body on the thread that runs it, which then writes the pipeline's
// FAILED status there: the trigger throws, or the id counter fails.
func triggerFailsOnThread(f Faults) bool { return f.TriggerThrow > 0 || f.IDFailure > 0 }

// statusBackoff is the coordinators' status-store retry backoff
// (coord.Config.StatusBackoff's default; scenarios do not set it).
const statusBackoff = 2 * time.Second

// statusRetryWave reports whether the faults can hold every dispatch
// thread in a status-store retry at once: a step-down shuts the
// coordinator executor, so every trigger due then fails on its dispatch
// thread, and each failure writes its FAILED status through the retry
// loop (upstream's 30 x 2 s), which sleeps a backoff on that thread when
// the status store fails retryably. One wave of that delays every trigger
// due meanwhile by a backoff (failovers seed 7: 35 triggers 2.0 s late at
// the 90 s step-down, p99 2.02 s against a 250 ms bound).
func statusRetryWave(f Faults) bool { return f.StepDown.On() && f.StatusRetryable > 0 }

// p99 is the 99th percentile (nearest rank) of ds; 0 when empty.
func p99(ds []time.Duration) time.Duration { return oracle.P99(ds) }

// checkBounds hands the run's latencies, the bounds its configuration
// implies and the step-down windows to latency-bound (oracle.LatencyBounds).
// dues are the due times of lat.SchedDelay's bodies.
func (r *runner) checkBounds(lat Latencies, design sched.Design, dues []time.Duration, windows []oracle.Window) {
	oracle.LatencyBounds(&r.find, r.now(), oracle.P99Bounds(r.s.bounds(design, r.faults)), samples(lat, dues), windows)
}

// violations judges lat against b (oracle.LatencyViolations): one message
// per p99 above its bound.
func (b Bounds) violations(lat Latencies, dues []time.Duration, windows []oracle.Window) []string {
	return oracle.LatencyViolations(oracle.P99Bounds(b), samples(lat, dues), windows)
}

func samples(lat Latencies, dues []time.Duration) oracle.LatencySamples {
	return oracle.LatencySamples{SchedDelay: lat.SchedDelay, Dues: dues, TriggerToComplete: lat.TriggerToComplete,
		FailoverToFirst: lat.FailoverToFirst}
}

func (b Bounds) String() string {
	return fmt.Sprintf("sched %v (wave %v, stall %v), complete %v, failover %v", b.SchedDelay, b.SchedWave, b.SchedStall, b.TriggerToComplete,
		b.FailoverToFirst)
}
