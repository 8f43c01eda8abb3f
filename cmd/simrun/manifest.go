package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ckptsim/ckptsim/workloads"
)

// manifest is campaign.json: what a campaign runs. --resume re-reads its
// arguments; merge checks that shards belong to one campaign.
type manifest struct {
	Args     []string   `json:"args"` // the run command's arguments
	Spans    []spanInfo `json:"scenarios"`
	Variants string     `json:"variants"`
	Profile  string     `json:"profile,omitempty"` // --profile (Variants are the --variant pairs on top of it)
	Strategy string     `json:"strategy,omitempty"`
	Budget   int64      `json:"budget,omitempty"`
	// Shard is the slice of a sharded campaign ("i/n"); a merge lists the
	// shards it combined in Shards instead.
	Shard   string   `json:"shard,omitempty"`
	Shards  []string `json:"shards,omitempty"`
	Planned int      `json:"planned_seeds"`
}

// spanInfo is one scenario's seed range.
type spanInfo struct {
	Scenario string `json:"scenario"`
	Ref      string `json:"ref"`
	First    uint64 `json:"first_seed"`
	Seeds    int    `json:"seeds"`
}

func (c *runCampaign) manifest(planned int) manifest {
	m := manifest{Args: c.args, Variants: workloads.VariantString(c.f.variants), Profile: c.f.profile, Strategy: string(c.f.strategy),
		Budget: int64(c.f.budget), Shard: c.sh.String(), Planned: planned}
	if m.Args == nil {
		m.Args = []string{}
	}
	for _, s := range c.spans {
		m.Spans = append(m.Spans, spanInfo{Scenario: s.sc.Name, Ref: s.sc.Ref(), First: s.first, Seeds: s.n})
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
			s = append(s, fmt.Sprintf("%s (seeds %d..%d)", sp.Scenario, sp.First, sp.First+uint64(sp.Seeds)-1))
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
