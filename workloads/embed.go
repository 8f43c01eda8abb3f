package workloads

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
)

//go:embed scenarios/*.yaml hazards/*.yaml
var embedded embed.FS

// hazardCatalogFile is the hazard catalog (HazardCatalog): it lies beside
// the hazard scenarios and is not one.
const hazardCatalogFile = "hazards/catalog.yaml"

// scenarioFiles are the embedded scenario files of a folder, sorted.
func scenarioFiles(folder string) ([]string, error) {
	names, err := fs.Glob(embedded, folder+"/*.yaml")
	if err != nil {
		return nil, err
	}
	names = slices.DeleteFunc(names, func(n string) bool { return n == hazardCatalogFile })
	slices.Sort(names)
	return names, nil
}

// Embedded returns the built-in scenarios of a folder ("scenarios" or
// "hazards"), sorted by name.
func Embedded(folder string) ([]*Scenario, error) {
	names, err := scenarioFiles(folder)
	if err != nil {
		return nil, err
	}
	var out []*Scenario
	for _, n := range names {
		b, err := embedded.ReadFile(n)
		if err != nil {
			return nil, err
		}
		s, err := Parse("embedded:"+n, b)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// Lookup returns an embedded scenario by name ("smoke", "hazards/h1") or
// loads a file path.
func Lookup(ref string) (*Scenario, error) {
	if strings.HasSuffix(ref, ".yaml") || strings.HasSuffix(ref, ".yml") {
		if _, err := os.Stat(ref); err == nil {
			return LoadFile(ref)
		}
	}
	// Parse only the file that matches, so that one broken embedded file
	// does not break every lookup.
	for _, folder := range []string{"scenarios", "hazards"} {
		names, _ := scenarioFiles(folder)
		for _, n := range names {
			base := strings.TrimSuffix(path.Base(n), ".yaml")
			if ref != base && ref != folder+"/"+base && ref != path.Base(n) {
				continue
			}
			b, err := embedded.ReadFile(n)
			if err != nil {
				return nil, err
			}
			return Parse("embedded:"+n, b)
		}
	}
	if _, err := os.Stat(ref); err == nil {
		return LoadFile(ref)
	}
	return nil, &Error{File: ref, Msg: fmt.Sprintf("no embedded scenario or file named %q (see simrun list)", ref)}
}

// DefaultCampaign is the mix that simrun runs with no arguments: each
// scenario with its share of seeds, and the variants, strategy and
// BUGGIFY it runs with (nil, "": the scenario's own). simrun runs the
// rows in rounds (the first seed of every row, then the second, then
// seeds 2-3, 4-7, ...), so a bug one row finds at its first seeds costs
// a few seeds of every row, not all of the rows before it. smoke and failovers also run under every other
// scheduler design (design=...), and swarm draws a design per seed
// (SwarmConfig), so that every design the scheduler ships is explored by
// default. failovers does not run shared-inline: its two timer threads
// run the bodies, which sit out the status writes of a step-down, and
// its scheduling delay fails the latency bound by design (workloads/
// REFERENCE.md, "The default campaign"). cleanup and bit-rot (10 seeds
// each, about a CPU-second together) widen windows no other row reaches
// on purpose: deletes of the savepoint and checkpoint stores failing at
// their first steps, and restores skipping a rotted checkpoint below a
// rotted newest one (workloads.ProbeTable). cancel-at-failure (100
// seeds, about two CPU-seconds) cancels jobs at the instants failures
// reach them: the cancel-versus-failure race (F045) and cancels of timer
// entries claimed within the lead.
var DefaultCampaign = []CampaignEntry{
	{Name: "smoke", Seeds: 200}, {Name: "failovers", Seeds: 30}, {Name: "expiries", Seeds: 20},
	{Name: "savepoint-storm", Seeds: 6}, {Name: "saturation", Seeds: 6}, {Name: "swarm", Seeds: 150},
	{Name: "watermarks", Seeds: 20}, {Name: "double-failure", Seeds: 10}, {Name: "idle-close", Seeds: 6},
	{Name: "idle-close-late", Seeds: 10}, {Name: "lifecycle", Seeds: 20}, {Name: "windows", Seeds: 200},
	{Name: "redeploy-savepoint", Seeds: 10}, {Name: "close-at-firing", Seeds: 100},
	{Name: "cleanup", Seeds: 40}, {Name: "bit-rot", Seeds: 10}, {Name: "cancel-at-failure", Seeds: 100},
	{Name: "smoke", Seeds: 30, Variants: map[string]string{"design": "per-pipeline"}},
	{Name: "smoke", Seeds: 30, Variants: map[string]string{"design": "shared-inline"}},
	{Name: "smoke", Seeds: 30, Variants: map[string]string{"design": "leader-follower"}},
	{Name: "failovers", Seeds: 10, Variants: map[string]string{"design": "per-pipeline"}},
	{Name: "failovers", Seeds: 10, Variants: map[string]string{"design": "leader-follower"}},
	// Rows chosen by what they reach: each runs where a planted bug that
	// the rows above miss was found (results/mutants/README.md, the
	// targeted runs of results/mutants.md), with the fewest seeds that
	// found it there and a margin.
	{Name: "h6-inline-continuation", Seeds: 4, Strategy: "pct"},
	{Name: "h6-inline-continuation", Seeds: 4, Strategy: "pct", Buggify: "on"},
	{Name: "h9-deferred-fence", Seeds: 3},
	{Name: "h5-savepoint-under-lock", Seeds: 3},
	{Name: "h2-cancel-after-handoff", Seeds: 6, Buggify: "on"},
	{Name: "saturation", Seeds: 4, Strategy: "pct", Buggify: "on"},
	{Name: "savepoint-storm", Seeds: 3, Variants: map[string]string{"design": "per-pipeline"}, Buggify: "on"},
	{Name: "idle-close-late", Seeds: 150, Strategy: "pct", Buggify: "on"},
}

// CampaignEntry is one line of DefaultCampaign: a scenario, its seeds
// (from the campaign's first seed), and what its seeds run with beyond
// the scenario's own settings: variants, the exploration strategy
// (Options.Strategy: "pct"), BUGGIFY (Options.Buggify: "on"). A
// campaign flag (--variant, --strategy, --buggify) wins over them.
type CampaignEntry struct {
	Name     string
	Seeds    int
	Variants map[string]string
	Strategy string
	Buggify  string
}
