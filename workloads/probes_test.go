package workloads

import (
	"testing"

	"github.com/ckptsim/ckptsim/core/env"
)

// TestProbeTableCoversEveryProbe: every probe core declares has exactly
// one row, in declaration order, naming an entry of the default campaign.
func TestProbeTableCoversEveryProbe(t *testing.T) {
	probes := env.Probes()
	if len(ProbeTable) != len(probes) {
		t.Fatalf("ProbeTable has %d rows, core declares %d probes", len(ProbeTable), len(probes))
	}
	for i, p := range probes {
		row := ProbeTable[i]
		if row.Probe != p.String() {
			t.Errorf("row %d is %q, want %q (declaration order)", i, row.Probe, p)
		}
		found := false
		for _, e := range DefaultCampaign {
			if e.Name == row.Entry.Name && len(e.Variants) == len(row.Entry.Variants) && e.Strategy == row.Entry.Strategy && e.Buggify == row.Entry.Buggify {
				same := true
				for k, v := range row.Entry.Variants {
					same = same && e.Variants[k] == v
				}
				found = found || same
			}
		}
		if !found {
			t.Errorf("probe %s: entry %q is not in DefaultCampaign", row.Probe, row.Entry)
		}
	}
}
