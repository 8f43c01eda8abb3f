package workloads

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestManySeeds runs CKPTSIM_SEEDS seeds of CKPTSIM_SCENARIO (manual).
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

func TestManySeedsVariant(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("CKPTSIM_SEEDS"))
	kv := os.Getenv("CKPTSIM_VARIANT")
	if n == 0 || kv == "" {
		t.Skip("set CKPTSIM_SEEDS and CKPTSIM_VARIANT")
	}
	s, err := Lookup(os.Getenv("CKPTSIM_SCENARIO"))
	if err != nil {
		t.Fatal(err)
	}
	k, v, _ := strings.Cut(kv, "=")
	found := -1
	for seed := range uint64(n) {
		out := Run(s, Options{Seed: seed, Variants: map[string]string{k: v}})
		if out.Verdict != Pass {
			found = int(seed)
			t.Logf("seed %d: %s %.600v", seed, out.Verdict, out.Violations)
			break
		}
	}
	t.Logf("first failing seed: %d", found)
}
