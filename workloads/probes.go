package workloads

import (
	"maps"
	"slices"
	"strings"

	"github.com/ckptsim/ckptsim/core/env"
)

// ProbeRow says which entry of DefaultCampaign must hit a code probe
// (env.Probe): the default campaign leaving a probe unhit in its entry
// fails `make test` (cmd/simrun TestDefaultCampaignHitsEveryProbe).
type ProbeRow struct {
	Probe string
	Entry ProbeEntry
}

// ProbeEntry names a DefaultCampaign entry: its scenario and the
// variants of its own.
type ProbeEntry struct {
	Name     string
	Variants map[string]string
}

// String is the entry as the campaign summary labels its row: the
// scenario, then its own variants in key order.
func (e ProbeEntry) String() string {
	s := e.Name
	for _, k := range slices.Sorted(maps.Keys(e.Variants)) {
		s += " " + k + "=" + e.Variants[k]
	}
	return s
}

// ProbeTable is the committed table: one row per probe, in env.Probes
// order (TestProbeTableCoversEveryProbe).
var ProbeTable = []ProbeRow{
	{Probe: "register-late", Entry: ProbeEntry{Name: "windows"}},
}

// ProbeEntryOf returns the table's entry for a probe.
func ProbeEntryOf(probe string) (ProbeEntry, bool) {
	for _, r := range ProbeTable {
		if r.Probe == probe {
			return r.Entry, true
		}
	}
	return ProbeEntry{}, false
}

// ProbeNames returns every probe core declares, in declaration order.
func ProbeNames() []string {
	var out []string
	for _, p := range env.Probes() {
		out = append(out, p.String())
	}
	return out
}

// entryLabel is a campaign row's label for a scenario and its variant
// string ("k=v,k=v"; "" or "fixed": none of its own).
func entryLabel(scenario, variants string) string {
	if variants == "" || variants == "fixed" {
		return scenario
	}
	return scenario + " " + strings.ReplaceAll(variants, ",", " ")
}

// EntryLabel is entryLabel, for simrun's report.
func EntryLabel(scenario, variants string) string { return entryLabel(scenario, variants) }
