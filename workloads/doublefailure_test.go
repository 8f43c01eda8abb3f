package workloads

import (
	"slices"
	"testing"

	"github.com/ckptsim/ckptsim/workloads/oracle"
)

// TestDoubleFailure: the double-failure scenario reaches its window (a
// failure beginning while another failure of the same pipeline is in
// progress) and the fixed design passes it; with the fences removed the
// generation checks fail it.
func TestDoubleFailure(t *testing.T) {
	for seed := range uint64(2) {
		o := runMod(t, "double-failure", seed, nil, nil)
		if o.Verdict != Pass {
			t.Fatalf("seed %d: %s %v", seed, o.Verdict, o.Violations)
		}
		if o.Windows[WindowRacingFailures] == 0 {
			t.Fatalf("seed %d: no two failures raced in one pipeline: %v", seed, o.Windows)
		}
		t.Logf("seed %d: %d racing failures", seed, o.Windows[WindowRacingFailures])
	}
	found := 0
	for seed := range uint64(3) {
		o := runMod(t, "double-failure", seed, map[string]string{"deferred-fence": "none", "expiry-fence": "none"}, nil)
		if slices.Contains(o.Checks, oracle.GenerationJustified) || slices.Contains(o.Checks, oracle.OneFailurePerGeneration) {
			found++
		}
	}
	if found == 0 {
		t.Fatal("without fences no seed of 3 failed a generation check")
	}
}
