package campaign

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/ckptsim/ckptsim/workloads"
)

// candidate is one reduction of a scenario.
type candidate struct {
	what string
	s    *workloads.Scenario
}

// clone copies a scenario deeply enough to mutate it.
func clone(s *workloads.Scenario) *workloads.Scenario {
	c := *s
	c.Variants = make(map[string]string, len(s.Variants))
	for k, v := range s.Variants {
		c.Variants[k] = v
	}
	for _, k := range scheduleKinds {
		sc := k.get(&c.Faults)
		sc.At = slices.Clone(sc.At)
	}
	return &c
}

// scheduleKinds and rateKinds are the fault kinds a shrink can turn off.
var scheduleKinds = []struct {
	name string
	get  func(*workloads.Faults) *workloads.Schedule
}{
	{"failover", func(f *workloads.Faults) *workloads.Schedule { return &f.Failover }},
	{"step_down", func(f *workloads.Faults) *workloads.Schedule { return &f.StepDown }},
	{"savepoint", func(f *workloads.Faults) *workloads.Schedule { return &f.Savepoint }},
	{"schema_change", func(f *workloads.Faults) *workloads.Schedule { return &f.SchemaChange }},
	{"rebalance", func(f *workloads.Faults) *workloads.Schedule { return &f.Rebalance }},
	{"master_crash", func(f *workloads.Faults) *workloads.Schedule { return &f.MasterCrash }},
}

var rateKinds = []struct {
	name string
	get  func(*workloads.Faults) *float64
}{
	{"task_failure", func(f *workloads.Faults) *float64 { return &f.TaskFailure }},
	{"status_retryable", func(f *workloads.Faults) *float64 { return &f.StatusRetryable }},
	{"storage_failure", func(f *workloads.Faults) *float64 { return &f.StorageFailure }},
	{"id_failure", func(f *workloads.Faults) *float64 { return &f.IDFailure }},
	{"barrier_failure", func(f *workloads.Faults) *float64 { return &f.BarrierFailure }},
	{"notify_failure", func(f *workloads.Faults) *float64 { return &f.NotifyFailure }},
	{"trigger_throw", func(f *workloads.Faults) *float64 { return &f.TriggerThrow }},
	{"task_error", func(f *workloads.Faults) *float64 { return &f.TaskError }},
}

func scheduleOn(s workloads.Schedule) bool { return len(s.At) > 0 || s.Every.D > 0 || s.PerHour > 0 }

// FaultKindsOn lists the fault kinds a scenario enables.
func FaultKindsOn(s *workloads.Scenario) []string {
	var out []string
	f := s.Faults
	for _, k := range scheduleKinds {
		if scheduleOn(*k.get(&f)) {
			out = append(out, k.name)
		}
	}
	for _, k := range rateKinds {
		if *k.get(&f) > 0 {
			out = append(out, k.name)
		}
	}
	if f.StatusSlow != (workloads.Dist{}) {
		out = append(out, "status_slow")
	}
	return out
}

// candidates lists the reductions of s, the largest first: the member's
// shape, the swarm, whole fault kinds, the run's length, then rates.
func candidates(s *workloads.Scenario) []candidate {
	var out []candidate
	add := func(what string, mut func(c *workloads.Scenario)) {
		c := clone(s)
		mut(c)
		out = append(out, candidate{what, c})
	}
	for _, k := range []struct {
		name string
		get  func(*workloads.Scenario) *int
	}{
		{"jobs", func(c *workloads.Scenario) *int { return &c.Cluster.Jobs }},
		{"pipelines", func(c *workloads.Scenario) *int { return &c.Cluster.Pipelines }},
		{"tasks", func(c *workloads.Scenario) *int { return &c.Cluster.Tasks }},
	} {
		n := *k.get(s)
		for _, v := range fewer(n) {
			add(fmt.Sprintf("%s %d -> %d", k.name, n, v), func(c *workloads.Scenario) { *k.get(c) = v })
		}
	}
	if s.Swarm {
		add("swarm off (every listed fault kind on)", func(c *workloads.Scenario) { c.Swarm = false })
	}
	out = append(out, kindCandidates(s)...)
	for _, d := range shorter(s.Run.Duration.D) {
		add(fmt.Sprintf("duration %v -> %v", s.Run.Duration.D, d), func(c *workloads.Scenario) { c.Run.Duration = workloads.Dur(d) })
	}
	return append(out, rateCandidates(s)...)
}

// fewer lists smaller counts worth trying: 1, half, one less.
func fewer(n int) []int {
	var out []int
	for _, v := range []int{1, n / 2, n - 1} {
		if v >= 1 && v < n && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// kindCandidates turns off one fault kind each.
func kindCandidates(s *workloads.Scenario) []candidate {
	var out []candidate
	for _, k := range scheduleKinds {
		if scheduleOn(*k.get(&s.Faults)) {
			c := clone(s)
			*k.get(&c.Faults) = workloads.Schedule{}
			out = append(out, candidate{"no " + k.name, c})
		}
	}
	for _, k := range rateKinds {
		if *k.get(&s.Faults) > 0 {
			c := clone(s)
			*k.get(&c.Faults) = 0
			out = append(out, candidate{"no " + k.name, c})
		}
	}
	if s.Faults.StatusSlow != (workloads.Dist{}) {
		c := clone(s)
		c.Faults.StatusSlow = workloads.Dist{}
		out = append(out, candidate{"no status_slow", c})
	}
	return out
}

// rateCandidates halves rates and thins schedules, one at a time.
func rateCandidates(s *workloads.Scenario) []candidate {
	var out []candidate
	for _, k := range rateKinds {
		if p := *k.get(&s.Faults); p > 1e-4 {
			c := clone(s)
			*k.get(&c.Faults) = half(p)
			out = append(out, candidate{fmt.Sprintf("%s %v -> %v", k.name, p, half(p)), c})
		}
	}
	for _, k := range scheduleKinds {
		sc := *k.get(&s.Faults)
		if sc.PerHour > 1e-3 {
			c := clone(s)
			k.get(&c.Faults).PerHour = half(sc.PerHour)
			out = append(out, candidate{fmt.Sprintf("%s per_hour %v -> %v", k.name, sc.PerHour, half(sc.PerHour)), c})
		}
		if sc.Every.D > 0 && 2*sc.Every.D < s.Run.Duration.D {
			c := clone(s)
			k.get(&c.Faults).Every = workloads.Dur(2 * sc.Every.D)
			out = append(out, candidate{fmt.Sprintf("%s every %v -> %v", k.name, sc.Every.D, 2*sc.Every.D), c})
		}
		for i := range sc.At {
			if len(sc.At) > 1 && i < 8 {
				c := clone(s)
				at := &k.get(&c.Faults).At
				*at = slices.Delete(*at, i, i+1)
				out = append(out, candidate{fmt.Sprintf("%s without at %v", k.name, sc.At[i].D), c})
			}
		}
	}
	return out
}

// half halves a rate, to three significant digits.
func half(p float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(p/2, 'g', 3, 64), 64)
	return v
}
