package workloads

import (
	"slices"
	"testing"

	"github.com/ckptsim/ckptsim/workloads/oracle"
)

// TestLeaseCancelEffectFindsH2 pins issue 13's H2 row: watchdog-recheck=none
// alone (the expiry fence on) is found by the lease decorator's cancel
// check, and the fixed design passes the same seed.
//
//	go run ./cmd/simrun run --scenario h2-cancel-after-handoff --variant watchdog-recheck=none --seeds 10
//
// fails seeds 6 and 8 with lease-cancel-effect.
func TestLeaseCancelEffectFindsH2(t *testing.T) {
	s, err := Lookup("h2-cancel-after-handoff")
	if err != nil {
		t.Fatal(err)
	}
	const seed = 6
	bug := Run(s, Options{Seed: seed, Variants: map[string]string{"watchdog-recheck": "none"}})
	if bug.Verdict != Safety || !slices.Contains(bug.Checks, oracle.LeaseCancelEffect) {
		t.Fatalf("watchdog-recheck=none seed %d: %s %v, want %s", seed, bug.Verdict, bug.Checks, oracle.LeaseCancelEffect)
	}
	if fixed := Run(s, Options{Seed: seed}); fixed.Verdict != Pass {
		t.Fatalf("fixed design seed %d: %s %v", seed, fixed.Verdict, fixed.Violations)
	}
}
