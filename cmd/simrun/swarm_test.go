package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/core/sched"
	"github.com/ckptsim/ckptsim/workloads"
)

// TestSwarmOptionsInResults: each swarm seed's --json line and its record
// in results.jsonl carry the design and options it drew; over 40 seeds
// every design and both timer-lead settings are drawn; replay prints a
// seed's options and draws the same; --variant design=... wins.
func TestSwarmOptionsInResults(t *testing.T) {
	dir := t.TempDir()
	args := []string{"run", "--scenario", "swarm", "--seeds", "40", "--budget", "20000"} // the draw comes before the run
	j := simrunExec(t, append(args, "--json")...)
	simrunExec(t, append(args, "--out", dir)...)
	b, err := os.ReadFile(filepath.Join(dir, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	recs := map[uint64]map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var rec record
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatal(err)
		}
		recs[rec.Seed] = rec.Options
	}
	s, err := workloads.Lookup("swarm")
	if err != nil {
		t.Fatal(err)
	}
	designs, leads := map[string]bool{}, map[bool]bool{}
	ls := lines(t, j.stdout)
	if len(ls) != 40 || len(recs) != 40 {
		t.Fatalf("%d --json lines, %d records, want 40", len(ls), len(recs))
	}
	for _, l := range ls {
		_, drawn := workloads.SwarmConfig(s, l.Seed)
		if !maps.Equal(l.Options, drawn) || !maps.Equal(recs[l.Seed], drawn) {
			t.Fatalf("seed %d: --json options %v, results.jsonl %v, drawn %v", l.Seed, l.Options, recs[l.Seed], drawn)
		}
		designs[l.Options["design"]] = true
		leads[l.Options["timer_lead"] != "0s"] = true
	}
	for _, d := range sched.Designs {
		if !designs[string(d)] {
			t.Errorf("40 swarm seeds never drew design %s (drew %v)", d, designs)
		}
	}
	if !leads[true] || !leads[false] {
		t.Errorf("40 swarm seeds drew the timer lead only %v", leads)
	}
	seed := ls[7]
	r := simrunExec(t, "replay", "--scenario", "swarm", "--seed", "7", "--budget", "20000", "--trace=false")
	if got := field(t, r.stdout, "options"); got != workloads.OptionsString(seed.Options) || !strings.Contains(got, "design=") {
		t.Errorf("replay prints options %q, the run drew %q", got, workloads.OptionsString(seed.Options))
	}
	if got := field(t, r.stdout, "trace_hash"); got != seed.TraceHash {
		t.Errorf("replay hash %s, run %s", got, seed.TraceHash)
	}
	other := "per-pipeline"
	if seed.Options["design"] == other {
		other = "shared-inline"
	}
	v := lines(t, simrunExec(t, "replay", "--scenario", "swarm", "--seed", "7", "--budget", "20000", "--variant", "design="+other, "--json").stdout)
	if len(v) != 1 || v[0].Options["design"] != other {
		t.Errorf("--variant design=%s: options %v", other, v)
	}
}

// TestDefaultCampaignDesigns: the default campaign runs smoke under every
// design and failovers under every design but shared-inline (REFERENCE.md
// says why), each entry once, and the spans keep the entries' variants.
func TestDefaultCampaignDesigns(t *testing.T) {
	runs := map[string][]string{}
	seen := map[string]bool{}
	for _, c := range workloads.DefaultCampaign {
		key := workloads.EntryLabel(c.Name, workloads.VariantString(c.Variants), c.Strategy, c.Buggify)
		if seen[key] {
			t.Errorf("%s twice", key)
		}
		seen[key] = true
		runs[c.Name] = append(runs[c.Name], cmpOrString(c.Variants["design"], string(sched.Shared)))
	}
	for name, skip := range map[string]string{"smoke": "", "failovers": string(sched.SharedInline)} {
		for _, d := range sched.Designs {
			if string(d) != skip && !slices.Contains(runs[name], string(d)) {
				t.Errorf("the default campaign runs %s under %v, not %s", name, runs[name], d)
			}
		}
	}
	spans, err := lookupAll(nil)
	if err != nil || len(spans) != len(workloads.DefaultCampaign) {
		t.Fatalf("%d spans (%v), want %d", len(spans), err, len(workloads.DefaultCampaign))
	}
	for i, c := range workloads.DefaultCampaign {
		if sp := spans[i]; sp.sc.Name != c.Name || sp.n != c.Seeds || !maps.Equal(sp.variants, c.Variants) ||
			sp.strategy != c.Strategy || sp.buggify != c.Buggify {
			t.Errorf("span %d: %s %d %v %q %q, want %s %d %v %q %q", i, sp.sc.Name, sp.n, sp.variants, sp.strategy, sp.buggify,
				c.Name, c.Seeds, c.Variants, c.Strategy, c.Buggify)
		}
	}
}

func cmpOrString(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// TestSpansOfOneScenario: the records of a scenario run under several
// variant sets go to their own spans, in the campaign, its resume
// commands and a merge.
func TestSpansOfOneScenario(t *testing.T) {
	smoke, err := workloads.Lookup("smoke")
	if err != nil {
		t.Fatal(err)
	}
	pp := map[string]string{"design": "per-pipeline"}
	spans := []span{{sc: smoke, n: 4}, {sc: smoke, n: 2, variants: pp}, {sc: smoke, n: 2, variants: map[string]string{"design": "leader-follower"}}}
	at := func(i int) spanID { return spanID{scenario: spans[i].sc.Name, variants: spans[i].variants} }
	rec := func(scenario, variants string) record {
		return record{Outcome: workloads.Outcome{Scenario: scenario, Variants: variants}}
	}
	for ran, want := range map[string]int{"fixed": 0, "design=per-pipeline": 1, "design=leader-follower": 2,
		"design=per-pipeline,expiry-fence=none": 1, "expiry-fence=none": 0, "design=shared": 0} {
		if got := spanOf(len(spans), at, rec("smoke", ran)); got != want {
			t.Errorf("a smoke record run with %s: span %d, want %d", ran, got, want)
		}
	}
	if got := spanOf(len(spans), at, rec("failovers", "fixed")); got != -1 {
		t.Errorf("a record of another scenario: span %d", got)
	}
	f := &runFlags{parallel: 2, variants: variantFlag{"expiry-fence": "none"}}
	jobs := plan(f, shard{}, spans)
	// In rounds: seed 0 of each span, then seed 1 of each, then seeds 2-3.
	var order []string
	for _, j := range jobs {
		order = append(order, fmt.Sprintf("%d:%d", j.group, j.opt.Seed))
	}
	if got, want := strings.Join(order, " "), "0:0 1:0 2:0 0:1 1:1 2:1 0:2 0:3"; got != want {
		t.Fatalf("plan: %s, want %s", got, want)
	}
	// Scenarios named on the command line run span by span.
	named := &runFlags{parallel: 2, scenarios: stringList{"smoke"}}
	order = nil
	for _, j := range plan(named, shard{}, spans) {
		order = append(order, fmt.Sprintf("%d:%d", j.group, j.opt.Seed))
	}
	if got, want := strings.Join(order, " "), "0:0 0:1 0:2 0:3 1:0 1:1 2:0 2:1"; got != want {
		t.Fatalf("plan of named scenarios: %s, want %s", got, want)
	}
	if jobs[1].opt.Variants["design"] != "per-pipeline" || jobs[1].opt.Variants["expiry-fence"] != "none" {
		t.Fatalf("plan: job 1 variants %v", jobs[1].opt.Variants)
	}
	got := resume(f, shard{}, spans, jobs[1:])
	want := []string{
		binary + " run --scenario smoke --seed 1 --seeds 3 --variant expiry-fence=none --parallel 2",
		binary + " run --scenario smoke --seed 0 --seeds 2 --variant design=per-pipeline --variant expiry-fence=none --parallel 2",
		binary + " run --scenario smoke --seed 0 --seeds 2 --variant design=leader-follower --variant expiry-fence=none --parallel 2",
	}
	if !slices.Equal(got, want) {
		t.Errorf("resume commands:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Cut short in the second round: every span has begun.
	got = resume(f, shard{}, spans, jobs[4:])
	want = []string{
		binary + " run --scenario smoke --seed 2 --seeds 2 --variant expiry-fence=none --parallel 2",
		binary + " run --scenario smoke --seed 1 --seeds 1 --variant design=per-pipeline --variant expiry-fence=none --parallel 2",
		binary + " run --scenario smoke --seed 1 --seeds 1 --variant design=leader-follower --variant expiry-fence=none --parallel 2",
	}
	if !slices.Equal(got, want) {
		t.Errorf("resume commands in round 2:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	m := manifest{Spans: []spanInfo{{Scenario: "smoke"}, {Scenario: "smoke", Variants: "design=per-pipeline"}}}
	if spanIndex(m, rec("smoke", "design=per-pipeline")) != 1 || spanIndex(m, rec("smoke", "fixed")) != 0 {
		t.Error("merge puts the records of a design entry in the wrong span")
	}
}

// TestSpansOfOneScenarioByMode: two spans of one scenario that differ only
// in their strategy and BUGGIFY overrides run their seeds apart, name
// them apart (a resume finds each), and replay each with its own flags; a
// campaign flag that makes them alike runs their common seeds once.
func TestSpansOfOneScenarioByMode(t *testing.T) {
	sc, err := workloads.Lookup("idle-close-late")
	if err != nil {
		t.Fatal(err)
	}
	spans := []span{{sc: sc, n: 2}, {sc: sc, n: 3, strategy: "pct", buggify: "on"}}
	f := &runFlags{parallel: 2}
	jobs := plan(f, shard{}, spans)
	if len(jobs) != 5 {
		t.Fatalf("plan: %d jobs, want 5", len(jobs))
	}
	keys := map[seedKey]int{}
	for _, j := range jobs {
		out := workloads.Outcome{Scenario: sc.Name, Seed: j.opt.Seed, Variants: workloads.VariantString(j.opt.Variants),
			Strategy: j.opt.Strategy, BuggifyFlag: j.opt.Buggify}
		keys[record{Outcome: out}.key()]++
		if g := spanOf(len(spans), func(i int) spanID {
			st, bg := spans[i].mode(f)
			return spanID{scenario: sc.Name, strategy: st, buggify: bg}
		}, record{Outcome: out}); g != j.group {
			t.Errorf("seed %d of span %d goes to span %d", j.opt.Seed, j.group, g)
		}
		if wantPCT := j.group == 1; strings.Contains(j.replay, "--strategy pct") != wantPCT || (j.opt.Buggify == "on") != wantPCT {
			t.Errorf("seed %d of span %d: replay flags %q, buggify %q", j.opt.Seed, j.group, j.replay, j.opt.Buggify)
		}
	}
	if len(keys) != 5 {
		t.Errorf("%d distinct seed keys for 5 jobs", len(keys))
	}
	got := resume(f, shard{}, spans, jobs[3:])
	want := []string{binary + " run --scenario idle-close-late --seed 1 --seeds 2 --strategy pct --buggify on --parallel 2"}
	if !slices.Equal(got, want) {
		t.Errorf("resume commands:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Kept apart by their modes; --strategy pct --buggify on make the
	// spans alike: they run once, the longer count.
	if got := distinct(f, spans); len(got) != 2 {
		t.Errorf("%d distinct spans, want 2", len(got))
	}
	same := &runFlags{parallel: 2, strategy: "pct", buggify: "on"}
	if got := distinct(same, spans); len(got) != 1 || len(plan(same, shard{}, got)) != 3 {
		t.Errorf("with the spans made alike: %d spans, want 1 of 3 seeds", len(got))
	}
}
