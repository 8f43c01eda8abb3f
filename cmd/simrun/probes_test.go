package main

import (
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/workloads"
)

// TestProbeMissingNamesTheUnhitProbe: a campaign whose seeds never hit a
// probe in the row the table names is reported, probe and row named, and
// a hit elsewhere does not count.
func TestProbeMissingNamesTheUnhitProbe(t *testing.T) {
	row := workloads.ProbeTable[0]
	r := newReport("test", 1, 3)
	must := r.group(0, row.Entry.Name, "", "", "")
	other := r.group(1, "elsewhere", "", "", "")
	r.add(other, record{Outcome: workloads.Outcome{Scenario: "elsewhere", Seed: 1, Verdict: workloads.Pass, Probes: map[string]int{row.Probe: 2}}})
	r.add(must, record{Outcome: workloads.Outcome{Scenario: row.Entry.Name, Seed: 2, Verdict: workloads.Pass}})
	r.finish(0, false)
	miss := r.Probes.Missing()
	if len(miss) != len(workloads.ProbeTable) || !strings.Contains(miss[0], "probe "+row.Probe+": unhit in "+row.Entry.String()) ||
		!strings.Contains(miss[0], "hit 2 times elsewhere") {
		t.Fatalf("Missing() = %q", miss)
	}
	r.add(must, record{Outcome: workloads.Outcome{Scenario: row.Entry.Name, Seed: 3, Verdict: workloads.Pass, Probes: map[string]int{row.Probe: 1}}})
	r.finish(0, false)
	for _, m := range r.Probes.Missing() {
		if strings.Contains(m, "probe "+row.Probe+":") {
			t.Fatalf("probe hit in its row still reported: %q", m)
		}
	}
}
