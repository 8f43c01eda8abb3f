package campaign

import (
	"slices"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/workloads"
)

// parseEvery reads the scenario that switches every fault kind on.
func parseEvery(t *testing.T) *workloads.Scenario {
	t.Helper()
	s, err := workloads.LoadFile("../testdata/every-fault.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestShrinkCanDropEveryFaultKind: for every kind of the fault-kind table
// (task_error and rebalance were once missing), a scenario listing it has
// a candidate that switches exactly that kind off, and the candidate
// still validates; every kind but the distribution has a thinning step.
func TestShrinkCanDropEveryFaultKind(t *testing.T) {
	s := parseEvery(t)
	all := s.Faults.KindsOn()
	if len(all) != len(workloads.FaultKinds()) {
		t.Fatalf("the fixture switches on %v, want every kind", all)
	}
	cands := candidates(s, 1)
	for _, k := range workloads.FaultKinds() {
		i := slices.IndexFunc(cands, func(c candidate) bool { return c.what == "no "+k.Field })
		if i < 0 {
			t.Errorf("no candidate drops %s", k.Field)
			continue
		}
		c := cands[i].s
		want := slices.DeleteFunc(slices.Clone(all), func(n string) bool { return n == k.Field })
		if got := c.Faults.KindsOn(); !slices.Equal(got, want) {
			t.Errorf("no %s: kinds on %v, want %v", k.Field, got, want)
		}
		if _, err := workloads.Parse("c.yaml", c.YAML()); err != nil {
			t.Errorf("no %s: %v", k.Field, err)
		}
		thin := slices.ContainsFunc(cands, func(c candidate) bool { return strings.HasPrefix(c.what, k.Field+" ") })
		if thin != (k.Shape != workloads.ShapeDist) {
			t.Errorf("%s (%s): thinning step %v", k.Field, k.Shape, thin)
		}
	}
	if !slices.Equal(s.Faults.KindsOn(), all) || len(s.Faults.SchemaChange.At) != 2 {
		t.Error("a candidate changed the scenario it was made from")
	}
}

// TestShrinkShortensWithinTheFaultWindow: a shorter run drops the fixed
// fault times it would never inject (schema_change at 9s, once the run is
// 8s), which validation refuses, so every duration step still validates.
func TestShrinkShortensWithinTheFaultWindow(t *testing.T) {
	s := parseEvery(t)
	n := 0
	for _, c := range candidates(s, 1) {
		if !strings.HasPrefix(c.what, "duration ") {
			continue
		}
		n++
		if _, err := workloads.Parse("c.yaml", c.s.YAML()); err != nil {
			t.Errorf("%s: %v", c.what, err)
		}
		for _, at := range c.s.Faults.SchemaChange.At {
			if at.D >= c.s.Run.Duration.D {
				t.Errorf("%s: schema_change at %v kept", c.what, at.D)
			}
		}
	}
	if n == 0 || len(s.Faults.SchemaChange.At) != 2 {
		t.Errorf("%d duration steps; the scenario's schema_change times %v (want two, unchanged)", n, s.Faults.SchemaChange.At)
	}
}

// TestShrinkBakesTheSwarmSeed: the first swarm step replaces the swarm by
// the faults the failing seed drew, and both swarm steps keep the options
// it drew (workloads.SwarmConfig).
func TestShrinkBakesTheSwarmSeed(t *testing.T) {
	s := parseEvery(t)
	want, _ := workloads.SwarmFaults(s.Faults, 9)
	drawn, options := workloads.SwarmConfig(s, 9)
	n := 0
	for _, c := range candidates(s, 9) {
		if !strings.HasPrefix(c.what, "swarm off") {
			continue
		}
		n++
		if c.s.Scheduler.Design != options["design"] || c.s.Scheduler != drawn.Scheduler || c.s.Workload != drawn.Workload ||
			c.s.Cluster != drawn.Cluster {
			t.Errorf("%s: scheduler %+v, want the drawn %+v (%v)", c.what, c.s.Scheduler, drawn.Scheduler, options)
		}
		if strings.HasPrefix(c.what, "swarm off (the faults this seed drew)") {
			if c.s.Swarm || string((&workloads.Scenario{Faults: c.s.Faults}).YAML()) != string((&workloads.Scenario{Faults: want}).YAML()) {
				t.Errorf("baked faults %+v, want %+v", c.s.Faults, want)
			}
		}
	}
	if n != 2 {
		t.Errorf("%d swarm candidates, want 2", n)
	}
	if s.Scheduler.Design != "" {
		t.Error("a candidate changed the scenario it was made from")
	}
}
