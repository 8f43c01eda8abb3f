package campaign

import (
	"testing"

	"github.com/ckptsim/ckptsim/workloads"
	"github.com/ckptsim/ckptsim/workloads/oracle"
)

// TestShrinkKeepsVerdictAndIsDeterministic shrinks H4's failing seed
// twice: each step keeps the verdict class, the result is no larger than
// the scenario, and both shrinks give the same scenario.
func TestShrinkKeepsVerdictAndIsDeterministic(t *testing.T) {
	s, err := workloads.Lookup("h4-trigger-silent")
	if err != nil {
		t.Fatal(err)
	}
	shrink := func() ShrinkResult {
		res, err := Shrink(s, ShrinkConfig{Seeds: 5, Variants: map[string]string{"trigger-errors": "silent"}, MaxRuns: 8,
			Run: func(sc *workloads.Scenario, seed uint64) workloads.Outcome {
				return workloads.Run(sc, workloads.Options{Seed: seed})
			}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a, b := shrink(), shrink()
	if !a.Found || a.Target != workloads.Liveness || a.Outcome.Verdict != a.Target {
		t.Fatalf("found %v, target %s, shrunk verdict %s", a.Found, a.Target, a.Outcome.Verdict)
	}
	if a.Scenario.Variants["trigger-errors"] != "silent" || a.Scenario.Cluster.Pipelines > s.Cluster.Pipelines {
		t.Errorf("shrunk scenario: variants %v, pipelines %d (from %d)", a.Scenario.Variants, a.Scenario.Cluster.Pipelines, s.Cluster.Pipelines)
	}
	if string(a.Scenario.YAML()) != string(b.Scenario.YAML()) || a.Runs != b.Runs || a.Seed != b.Seed {
		t.Errorf("two shrinks differ: %d runs seed %d, %d runs seed %d", a.Runs, a.Seed, b.Runs, b.Seed)
	}
}

// TestShrinkKeepsNamedCheck: with Checks set, a seed or candidate that
// fails with another check (same verdict class) is not the same failure:
// the search skips such a seed and no reduction that loses the named check
// is kept. The same fake runs without Checks shrink the pipelines.
func TestShrinkKeepsNamedCheck(t *testing.T) {
	s, err := workloads.Lookup("smoke")
	if err != nil {
		t.Fatal(err)
	}
	pipes := s.Cluster.Pipelines
	if pipes < 2 {
		t.Fatalf("smoke has %d pipelines; the test needs 2 or more", pipes)
	}
	run := func(sc *workloads.Scenario, seed uint64) workloads.Outcome {
		o := workloads.Outcome{Seed: seed, Verdict: workloads.Safety, Checks: []string{oracle.IncreasingIDs}}
		if seed == 1 && sc.Cluster.Pipelines == pipes {
			o.Checks = []string{oracle.GenerationJustified} // fewer pipelines lose it
		}
		return o
	}
	named, err := Shrink(s, ShrinkConfig{Seeds: 3, Checks: []string{oracle.GenerationJustified}, MaxRuns: 30, Run: run})
	if err != nil {
		t.Fatal(err)
	}
	if !named.Found || named.Seed != 1 || named.Scenario.Cluster.Pipelines != pipes {
		t.Errorf("with Checks: found %v, seed %d, pipelines %d; want seed 1 with %d pipelines", named.Found, named.Seed,
			named.Scenario.Cluster.Pipelines, pipes)
	}
	any, err := Shrink(s, ShrinkConfig{Seeds: 3, MaxRuns: 30, Run: run})
	if err != nil {
		t.Fatal(err)
	}
	if !any.Found || any.Seed != 0 || any.Scenario.Cluster.Pipelines >= pipes {
		t.Errorf("without Checks: found %v, seed %d, pipelines %d; want seed 0 with fewer than %d pipelines", any.Found, any.Seed,
			any.Scenario.Cluster.Pipelines, pipes)
	}
}
