package workloads

import (
	"os"
	"strconv"
	"testing"
)

// TestManySeeds runs CKPTSIM_SEEDS seeds of CKPTSIM_SCENARIO and fails on
// any seed that does not pass (a manual soak; simrun run does the same).
func TestManySeeds(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("CKPTSIM_SEEDS"))
	if n == 0 {
		t.Skip("set CKPTSIM_SEEDS")
	}
	s, err := Lookup(os.Getenv("CKPTSIM_SCENARIO"))
	if err != nil {
		t.Fatal(err)
	}
	bad := 0
	for seed := range uint64(n) {
		out := Run(s, Options{Seed: seed})
		if out.Verdict != Pass {
			bad++
			if bad < 4 {
				t.Errorf("seed %d: %s %.400v", seed, out.Verdict, out.Violations)
			}
		}
	}
	t.Logf("%d/%d failed", bad, n)
}
