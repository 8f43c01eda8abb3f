package main

import (
	"encoding/json"
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
		key := c.Name + " " + workloads.VariantString(c.Variants)
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
		if sp := spans[i]; sp.sc.Name != c.Name || sp.n != c.Seeds || !maps.Equal(sp.variants, c.Variants) {
			t.Errorf("span %d: %s %d %v, want %s %d %v", i, sp.sc.Name, sp.n, sp.variants, c.Name, c.Seeds, c.Variants)
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
	at := func(i int) (string, map[string]string) { return spans[i].sc.Name, spans[i].variants }
	for ran, want := range map[string]int{"fixed": 0, "design=per-pipeline": 1, "design=leader-follower": 2,
		"design=per-pipeline,expiry-fence=none": 1, "expiry-fence=none": 0, "design=shared": 0} {
		if got := spanOf(len(spans), at, "smoke", ran); got != want {
			t.Errorf("a smoke record run with %s: span %d, want %d", ran, got, want)
		}
	}
	if got := spanOf(len(spans), at, "failovers", "fixed"); got != -1 {
		t.Errorf("a record of another scenario: span %d", got)
	}
	f := &runFlags{parallel: 2, variants: variantFlag{"expiry-fence": "none"}}
	jobs := plan(f, shard{}, spans)
	if len(jobs) != 8 || jobs[4].opt.Variants["design"] != "per-pipeline" || jobs[4].opt.Variants["expiry-fence"] != "none" {
		t.Fatalf("plan: %d jobs, job 4 variants %v", len(jobs), jobs[4].opt.Variants)
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
	m := manifest{Spans: []spanInfo{{Scenario: "smoke"}, {Scenario: "smoke", Variants: "design=per-pipeline"}}}
	if spanIndex(m, "smoke", "design=per-pipeline") != 1 || spanIndex(m, "smoke", "fixed") != 0 {
		t.Error("merge puts the records of a design entry in the wrong span")
	}
}
