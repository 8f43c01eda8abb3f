package main

import (
	"testing"

	"github.com/ckptsim/ckptsim/workloads"
	"github.com/ckptsim/ckptsim/workloads/campaign"
)

// TestH11NeedsKeepCoordinators holds the H11 row's claim that its
// scenario needs keep_coordinators. Without it every step-down ends in a
// restore of every job: the coordinator executor still rejects expiries
// (the fixed design's inline fallback runs), but with expiry-fallback=drop
// the restore cleans the checkpoint whose expiry was dropped, so the
// row's check never fires; with it (the scenario as committed) the same
// seeds find the hazard. If the drop is ever found without
// keep_coordinators, take it out of h11-step-down.yaml and the row's note.
func TestH11NeedsKeepCoordinators(t *testing.T) {
	if testing.Short() {
		t.Skip("runs seeds")
	}
	const seeds = 20
	var h workloads.Hazard
	for _, c := range mustCatalog(t) {
		if c.ID == "H11" {
			h = c
		}
	}
	keep, err := workloads.Lookup(h.Scenario)
	if err != nil {
		t.Fatal(err)
	}
	if !keep.Faults.StepDown.KeepCoordinators {
		t.Fatalf("%s no longer keeps the coordinators: change the H11 row's note and this test", h.Scenario)
	}
	noKeep := *keep
	noKeep.Faults.StepDown.KeepCoordinators = false
	type tally struct{ found, failed, fallbacks, seedsWithFallback int }
	count := func(s *workloads.Scenario, variants map[string]string, strategy string) (n tally) {
		outs := campaign.Map(seeds, 2, func(i int) workloads.Outcome {
			return workloads.Run(s, workloads.Options{Seed: seedBase(0, indexOf(strategy)) + uint64(i), Variants: variants, Strategy: strategy})
		})
		for _, out := range outs {
			if _, hit := detects(h, out); hit {
				n.found++
			}
			if out.Verdict != workloads.Pass {
				n.failed++
			}
			n.fallbacks += out.Counts["expiry-fallback"]
			if out.Counts["expiry-fallback"] > 0 {
				n.seedsWithFallback++
			}
		}
		return n
	}
	for _, strategy := range strategies {
		fixed := count(&noKeep, h.Fixed, strategy)
		t.Logf("%s without keep_coordinators, fixed design: %d of %d seeds fail; %d expiries rejected and run inline, in %d seeds",
			strategy, fixed.failed, seeds, fixed.fallbacks, fixed.seedsWithFallback)
		if fixed.seedsWithFallback == 0 || fixed.failed > 0 {
			t.Errorf("%s: without keep_coordinators the executor should still reject expiries and the fixed design pass", strategy)
		}
		drop := count(&noKeep, h.Bug, strategy)
		t.Logf("%s without keep_coordinators, %s: found in %d of %d seeds (%d fail)", strategy, variantName(h.Bug), drop.found, seeds, drop.failed)
		if drop.found > 0 {
			t.Errorf("%s: H11 found without keep_coordinators in %d seeds: drop it from %s and the row's note", strategy, drop.found, h.Scenario)
		}
		with := count(keep, h.Bug, strategy)
		t.Logf("%s with keep_coordinators, %s: found in %d of %d seeds", strategy, variantName(h.Bug), with.found, seeds)
		if with.found == 0 {
			t.Errorf("%s: H11 not found even with keep_coordinators: the control is broken", strategy)
		}
	}
}

func indexOf(strategy string) int {
	for i, s := range strategies {
		if s == strategy {
			return i
		}
	}
	return 0
}
