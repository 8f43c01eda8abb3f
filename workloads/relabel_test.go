package workloads

import (
	"slices"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/core/coord"
	"github.com/ckptsim/ckptsim/workloads/cluster"
	"github.com/ckptsim/ckptsim/workloads/oracle"
)

// runMod runs one seed of a built-in scenario with variants, its cluster
// configuration changed by mod.
func runMod(t *testing.T, name string, seed uint64, variants map[string]string, mod func(*cluster.Config)) Outcome {
	t.Helper()
	s, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	v := s.effectiveVariants(variants)
	out := Outcome{Scenario: s.Name, Seed: seed, Variants: VariantString(v)}
	r := &runner{s: s, opt: Options{Seed: seed}, faults: s.Faults}
	if r.ccfg, err = s.clusterConfig(v, s.Faults); err != nil {
		t.Fatal(err)
	}
	if mod != nil {
		mod(&r.ccfg)
	}
	return r.run(out)
}

// relabel is the relabelling mutant: an unfenced expiry reports the
// generation current when it runs as the one that armed it.
func relabel(c *cluster.Config) {
	c.Coord.Hooks.Relabel = func(_, current uint64) uint64 { return current }
}

// rewriteLabels is a coordinator decorator that rewrites every event's
// generation labels so that every effect looks fenced and every
// generation looks like the first.
func rewriteLabels(c *cluster.Config) {
	c.RewriteEvent = func(ev coord.Event) coord.Event {
		ev.ArmedGen = ev.Gen
		if ev.Kind != coord.EvGeneration && ev.Kind != coord.EvRestored {
			ev.Gen, ev.ArmedGen = 1, 1
		}
		return ev
	}
}

// boundaryFindings are the findings of the generation checks, which read
// no coordinator label.
func boundaryFindings(o Outcome) []oracle.Finding {
	var out []oracle.Finding
	for _, f := range o.Findings {
		if f.Check == oracle.GenerationJustified || f.Check == oracle.OneFailurePerGeneration {
			out = append(out, f)
		}
	}
	return out
}

// TestRelabellingStillFails is issue 13's must-show: the relabelling
// mutant and a decorator that rewrites every event's generation labels
// still fail h1-stale-expiry with expiry-fence=none and h9-deferred-fence
// with deferred-fence=none, by the boundary check generation-justified.
// Where the mutant changes no behaviour (the decorator everywhere, the
// relabelling with expiry-fence=none, where the label decides nothing) the
// generation findings are exactly those of the unchanged code on the same
// seeds: no verdict reads a label. On h9 (expiry fence on) the relabelling
// also defeats the expiry's fence, so it changes the run: there every seed
// that failed must still fail a generation check. The fixed design passes
// with the decorator.
func TestRelabellingStillFails(t *testing.T) {
	cases := []struct {
		scenario string
		variants map[string]string
		seeds    []uint64
		mods     map[string]func(*cluster.Config)
	}{
		{"h1-stale-expiry", map[string]string{"expiry-fence": "none"}, []uint64{4, 5, 3, 6},
			map[string]func(*cluster.Config){"relabel": relabel, "rewrite": rewriteLabels,
				"both": func(c *cluster.Config) { relabel(c); rewriteLabels(c) }}},
		{"h9-deferred-fence", map[string]string{"deferred-fence": "none"}, []uint64{0, 1, 2, 3},
			map[string]func(*cluster.Config){"relabel (changes the run)": relabel, "rewrite": rewriteLabels}},
	}
	if testing.Short() {
		for i := range cases {
			cases[i].seeds = cases[i].seeds[:2]
		}
	}
	for _, tc := range cases {
		detected := 0
		for _, seed := range tc.seeds {
			base := runMod(t, tc.scenario, seed, tc.variants, nil)
			want := boundaryFindings(base)
			if len(want) > 0 {
				detected++
				if !slices.Contains(base.Checks, oracle.GenerationJustified) && !slices.Contains(base.Checks, oracle.OneFailurePerGeneration) {
					t.Fatalf("%s seed %d: checks %v", tc.scenario, seed, base.Checks)
				}
			}
			for name, mod := range tc.mods {
				o := runMod(t, tc.scenario, seed, tc.variants, mod)
				got := boundaryFindings(o)
				if strings.Contains(name, "changes the run") {
					if len(want) > 0 && len(got) == 0 {
						t.Errorf("%s seed %d %s: no generation check fired: %v", tc.scenario, seed, name, o.Checks)
					}
				} else if !slices.Equal(got, want) {
					t.Errorf("%s seed %d %s: generation findings changed with the labels:\n got %v\nwant %v", tc.scenario, seed, name, got, want)
				}
				if len(want) > 0 && o.Verdict != Safety {
					t.Errorf("%s seed %d %s: verdict %s, want safety", tc.scenario, seed, name, o.Verdict)
				}
			}
		}
		if detected == 0 {
			t.Errorf("%s %v: the generation checks found nothing in seeds %v", tc.scenario, tc.variants, tc.seeds)
		}
		t.Logf("%s %v: generation checks fired on %d of %d seeds, unchanged by %d label rewrites", tc.scenario, tc.variants,
			detected, len(tc.seeds), len(tc.mods))
	}
}

// TestRewrittenLabelsFixedDesignPasses: the decorator alone makes no
// boundary check fire on the fixed design.
func TestRewrittenLabelsFixedDesignPasses(t *testing.T) {
	for _, sc := range []string{"h1-stale-expiry", "h9-deferred-fence"} {
		for seed := range uint64(2) {
			o := runMod(t, sc, seed, nil, rewriteLabels)
			if got := boundaryFindings(o); len(got) > 0 {
				t.Errorf("%s seed %d: %v", sc, seed, got)
			}
		}
	}
}
