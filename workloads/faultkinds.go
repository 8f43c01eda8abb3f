package workloads

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/ckptsim/ckptsim/workloads/cluster"
)

// Shape is how a fault kind is written in a scenario's faults.
type Shape int

const (
	// ShapeSchedule: fixed times, a period and/or a rate per simulated
	// hour; the injector runs the kind's action at each time.
	ShapeSchedule Shape = iota + 1
	// ShapeRate: a probability per operation, drawn by the cluster.
	ShapeRate
	// ShapeDist: a latency distribution the cluster adds while faults are on.
	ShapeDist
)

func (s Shape) String() string {
	switch s {
	case ShapeSchedule:
		return "schedule"
	case ShapeRate:
		return "probability"
	case ShapeDist:
		return "distribution"
	}
	return fmt.Sprintf("Shape(%d)", int(s))
}

// Range is a multiplier range, drawn log-uniformly (swarm magnitudes).
type Range struct{ Lo, Hi float64 }

// at is the multiplier at u in [0, 1) (1 for the zero Range).
func (r Range) at(u float64) float64 {
	if r == (Range{}) {
		return 1
	}
	return r.Lo * math.Exp(u*math.Log(r.Hi/r.Lo))
}

// FaultKind is one kind of fault: its field in the scenario schema, its
// shape, how it is injected, the range swarm draws its magnitude from and
// the steps a shrink takes on it. FaultKinds is the one table of them:
// validation, the injector, the cluster's rates, swarm and shrink all
// derive from it.
type FaultKind struct {
	// Field is the kind's name: faults.<Field> in a scenario.
	Field string
	Shape Shape
	// Swarm is the range of the multiplier swarm applies to the kind's
	// rate (probability, per_hour, 1/every, or a distribution's scale);
	// SwarmFor is the one applied to a schedule's `for` (zero: kept).
	Swarm, SwarmFor Range
	// KeepOneIn: swarm keeps the kind in one seed in KeepOneIn (0: 2, the
	// rule); one draw either way, so a kind's odds leave the others' draws
	// as they were.
	KeepOneIn int

	sched func(*Faults) *Schedule
	rate  func(*Faults) *float64
	dist  func(*Faults) *Dist
	// thread and inject: a schedule kind's injector thread ("fault-<thread>") and action.
	thread string
	inject func(*injector, Schedule)
	// toRate and toDist: where a rate or distribution kind goes in the cluster's configuration.
	toRate func(*cluster.FaultRates) *float64
	toDist func(*cluster.Workload) *cluster.Dist
}

var (
	rateRange = Range{0.25, 2}
	schedFor  = Range{0.5, 2}
)

func schedKind(field, thread string, get func(*Faults) *Schedule, inject func(*injector, Schedule), swarmFor Range) FaultKind {
	return FaultKind{Field: field, Shape: ShapeSchedule, Swarm: rateRange, SwarmFor: swarmFor, sched: get, thread: thread, inject: inject}
}

func rateKind(field string, get func(*Faults) *float64, to func(*cluster.FaultRates) *float64) FaultKind {
	return FaultKind{Field: field, Shape: ShapeRate, Swarm: rateRange, rate: get, toRate: to}
}

// faultKinds is the table, in schema order (the order swarm draws in).
var faultKinds = []FaultKind{
	schedKind("failover", "failover", func(f *Faults) *Schedule { return &f.Failover }, (*injector).failover, Range{}),
	schedKind("step_down", "step-down", func(f *Faults) *Schedule { return &f.StepDown }, (*injector).stepDown, schedFor),
	schedKind("savepoint", "savepoint", func(f *Faults) *Schedule { return &f.Savepoint }, (*injector).savepoint, Range{}),
	schedKind("schema_change", "schema-change", func(f *Faults) *Schedule { return &f.SchemaChange }, (*injector).schemaChange, schedFor),
	schedKind("rebalance", "rebalance", func(f *Faults) *Schedule { return &f.Rebalance }, (*injector).rebalance, schedFor),
	schedKind("master_crash", "master-crash", func(f *Faults) *Schedule { return &f.MasterCrash }, (*injector).masterCrash, Range{}),
	rateKind("task_failure", func(f *Faults) *float64 { return &f.TaskFailure }, func(c *cluster.FaultRates) *float64 { return &c.AckDrop }),
	rateKind("status_retryable", func(f *Faults) *float64 { return &f.StatusRetryable }, func(c *cluster.FaultRates) *float64 { return &c.StatusRetryable }),
	{Field: "status_slow", Shape: ShapeDist, Swarm: Range{0.25, 2}, dist: func(f *Faults) *Dist { return &f.StatusSlow },
		toDist: func(w *cluster.Workload) *cluster.Dist { return &w.StatusSlow }},
	rateKind("storage_failure", func(f *Faults) *float64 { return &f.StorageFailure }, func(c *cluster.FaultRates) *float64 { return &c.StorageFail }),
	rateKind("id_failure", func(f *Faults) *float64 { return &f.IDFailure }, func(c *cluster.FaultRates) *float64 { return &c.IDFail }),
	rateKind("barrier_failure", func(f *Faults) *float64 { return &f.BarrierFailure }, func(c *cluster.FaultRates) *float64 { return &c.BarrierFail }),
	rateKind("notify_failure", func(f *Faults) *float64 { return &f.NotifyFailure }, func(c *cluster.FaultRates) *float64 { return &c.NotifyFail }),
	rateKind("trigger_throw", func(f *Faults) *float64 { return &f.TriggerThrow }, func(c *cluster.FaultRates) *float64 { return &c.TriggerThrow }),
	rateKind("task_error", func(f *Faults) *float64 { return &f.TaskError }, func(c *cluster.FaultRates) *float64 { return &c.TaskError }),
	rateKind("storage_reply_lost", func(f *Faults) *float64 { return &f.StorageReplyLost }, func(c *cluster.FaultRates) *float64 { return &c.StoreReplyLost }),
	rateKind("bit_rot", func(f *Faults) *float64 { return &f.BitRot }, func(c *cluster.FaultRates) *float64 { return &c.BitRot }),
	rateKind("savepoint_rot", func(f *Faults) *float64 { return &f.SavepointRot }, func(c *cluster.FaultRates) *float64 { return &c.SavepointRot }),
	// Last in the table: swarm draws every kind in table order, so a kind
	// appended here leaves the draws of the kinds before it as they were.
	// Swarm keeps it in one seed in eight, so that most swarm seeds run as
	// they did before it.
	redeployKind,
	// After redeploy, for the same reason, and as rare.
	boundaryPanicKind,
	// The storage faults come after redeploy, so that every kind before
	// them draws in swarm as it did; swarm keeps each in one seed in eight.
	rareRateKind("storage_read_failure", func(f *Faults) *float64 { return &f.StorageReadFailure }, func(c *cluster.FaultRates) *float64 { return &c.StorageReadFail }),
	rareRateKind("storage_delete_failure", func(f *Faults) *float64 { return &f.StorageDeleteFailure }, func(c *cluster.FaultRates) *float64 { return &c.StorageDeleteFail }),
	rareRateKind("storage_torn", func(f *Faults) *float64 { return &f.StorageTorn }, func(c *cluster.FaultRates) *float64 { return &c.StorageTorn }),
	rareRateKind("savepoint_failure", func(f *Faults) *float64 { return &f.SavepointFailure }, func(c *cluster.FaultRates) *float64 { return &c.SavepointFail }),
	// Last, for the same reason, and as rare in swarm.
	rareRateKind("notify_start_failure", func(f *Faults) *float64 { return &f.NotifyStartFailure }, func(c *cluster.FaultRates) *float64 { return &c.NotifyStartFail }),
}

// rareRateKind is rateKind kept by swarm in one seed in eight.
func rareRateKind(field string, get func(*Faults) *float64, to func(*cluster.FaultRates) *float64) FaultKind {
	k := rateKind(field, get, to)
	k.KeepOneIn = 8
	return k
}

var boundaryPanicKind = func() FaultKind {
	k := rateKind("boundary_panic", func(f *Faults) *float64 { return &f.BoundaryPanic }, func(c *cluster.FaultRates) *float64 { return &c.BoundaryPanic })
	k.KeepOneIn = 8
	return k
}()

var redeployKind = func() FaultKind {
	k := schedKind("redeploy", "redeploy", func(f *Faults) *Schedule { return &f.Redeploy }, (*injector).redeploy, Range{})
	k.KeepOneIn = 8
	return k
}()

// FaultKinds returns the table of fault kinds, in schema order.
func FaultKinds() []FaultKind { return slices.Clone(faultKinds) }

// FaultKindNamed returns the kind whose field is name.
func FaultKindNamed(name string) (FaultKind, bool) {
	i := slices.IndexFunc(faultKinds, func(k FaultKind) bool { return k.Field == name })
	if i < 0 {
		return FaultKind{}, false
	}
	return faultKinds[i], true
}

// On reports whether f switches the kind on.
func (k FaultKind) On(f *Faults) bool {
	switch k.Shape {
	case ShapeSchedule:
		return k.sched(f).On()
	case ShapeRate:
		return *k.rate(f) > 0
	default:
		return *k.dist(f) != Dist{}
	}
}

// Off switches the kind off in f.
func (k FaultKind) Off(f *Faults) {
	switch k.Shape {
	case ShapeSchedule:
		*k.sched(f) = Schedule{}
	case ShapeRate:
		*k.rate(f) = 0
	default:
		*k.dist(f) = Dist{}
	}
}

// Value is the kind's setting in f as YAML (flow style): what a scenario
// would write after `faults.<Field>:`.
func (k FaultKind) Value(f *Faults) string {
	var v any
	switch k.Shape {
	case ShapeSchedule:
		v = k.sched(f)
	case ShapeRate:
		v = *k.rate(f)
	default:
		v = k.dist(f)
	}
	b, err := yaml.MarshalWithOptions(v, yaml.Flow(true))
	if err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	return strings.TrimSpace(string(b))
}

// validate checks the kind's field of s's faults.
func (k FaultKind) validate(s *Scenario) error {
	path := "$.faults." + k.Field
	switch k.Shape {
	case ShapeSchedule:
		return s.schedule(path, *k.sched(&s.Faults))
	case ShapeRate:
		return s.prob(path, *k.rate(&s.Faults))
	default:
		return s.dist(path, *k.dist(&s.Faults))
	}
}

// scale multiplies the kind's rate by x and a schedule's `for` by y,
// rounded to three significant digits (probabilities at most 1, periods
// and durations to the millisecond, at least 1 ms).
func (k FaultKind) scale(f *Faults, x, y float64) {
	switch k.Shape {
	case ShapeSchedule:
		sc := k.sched(f)
		sc.PerHour = sig3(sc.PerHour * x)
		if sc.Every.D > 0 {
			sc.Every = Dur(scaleDur(sc.Every.D, 1/x))
		}
		if sc.For.D > 0 && k.SwarmFor != (Range{}) {
			sc.For = Dur(scaleDur(sc.For.D, y))
		}
	case ShapeRate:
		p := k.rate(f)
		*p = min(sig3(*p*x), 1)
	default:
		d := k.dist(f)
		for _, v := range []*Duration{&d.Min, &d.Max, &d.Mean} {
			if v.D > 0 {
				*v = Dur(scaleDur(v.D, x))
			}
		}
	}
}

func scaleDur(d time.Duration, x float64) time.Duration {
	return max(time.Duration(sig3(float64(d)*x)).Round(time.Millisecond), time.Millisecond)
}

// sig3 rounds to three significant digits, so that a drawn value reads
// (and replays) as written.
func sig3(v float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 3, 64), 64)
	return r
}

// FaultStep is one reduction a shrink can try on a fault kind.
type FaultStep struct {
	What  string
	Apply func(*Faults)
}

// Drop is the shrink step that switches the kind off.
func (k FaultKind) Drop() FaultStep { return FaultStep{"no " + k.Field, k.Off} }

// Thinner lists the shrink steps that keep the kind but make it rarer,
// one at a time: a rate or per_hour halved, a period doubled (while
// still below run), one fixed time dropped (of the first eight).
func (k FaultKind) Thinner(f *Faults, run time.Duration) []FaultStep {
	var out []FaultStep
	switch k.Shape {
	case ShapeRate:
		if p := *k.rate(f); p > 1e-4 {
			out = append(out, FaultStep{fmt.Sprintf("%s %v -> %v", k.Field, p, sig3(p/2)), func(g *Faults) { *k.rate(g) = sig3(p / 2) }})
		}
	case ShapeSchedule:
		sc := *k.sched(f)
		if sc.PerHour > 1e-3 {
			out = append(out, FaultStep{fmt.Sprintf("%s per_hour %v -> %v", k.Field, sc.PerHour, sig3(sc.PerHour/2)),
				func(g *Faults) { k.sched(g).PerHour = sig3(sc.PerHour / 2) }})
		}
		if sc.Every.D > 0 && 2*sc.Every.D < run {
			out = append(out, FaultStep{fmt.Sprintf("%s every %v -> %v", k.Field, sc.Every.D, 2*sc.Every.D),
				func(g *Faults) { k.sched(g).Every = Dur(2 * sc.Every.D) }})
		}
		for i := range sc.At {
			if len(sc.At) > 1 && i < 8 {
				out = append(out, FaultStep{fmt.Sprintf("%s without at %v", k.Field, sc.At[i].D),
					func(g *Faults) { at := &k.sched(g).At; *at = slices.Delete(*at, i, i+1) }})
			}
		}
	}
	return out
}

// Clone copies f deeply enough to change any kind of the copy.
func (f Faults) Clone() Faults {
	for _, k := range faultKinds {
		if k.Shape == ShapeSchedule {
			sc := k.sched(&f)
			sc.At = slices.Clone(sc.At)
		}
	}
	return f
}

// DropFrom removes every schedule's fixed times (at) at or after end:
// times a run whose fault window (run.duration) ends there never injects,
// and which validation refuses. Shrink shortens a run with it. The at
// lists are changed in place: on a copy (Clone) only.
func (f *Faults) DropFrom(end time.Duration) {
	for _, k := range faultKinds {
		if k.Shape == ShapeSchedule {
			sc := k.sched(f)
			sc.At = slices.DeleteFunc(sc.At, func(at Duration) bool { return at.D >= end })
		}
	}
}

// KindsOn lists the fields of the kinds f switches on, in table order.
func (f Faults) KindsOn() []string {
	var out []string
	for _, k := range faultKinds {
		if k.On(&f) {
			out = append(out, k.Field)
		}
	}
	return out
}

// clusterFaults sets the cluster's rates and status slowness from f.
func clusterFaults(cfg *cluster.Config, f Faults) {
	for _, k := range faultKinds {
		switch k.Shape {
		case ShapeRate:
			*k.toRate(&cfg.Faults) = *k.rate(&f)
		case ShapeDist:
			*k.toDist(&cfg.Workload) = dist(*k.dist(&f))
		}
	}
}
