package main

import (
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/ckptsim/ckptsim/workloads"
	"github.com/ckptsim/ckptsim/workloads/campaign"
)

// spreadRow is one design and strategy of a spread: per seed, the p99 and
// the worst scheduling delay (due to body start), and the seeds in which
// one of the row's checks fired.
type spreadRow struct {
	design, strategy string
	p99, worst       []time.Duration
	samples, fired   int
}

// spread prints, for catalog row id, the spread over seeds of the
// scheduling delay under the bug variant and under the fixed design, for
// each strategy (the seeds of the catalog's first campaign of each), and
// the scenario's checks.max_delay: what a row whose check is a delay
// bound sets that bound from.
func spread(w io.Writer, cfg config, id string, seeds int) error {
	h, ok := cfg.lookup(id)
	if !ok || h.Scenario == "" {
		return fmt.Errorf("-spread %s: no row with a scenario of that id in workloads/hazards/catalog.yaml", id)
	}
	s, err := workloads.Lookup(h.Scenario)
	if err != nil {
		return err
	}
	var rows []spreadRow
	for si, strategy := range strategies {
		for _, v := range []map[string]string{h.Bug, h.Fixed} {
			rows = append(rows, spreadOf(cfg, h, s, v, strategy, seedBase(0, si), seeds))
		}
	}
	bound := "not set"
	if d := s.Checks.MaxDelay.D; d > 0 {
		bound = d.String()
	}
	fmt.Fprintf(w, "%s %s: scheduling delay (due to body start) per seed, %d seeds per design and strategy; checks.max_delay %s\n\n",
		h.ID, h.Scenario, seeds, bound)
	fmt.Fprintf(w, "| design | strategy | seeds | delays | p99 min / median / max | worst min / median / max | %v fired |\n|---|---|---|---|---|---|---|\n", h.Checks)
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %s | %d | %d | %s | %s | %d |\n", r.design, r.strategy, len(r.p99), r.samples, minMedMax(r.p99), minMedMax(r.worst), r.fired)
	}
	for _, r := range rows {
		if r.samples == 0 {
			return fmt.Errorf("%s %s: no scheduling delay recorded, so no spread to set a bound from", r.design, r.strategy)
		}
	}
	return nil
}

func spreadOf(cfg config, h workloads.Hazard, s *workloads.Scenario, v map[string]string, strategy string, base uint64, seeds int) spreadRow {
	outs := campaign.Map(seeds, max(cfg.parallel, 1), func(i int) workloads.Outcome {
		return workloads.Run(s, workloads.Options{Seed: base + uint64(i), Variants: v, Strategy: strategy})
	})
	r := spreadRow{design: variantName(v), strategy: strategy}
	for _, out := range outs {
		d := out.Latency.SchedDelay
		r.samples += len(d)
		r.p99 = append(r.p99, nearestRank(d, 99))
		r.worst = append(r.worst, nearestRank(d, 100))
		if _, hit := detects(h, out); hit {
			r.fired++
		}
	}
	return r
}

func variantName(v map[string]string) string {
	if len(v) == 0 {
		return "(defaults)"
	}
	return workloads.VariantString(v)
}

// nearestRank is the q-th percentile of ds by nearest rank (as the
// latency-bound check takes its p99); 0 when empty.
func nearestRank(ds []time.Duration, q int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(ds))
	return s[min(max((len(s)*q+99)/100-1, 0), len(s)-1)]
}

// minMedMax is "min / median / max" of ds (the lower median).
func minMedMax(ds []time.Duration) string {
	if len(ds) == 0 {
		return "-"
	}
	s := slices.Sorted(slices.Values(ds))
	r := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
	return fmt.Sprintf("%v / %v / %v", r(s[0]), r(s[(len(s)-1)/2]), r(s[len(s)-1]))
}
