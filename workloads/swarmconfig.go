package workloads

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/ckptsim/ckptsim/core/sched"
	"github.com/ckptsim/ckptsim/sim"
)

// swarmOption is one option a swarm seed draws (SwarmConfig): draw takes
// its numbers from the stream whether the option applies or not, so that
// a file that sets one option does not change the others' draws; set
// applies the draw when the file leaves the option unset and returns its
// value as YAML ("" when the file sets it).
type swarmOption struct {
	name string
	draw func(r *rand.Rand) int
	set  func(s *Scenario, i int, step time.Duration) string
}

// The choices a swarm seed draws from. Small pools and executors, short
// keep-alives and a lead are the paths a default configuration rarely
// takes; each list holds the default too.
var (
	swarmLeads        = []time.Duration{0, 0, 0, 100 * time.Microsecond, time.Millisecond, 2 * time.Millisecond} // off half the time
	swarmPools        = []int{1, 2, 4, 8, 16}
	swarmExecutors    = []int{1, 2, 10}
	swarmKeepAlives   = []time.Duration{10 * time.Millisecond, time.Second, 60 * time.Second}
	swarmLatencySteps = []time.Duration{time.Millisecond, 10 * time.Millisecond, 100 * time.Millisecond}
	// swarmExecutorMaxes: the coordinator executor's maximum threads (0:
	// none, the default, three times in four). 32 saturates it in bursts
	// while faults are on (20 pipelines triggering at one instant, status
	// writes held back by status_slow and their retries), so that its
	// rejections (exec.ErrSaturated) run, and leaves it enough threads
	// once healed; 2 to 16 saturate it after the heal too and no
	// pipeline of 20 completes a checkpoint then (a configuration, not a
	// defect: core fails each rejected hand-off's generation, and the
	// restore's trigger is rejected again).
	swarmExecutorMaxes = []int{0, 0, 0, 32}
)

// Latency shapes a swarm seed draws for each latency the file lists.
const (
	latencyListed = iota // as the file lists it (twice as likely)
	latencyListed2
	latencyZero    // fixed 0: every call answers at the instant it was made
	latencyStepped // the file's, rounded down to whole multiples of the seed's step
	latencyShapes
)

func pick(n int) func(r *rand.Rand) int { return func(r *rand.Rand) int { return r.IntN(n) } }

// durationOption is a duration field drawn from choices when unset.
func durationOption(name string, choices []time.Duration, field func(s *Scenario) *Duration) swarmOption {
	return swarmOption{name: name, draw: pick(len(choices)), set: func(s *Scenario, i int, _ time.Duration) string {
		f := field(s)
		if f.Raw != "" {
			return ""
		}
		*f = Dur(choices[i])
		return choices[i].String()
	}}
}

// intOption is an int field drawn from choices when 0.
func intOption(name string, choices []int, field func(s *Scenario) *int) swarmOption {
	return swarmOption{name: name, draw: pick(len(choices)), set: func(s *Scenario, i int, _ time.Duration) string {
		f := field(s)
		if *f != 0 {
			return ""
		}
		*f = choices[i]
		return fmt.Sprint(choices[i])
	}}
}

// latencyOption draws the shape of a latency the file lists (one without
// a step of its own): as listed, zero, or stepped.
func latencyOption(name string, field func(w *Workload) *Dist) swarmOption {
	return swarmOption{name: name, draw: pick(latencyShapes), set: func(s *Scenario, i int, step time.Duration) string {
		d := field(&s.Workload)
		if *d == (Dist{}) || d.Step.Raw != "" {
			return ""
		}
		switch i {
		case latencyZero:
			*d = Dist{Kind: "fixed"}
		case latencyStepped:
			d.Step = Dur(step)
		}
		return distYAML(*d)
	}}
}

// swarmOptions is the table of drawn options, in draw order. An option
// is added at the end: one added elsewhere moves every later draw.
var swarmOptions = []swarmOption{
	{name: "design", draw: pick(len(sched.Designs)), set: func(s *Scenario, i int, _ time.Duration) string {
		if s.Scheduler.Design != "" {
			return ""
		}
		s.Scheduler.Design = string(sched.Designs[i])
		return s.Scheduler.Design
	}},
	durationOption("timer_lead", swarmLeads, func(s *Scenario) *Duration { return &s.Scheduler.TimerLead }),
	intOption("dispatch_threads", swarmPools, func(s *Scenario) *int { return &s.Scheduler.DispatchThreads }),
	durationOption("keep_alive", swarmKeepAlives, func(s *Scenario) *Duration { return &s.Scheduler.KeepAlive }),
	intOption("executor_core", swarmExecutors, func(s *Scenario) *int { return &s.Cluster.ExecutorCore }),
	durationOption("executor_keep_alive", swarmKeepAlives, func(s *Scenario) *Duration { return &s.Cluster.ExecutorKeepAlive }),
	latencyOption("ack_latency", func(w *Workload) *Dist { return &w.AckLatency }),
	latencyOption("dispatch_latency", func(w *Workload) *Dist { return &w.DispatchLatency }),
	latencyOption("notify_latency", func(w *Workload) *Dist { return &w.NotifyLatency }),
	latencyOption("status_latency", func(w *Workload) *Dist { return &w.StatusLatency }),
	latencyOption("storage_latency", func(w *Workload) *Dist { return &w.StorageLatency }),
	{name: "min_pause", draw: pick(len(swarmMinPauses)), set: func(s *Scenario, i int, _ time.Duration) string {
		c := &s.Checkpoint
		if c.MinPause.Raw != "" || swarmMinPauses[i] == 0 {
			return ""
		}
		c.MinPause = Dur(c.Interval.D * time.Duration(swarmMinPauses[i]) / 10)
		return c.MinPause.D.String()
	}},
	{name: "executor_max", draw: pick(len(swarmExecutorMaxes)), set: func(s *Scenario, i int, _ time.Duration) string {
		if s.Cluster.ExecutorMax != 0 || swarmExecutorMaxes[i] == 0 {
			return ""
		}
		s.Cluster.ExecutorMax = swarmExecutorMaxes[i]
		return fmt.Sprint(swarmExecutorMaxes[i])
	}},
}

// swarmMinPauses are checkpoint.min_pause's choices in tenths of the
// interval: off three times in five, else half or four fifths of it. At
// most the interval, so that a restore's first trigger still comes within
// the interval the latency bounds assume (workloads/bounds.go), and close
// enough to it that a checkpoint completing late makes the next periodic
// trigger wait (coord's guard 4).
var swarmMinPauses = []int{0, 0, 0, 5, 8}

// SwarmConfig is the configuration one seed of a swarm scenario runs with,
// as TigerBeetle's VOPR draws its cluster's options per seed: every option
// the file leaves unset is drawn from the seed's own stream
// (sim.StreamSwarmConfig, independent of the fault kinds' SwarmFaults):
// the scheduler design (every one in sched.Designs), the timer lead (off
// half the time, else 100µs to 2ms), the dispatch pool's bound, its
// keep-alive, the coordinator executor's core threads, keep-alive and
// maximum (none three times in four, else 32: recorded only when set), and
// the shape of each latency the file lists: as listed (half the time),
// zero, or rounded down to whole multiples of one step the seed draws
// (1ms, 10ms or 100ms), so that calls made apart answer at the same
// virtual instant. It returns a copy of s with the draw applied and the
// drawn options by name (the YAML field, without its section) with their
// values as YAML. A design named by variants (the file's or --variant)
// still wins when the run is built; Run records the design in effect.
func SwarmConfig(s *Scenario, seed uint64) (*Scenario, map[string]string) {
	r := sim.NewRand(seed, sim.StreamSwarmConfig)
	step := swarmLatencySteps[r.IntN(len(swarmLatencySteps))]
	draws := make([]int, len(swarmOptions))
	for i, o := range swarmOptions {
		draws[i] = o.draw(r)
	}
	out, chosen := *s, map[string]string{}
	for i, o := range swarmOptions {
		if v := o.set(&out, draws[i], step); v != "" {
			chosen[o.name] = v
		}
	}
	return &out, chosen
}

// OptionsString renders a swarm seed's options (Outcome.Options) on one
// line in table order: "design=per-pipeline timer_lead=1ms ...".
func OptionsString(options map[string]string) string {
	var parts []string
	for _, o := range swarmOptions {
		if v, ok := options[o.name]; ok {
			parts = append(parts, o.name+"="+v)
		}
	}
	return strings.Join(parts, " ")
}

// distYAML writes a distribution as the scenario's YAML would, on one line.
func distYAML(d Dist) string {
	var parts []string
	parts = append(parts, "kind: "+cmp.Or(d.Kind, "fixed"))
	for _, f := range []struct {
		name string
		d    Duration
	}{{"min", d.Min}, {"max", d.Max}, {"mean", d.Mean}, {"step", d.Step}} {
		if f.d.D != 0 {
			parts = append(parts, f.name+": "+f.d.D.String())
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// designOf is the design a scheduler configuration runs.
func designOf(d sched.Design) string { return string(cmp.Or(d, sched.Shared)) }
