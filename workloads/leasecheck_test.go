package workloads

import (
	"slices"
	"testing"

	"github.com/ckptsim/ckptsim/workloads/oracle"
)

// TestLeaseCancelEffectFindsH2 pins issue 13's H2 row: watchdog-recheck=none
// alone (the expiry fence on) is found by the lease decorator's cancel
// check within the first 40 seeds, and the fixed design passes the seed
// that found it.
//
//	go run ./cmd/simrun run --scenario h2-cancel-after-handoff --variant watchdog-recheck=none --seeds 40
//
// failed seeds 8 and 16 with lease-cancel-effect (and nothing else) when
// this was written.
func TestLeaseCancelEffectFindsH2(t *testing.T) {
	s, err := Lookup("h2-cancel-after-handoff")
	if err != nil {
		t.Fatal(err)
	}
	for seed := range uint64(40) {
		bug := Run(s, Options{Seed: seed, Variants: map[string]string{"watchdog-recheck": "none"}})
		if bug.Verdict == Pass {
			continue
		}
		if bug.Verdict != Safety || !slices.Contains(bug.Checks, oracle.LeaseCancelEffect) {
			t.Fatalf("watchdog-recheck=none seed %d: %s %v, want %s", seed, bug.Verdict, bug.Checks, oracle.LeaseCancelEffect)
		}
		if fixed := Run(s, Options{Seed: seed}); fixed.Verdict != Pass {
			t.Fatalf("fixed design seed %d: %s %v", seed, fixed.Verdict, fixed.Violations)
		}
		return
	}
	t.Fatal("watchdog-recheck=none: no seed of 40 failed")
}
