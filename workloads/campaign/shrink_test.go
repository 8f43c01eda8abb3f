package campaign

import (
	"testing"

	"github.com/ckptsim/ckptsim/workloads"
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
