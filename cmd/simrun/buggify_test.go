package main

import (
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/workloads"
)

// TestBuggifyCoverage: the campaign counts, per site, the seeds it was on
// and fired in and the seeds with it on that failed, and lists the sites
// that never fired as uncovered, in the text and the JSON.
func TestBuggifyCoverage(t *testing.T) {
	r := newReport("test", 1, 3)
	g := r.group(0, "smoke", "", "", "")
	sites := func(fired map[string]int) []workloads.SiteOutcome {
		var out []workloads.SiteOutcome
		for _, name := range workloads.SiteNames() {
			n, on := fired[name]
			out = append(out, workloads.SiteOutcome{Site: name, On: on, Evaluated: 10 * n, Fired: n})
		}
		return out
	}
	r.add(g, newRecord(workloads.Outcome{Scenario: "smoke", Seed: 1, Verdict: workloads.Pass,
		Buggify: sites(map[string]int{"executor-rejects": 3, "status-slow": 0})}))
	r.add(g, newRecord(workloads.Outcome{Scenario: "smoke", Seed: 2, Verdict: workloads.Safety, Replay: "replay-2",
		Buggify: sites(map[string]int{"executor-rejects": 1, "store-fails-after-write": 2})}))
	r.add(g, newRecord(workloads.Outcome{Scenario: "smoke", Seed: 3, Verdict: workloads.Pass})) // BUGGIFY off: not counted
	r.finish(0, false)
	b := r.Buggify
	if b == nil || b.Seeds != 2 {
		t.Fatalf("buggify report %+v, want 2 seeds", b)
	}
	ex := b.site("executor-rejects")
	if ex.SeedsOn != 2 || ex.SeedsFired != 2 || ex.Fired != 4 || ex.FailedOn != 1 || ex.FirstFail != "replay-2" {
		t.Errorf("executor-rejects: %+v", *ex)
	}
	if st := b.site("status-slow"); st.SeedsOn != 1 || st.SeedsFired != 0 {
		t.Errorf("status-slow: %+v", *st)
	}
	var want []string // every site but the two that fired, in site order
	for _, s := range workloads.SiteNames() {
		if s != "executor-rejects" && s != "store-fails-after-write" {
			want = append(want, s)
		}
	}
	if strings.Join(b.Uncovered, ",") != strings.Join(want, ",") {
		t.Errorf("uncovered %v, want %v", b.Uncovered, want)
	}
	var text strings.Builder
	r.writeText(&text, false)
	if !strings.Contains(text.String(), "uncovered: "+strings.Join(want, ", ")+" (never fired in this campaign)") {
		t.Errorf("summary lacks the uncovered line:\n%s", text.String())
	}
}
