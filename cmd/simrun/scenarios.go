package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/ckptsim/ckptsim/workloads"
)

// lookup resolves a scenario name or file; errors name the file, line,
// column and field.
func lookup(ref string) (*workloads.Scenario, error) {
	s, err := workloads.Lookup(ref)
	if err != nil {
		return nil, describe(err)
	}
	return s, nil
}

// lookupAll resolves --scenario values into spans (each with its share
// of seeds, seedsFor), or the default campaign's entries when none is
// given (each with its seeds and variants); it returns every error, not
// only the first. The spans' first seed is left to the caller.
func lookupAll(refs []string) ([]span, error) {
	var entries []workloads.CampaignEntry
	campaign := len(refs) == 0
	if campaign {
		entries = workloads.DefaultCampaign
	}
	for _, r := range refs {
		entries = append(entries, workloads.CampaignEntry{Name: r})
	}
	var out []span
	var errs []error
	for _, e := range entries {
		s, err := lookup(e.Name)
		if err != nil {
			if campaign {
				err = fmt.Errorf("default campaign (workloads.DefaultCampaign): %w", err)
			}
			errs = append(errs, err)
			continue
		}
		out = append(out, span{sc: s, n: cmpOr(e.Seeds, seedsFor(s.Name)), variants: e.Variants, strategy: e.Strategy, buggify: e.Buggify})
	}
	return out, errors.Join(errs...)
}

// pairs reads a variant string ("k=v,k=v", "fixed") back into its map.
func pairs(s string) map[string]string {
	m := map[string]string{}
	for _, p := range strings.Split(s, ",") {
		if k, v, ok := strings.Cut(p, "="); ok {
			m[k] = v
		}
	}
	return m
}

// spanID is what tells a campaign's spans apart: the scenario, the
// span's own variants, and the strategy and BUGGIFY overrides its seeds
// run with.
type spanID struct {
	scenario          string
	variants          map[string]string
	strategy, buggify string
}

// spanOf returns the place of a seed's record in a campaign of n spans
// (-1: none): among the spans of its scenario whose strategy and BUGGIFY
// overrides it ran with, the one with the most variants of its own that
// the seed ran with (a default-campaign entry with design=per-pipeline
// holds the seeds that ran per-pipeline, the entry without variants the
// others). at returns a span's identity.
func spanOf(n int, at func(i int) spanID, rec record) int {
	got := pairs(rec.Variants)
	best, most := -1, -1
	for i := range n {
		id := at(i)
		if id.scenario != rec.Scenario || id.strategy != rec.Strategy || id.buggify != rec.BuggifyFlag || len(id.variants) <= most {
			continue
		}
		all := true
		for k, v := range id.variants {
			all = all && got[k] == v
		}
		if all {
			best, most = i, len(id.variants)
		}
	}
	return best
}

var wrongType = regexp.MustCompile(`^cannot unmarshal (\S+) into Go (?:struct field|value) \S* ?of type (\S+)`)

// describe fills in what a workloads.Error leaves out: the field of a
// wrong-typed value (go-yaml names the Go struct instead), with the
// message in scenario words.
func describe(err error) error {
	var e *workloads.Error
	if !errors.As(err, &e) || e.Field != "" || e.Line == 0 {
		return err
	}
	c := *e
	if m := wrongType.FindStringSubmatch(c.Msg); m != nil {
		c.Msg = fmt.Sprintf("wrong type: got %s, want %s", m[1], m[2])
		if src, rerr := os.ReadFile(c.File); rerr == nil {
			c.Field = fieldAtLine(string(src), c.Line)
		}
	}
	return &c
}

// fieldAtLine returns the dotted path of the block-mapping key on a line
// ("cluster.pipelines"), following indentation upwards.
func fieldAtLine(src string, line int) string {
	lines := strings.Split(src, "\n")
	if line < 1 || line > len(lines) {
		return ""
	}
	var path []string
	indent := len(lines[line-1]) + 1
	for i := line - 1; i >= 0 && indent > 0; i-- {
		l := lines[i]
		t := strings.TrimLeft(l, " ")
		in := len(l) - len(t)
		key, _, ok := strings.Cut(t, ":")
		if !ok || in >= indent || t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "-") {
			continue
		}
		path = append([]string{strings.TrimSpace(key)}, path...)
		indent = in
	}
	return strings.Join(path, ".")
}

// isScenarioError reports whether err is about scenario input (exit 64).
func isScenarioError(err error) bool { return errors.Is(err, workloads.ErrScenario) }

// fitParallel lowers parallel so that the seeds running at once fit the
// machine's memory (workloads.MachineMemory) by their estimate, saying so
// on stderr; one seed always runs.
func fitParallel(parallel int, scs []*workloads.Scenario, stderr io.Writer) int {
	limit := workloads.MachineMemory
	var est int64
	var name string
	for _, s := range scs {
		if e := s.MemoryEstimate(); e > est {
			est, name = e, s.Name
		}
	}
	if limit <= 0 || est <= 0 || int64(parallel)*est <= limit {
		return parallel
	}
	n := int(max(limit/est, 1))
	if est > limit {
		// only run.max_memory lets such a scenario through validation
		fmt.Fprintf(stderr, "simrun: a seed of %s needs an estimated %s, more than the machine's %s (run.max_memory allows it): "+
			"seeds run one at a time, each ending with a budget verdict if the heap passes %s\n",
			name, workloads.FormatSize(est), workloads.FormatSize(limit), workloads.FormatSize(heapShare(1)))
		return 1
	}
	fmt.Fprintf(stderr, "simrun: %d seeds at once, not %d: a seed of %s needs an estimated %s, and the machine has %s\n",
		n, parallel, name, workloads.FormatSize(est), workloads.FormatSize(limit))
	return n
}
