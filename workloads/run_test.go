package workloads

import (
	"testing"
)

func TestSmokeScenarioPasses(t *testing.T) {
	s, err := Lookup("smoke")
	if err != nil {
		t.Fatal(err)
	}
	for seed := range uint64(5) {
		out := Run(s, Options{Seed: seed})
		if out.Verdict != Pass {
			t.Fatalf("seed %d: %s %v", seed, out.Verdict, out.Violations)
		}
		t.Logf("seed %d: hash %s steps %d wall %dms", seed, out.TraceHash, out.Steps, out.WallNs/1e6)
	}
}
