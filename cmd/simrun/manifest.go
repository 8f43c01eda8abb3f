package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ckptsim/ckptsim/workloads"
	"github.com/ckptsim/ckptsim/workloads/campaign"
)

// manifest is campaign.json: what a campaign runs. --resume re-reads its
// arguments; merge checks that shards belong to one campaign.
type manifest struct {
	Args     []string   `json:"args"` // the run command's arguments
	Spans    []spanInfo `json:"scenarios"`
	Variants string     `json:"variants"`
	Profile  string     `json:"profile,omitempty"` // --profile (Variants are the --variant pairs on top of it)
	Strategy string     `json:"strategy,omitempty"`
	Buggify  string     `json:"buggify,omitempty"`
	Budget   int64      `json:"budget,omitempty"`
	// Shard is the slice of a sharded campaign ("i/n"); a merge lists the
	// shards it combined in Shards instead.
	Shard   string   `json:"shard,omitempty"`
	Shards  []string `json:"shards,omitempty"`
	Planned int      `json:"planned_seeds"`
}

// spanInfo is one scenario's seed range, with the span's own variants (a
// default-campaign entry's).
type spanInfo struct {
	Scenario string `json:"scenario"`
	Ref      string `json:"ref"`
	First    uint64 `json:"first_seed"`
	Seeds    int    `json:"seeds"`
	Variants string `json:"variants,omitempty"`
	Strategy string `json:"strategy,omitempty"` // the span's own override (CampaignEntry.Strategy)
	Buggify  string `json:"buggify,omitempty"`  // the span's own override (CampaignEntry.Buggify)
}

func (c *runCampaign) manifest(planned int) manifest {
	m := manifest{Args: c.args, Variants: workloads.VariantString(c.f.variants), Profile: c.f.profile, Strategy: string(c.f.strategy),
		Buggify: string(c.f.buggify), Budget: int64(c.f.budget), Shard: c.sh.String(), Planned: planned}
	if m.Args == nil {
		m.Args = []string{}
	}
	for _, s := range c.spans {
		info := spanInfo{Scenario: s.sc.Name, Ref: s.sc.Ref(), First: s.first, Seeds: s.n, Strategy: s.strategy, Buggify: s.buggify}
		if len(s.variants) > 0 {
			info.Variants = workloads.VariantString(s.variants)
		}
		m.Spans = append(m.Spans, info)
	}
	return m
}

func writeManifest(dir string, m manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(filepath.Join(dir, manifestFile), append(b, '\n'))
}

func readManifest(dir string) (manifest, error) {
	var m manifest
	path := filepath.Join(dir, manifestFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return m, fmt.Errorf("%v (not a results folder of simrun run --out?)", err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("%s: %v", path, err)
	}
	if len(m.Spans) == 0 {
		return m, fmt.Errorf("%s: no scenarios", path)
	}
	return m, nil
}

// sameCampaign says how two manifests differ in what they run ("" when
// they are shards of one campaign).
func sameCampaign(a, b manifest) string {
	names := func(m manifest) string {
		var s []string
		for _, sp := range m.Spans {
			v := ""
			if sp.Variants != "" {
				v = " " + sp.Variants
			}
			s = append(s, fmt.Sprintf("%s%s (seeds %d..%d)", sp.Scenario, v, sp.First, sp.First+uint64(sp.Seeds)-1))
		}
		return strings.Join(s, ", ")
	}
	switch {
	case names(a) != names(b):
		return fmt.Sprintf("scenarios differ: %s against %s", names(a), names(b))
	case a.Variants != b.Variants:
		return fmt.Sprintf("variants differ: %s against %s", a.Variants, b.Variants)
	case a.Strategy != b.Strategy:
		return fmt.Sprintf("strategies differ: %q against %q", a.Strategy, b.Strategy)
	case a.Budget != b.Budget:
		return fmt.Sprintf("step budgets differ: %d against %d", a.Budget, b.Budget)
	}
	return ""
}

// outFree checks that an --out folder holds no results that a new
// campaign, comparison or merge would replace: a manifest, seed records or
// a summary. mine is the manifest of the campaign about to run (nil for
// compare and merge); when the folder holds that same campaign (and the
// same scenario contents) the error is a *heldCampaign, which run
// continues as --resume does.
func outFree(dir string, mine *manifest) error {
	var held []string
	m, merr := readManifest(dir)
	_, statErr := os.Stat(filepath.Join(dir, manifestFile))
	switch {
	case merr == nil:
		held = append(held, fmt.Sprintf("%s: %s", manifestFile, campaignWords(m)))
	case statErr == nil:
		held = append(held, fmt.Sprintf("%s (unreadable: %v)", manifestFile, merr))
	}
	// a results.jsonl that is not there (no folder yet, or a path that
	// cannot be one) holds nothing: making the folder reports that
	if _, err := os.Stat(filepath.Join(dir, resultsFile)); err == nil {
		n := 0
		if err := campaign.ReadJournal(filepath.Join(dir, resultsFile), func(int, []byte) error { n++; return nil }); err != nil {
			held = append(held, fmt.Sprintf("%s (unreadable: %v)", resultsFile, err))
		} else {
			held = append(held, fmt.Sprintf("%s: %d seeds", resultsFile, n))
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "summary.json")); err == nil && len(held) == 0 {
		held = append(held, "summary.json")
	}
	if len(held) == 0 {
		return nil
	}
	what := strings.Join(held, "; ")
	if mine != nil && merr == nil && sameCampaign(m, *mine) == "" && m.Shard == mine.Shard && sameRefs(m, *mine) {
		return &heldCampaign{dir: dir, what: what}
	}
	return fmt.Errorf("%s holds other results (%s); refusing to replace them: choose another --out, or move that folder away first", dir, what)
}

// heldCampaign is outFree's answer when the folder holds the campaign
// about to run (same scenarios, scenario contents, seeds, variants,
// strategy, budget and shard): run continues it, as --resume does.
type heldCampaign struct{ dir, what string }

func (h *heldCampaign) Error() string {
	return fmt.Sprintf("%s already holds this campaign (%s): continue it with simrun run --resume %s, or choose another --out", h.dir, h.what, h.dir)
}

// sameRefs says whether two manifests run the same scenario contents
// (each span's Ref): a scenario file edited since is another campaign.
func sameRefs(a, b manifest) bool {
	if len(a.Spans) != len(b.Spans) {
		return false
	}
	for i := range a.Spans {
		if a.Spans[i].Ref != b.Spans[i].Ref {
			return false
		}
	}
	return true
}

// campaignWords describes a manifest's campaign in one line.
func campaignWords(m manifest) string {
	var s []string
	for _, sp := range m.Spans {
		s = append(s, fmt.Sprintf("%s seeds %d..%d", sp.Scenario, sp.First, sp.First+uint64(sp.Seeds)-1))
	}
	w := strings.Join(s, ", ") + ", variants " + m.Variants
	if m.Shard != "" {
		w += ", shard " + m.Shard
	}
	return w
}
