package campaign

import (
	"fmt"
	"maps"
	"slices"

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
	c.Variants = maps.Clone(s.Variants)
	if c.Variants == nil {
		c.Variants = map[string]string{}
	}
	c.Faults = s.Faults.Clone()
	return &c
}

// FaultKindsOn lists the fault kinds a scenario enables.
func FaultKindsOn(s *workloads.Scenario) []string { return s.Faults.KindsOn() }

// candidates lists the reductions of s, the largest first: the member's
// shape, the swarm (first replaced by what seed drew), whole fault kinds,
// the run's length, then rates.
func candidates(s *workloads.Scenario, seed uint64) []candidate {
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
		// both keep the options the seed drew (design, pools, latencies:
		// workloads.SwarmConfig), written into the reduced file
		drawn, _ := workloads.SwarmConfig(s, seed)
		add("swarm off (the faults this seed drew)", func(c *workloads.Scenario) {
			c.Scheduler, c.Cluster, c.Workload = drawn.Scheduler, drawn.Cluster, drawn.Workload
			c.Swarm = false
			c.Faults, _ = workloads.SwarmFaults(c.Faults, seed)
		})
		add("swarm off (every listed fault kind on)", func(c *workloads.Scenario) {
			c.Scheduler, c.Cluster, c.Workload = drawn.Scheduler, drawn.Cluster, drawn.Workload
			c.Swarm = false
		})
	}
	out = append(out, kindCandidates(s)...)
	for _, d := range shorter(s.Run.Duration.D) {
		add(fmt.Sprintf("duration %v -> %v", s.Run.Duration.D, d), func(c *workloads.Scenario) {
			c.Run.Duration = workloads.Dur(d)
			c.Faults.DropFrom(d) // the fixed times the shorter run would never inject
		})
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

// kindCandidates turns off one fault kind each (workloads.FaultKinds).
func kindCandidates(s *workloads.Scenario) []candidate {
	var out []candidate
	for _, k := range workloads.FaultKinds() {
		if k.On(&s.Faults) {
			out = append(out, step(s, k.Drop()))
		}
	}
	return out
}

// rateCandidates makes one fault kind rarer each: rates halved, schedules
// thinned (FaultKind.Thinner).
func rateCandidates(s *workloads.Scenario) []candidate {
	var out []candidate
	for _, k := range workloads.FaultKinds() {
		for _, st := range k.Thinner(&s.Faults, s.Run.Duration.D) {
			out = append(out, step(s, st))
		}
	}
	return out
}

// step applies a fault step to a copy of s.
func step(s *workloads.Scenario, st workloads.FaultStep) candidate {
	c := clone(s)
	st.Apply(&c.Faults)
	return candidate{st.What, c}
}
