package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// stableSummary reads dir/summary.json without the figures that depend on
// the machine or the process layout: the command line, wall times, the
// rates derived from them, the parallelism and the slowest seeds (by wall
// time).
func stableSummary(t *testing.T, dir string) report {
	t.Helper()
	var r report
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	r.Command, r.WallNs, r.SimPerWall, r.Parallel = "", 0, 0, 0
	for _, g := range r.Groups {
		g.SeedWallNs, g.SimPerWall, g.Slowest = 0, 0, nil
	}
	for i := range r.Failures {
		r.Failures[i].WallNs = 0
	}
	return r
}

// seedResults maps "scenario seed" to "verdict hash" from results.jsonl,
// and returns the keys in file order.
func seedResults(t *testing.T, dir string) (map[string]string, []string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, resultsFile))
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	var order []string
	for _, l := range lines(t, string(b)) {
		k := fmt.Sprintf("%s %d", l.Scenario, l.Seed)
		m[k] = string(l.Verdict) + " " + l.TraceHash
		order = append(order, k)
	}
	return m, order
}

func sameResults(t *testing.T, what, want, got string) {
	t.Helper()
	wm, wo := seedResults(t, want)
	gm, gord := seedResults(t, got)
	if d := cmp.Diff(wm, gm); d != "" {
		t.Errorf("%s: per-seed verdicts and hashes differ (-uninterrupted +%s):\n%s", what, what, d)
	}
	if d := cmp.Diff(wo, gord); d != "" {
		t.Errorf("%s: results.jsonl order differs:\n%s", what, d)
	}
	if d := cmp.Diff(stableSummary(t, want), stableSummary(t, got), cmpopts.IgnoreUnexported(report{}, group{}, seedRef{}, probeStats{}, probeReport{})); d != "" {
		t.Errorf("%s: summary differs (-uninterrupted +%s):\n%s", what, what, d)
	}
}

// campaignArgs is the campaign the durability tests run: two scenarios,
// one of them failing (H4's variant), so failures and their replay
// commands are part of what must survive.
var campaignArgs = []string{"run", "--scenario", "smoke", "--scenario", "h4-trigger-silent", "--seeds", "16",
	"--variant", "trigger-errors=silent", "--parallel", "2"}

// TestKillResume kills a campaign with SIGKILL after some seeds finished,
// resumes it with --resume, and gets the summary and per-seed results of
// an uninterrupted run; the seeds that had finished before the kill are
// not run again.
func TestKillResume(t *testing.T) {
	dir := t.TempDir()
	whole, killed := filepath.Join(dir, "whole"), filepath.Join(dir, "killed")
	simrunExec(t, append(campaignArgs, "--out", whole)...).want(t, exitLiveness)

	cmd := exec.Command(bin, append(campaignArgs, "--out", killed, "--json")...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<24)
	seen := 0
	for seen < 10 && sc.Scan() {
		seen++ // a --json line is printed after its record is appended
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if seen < 10 {
		t.Fatalf("the campaign ended after %d seeds, before the kill", seen)
	}
	before, _ := seedResults(t, killed)
	if len(before) < seen || len(before) >= 32 {
		t.Fatalf("after SIGKILL results.jsonl holds %d seeds; %d had been printed, 32 planned", len(before), seen)
	}

	r := simrunExec(t, "run", "--resume", killed, "--json")
	ranTheRest(t, "resumed", r, before)
	sameResults(t, "resumed", whole, killed)
	if !strings.Contains(r.stderr, "already finished") {
		t.Errorf("resume does not say what it skipped:\n%s", r.stderr)
	}
}

// ranTheRest checks that a continued campaign (what) exited as the
// uninterrupted one does and ran exactly the seeds of the 32 that were not
// recorded before it (before).
func ranTheRest(t *testing.T, what string, r result, before map[string]string) {
	t.Helper()
	r.want(t, exitLiveness)
	for _, l := range lines(t, r.stdout) {
		if _, ran := before[fmt.Sprintf("%s %d", l.Scenario, l.Seed)]; ran {
			t.Errorf("%s: %s seed %d was recorded before and ran again", what, l.Scenario, l.Seed)
		}
	}
	if n := len(lines(t, r.stdout)); n+len(before) != 32 {
		t.Errorf("%s: ran %d seeds, %d were recorded: want 32 in all", what, n, len(before))
	}
}

// TestMergeEquivalence: n shard processes plus merge give the per-seed
// verdicts, trace hashes and summary of one unsharded run.
func TestMergeEquivalence(t *testing.T) {
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole")
	simrunExec(t, append(campaignArgs, "--out", whole)...).want(t, exitLiveness)
	const n = 3
	var shards []string
	var cmds []*exec.Cmd
	for i := range n {
		out := filepath.Join(dir, fmt.Sprintf("shard-%d", i))
		shards = append(shards, out)
		c := exec.Command(bin, append(campaignArgs, "--shard", fmt.Sprintf("%d/%d", i, n), "--out", out)...)
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, c)
	}
	for _, c := range cmds {
		c.Wait() // each exits 1 or 0 depending on its slice of the failing seeds
	}
	merged := filepath.Join(dir, "merged")
	m := simrunExec(t, append(append([]string{"merge"}, shards...), "--out", merged)...)
	m.want(t, exitLiveness)
	sameResults(t, "merged", whole, merged)
	if !strings.Contains(m.stdout, "replay: go run ./cmd/simrun replay --scenario h4-trigger-silent") {
		t.Errorf("merged summary lacks the failures' replay commands:\n%s", tail(m.stdout))
	}

	// a missing shard is reported, and --resume of the merge runs it
	part := filepath.Join(dir, "part")
	p := simrunExec(t, "merge", shards[0], shards[2], "--out", part)
	p.want(t, exitLiveness)
	if s := stableSummary(t, part); !s.Interrupted || s.Seeds == s.Planned || s.Planned != 32 {
		t.Errorf("partial merge: interrupted %v, %d of %d seeds", s.Interrupted, s.Seeds, s.Planned)
	}
	simrunExec(t, "run", "--resume", part).want(t, exitLiveness)
	sameResults(t, "partial merge resumed", whole, part)
}

// TestMergeRefuses: folders of different campaigns, or holding the same
// seeds, are refused with an error naming both.
func TestMergeRefuses(t *testing.T) {
	dir := t.TempDir()
	run := func(name string, args ...string) string {
		out := filepath.Join(dir, name)
		simrunExec(t, append(append([]string{"run", "--seeds", "2"}, args...), "--out", out)...)
		return out
	}
	a := run("a", "--scenario", "smoke", "--shard", "0/2")
	b := run("b", "--scenario", "smoke", "--shard", "0/2")
	c := run("c", "--scenario", "watermarks", "--shard", "1/2")
	d := run("d", "--scenario", "smoke", "--shard", "1/2", "--variant", "expiry-fence=none")
	e := run("e", "--scenario", "smoke", "--strategy", "pct", "--shard", "1/2")
	for _, tc := range []struct {
		dirs []string
		want string
	}{
		{[]string{a, b}, "both hold shard 0/2"},
		{[]string{a, c}, "scenarios differ"},
		{[]string{a, d}, "variants differ"},
		{[]string{a, e}, "strategies differ"},
		{[]string{a, filepath.Join(dir, "nothing")}, "not a results folder"},
	} {
		r := simrunExec(t, append(append([]string{"merge"}, tc.dirs...), "--out", filepath.Join(dir, "m"))...)
		r.want(t, exitUsage)
		if !strings.Contains(r.stderr, tc.want) {
			t.Errorf("merge %v: stderr %q lacks %q", tc.dirs, r.stderr, tc.want)
		}
	}
}

// TestOutContinuesSameCampaign: run --out over a folder holding the same
// campaign, part of it finished, continues it as --resume does: the seeds
// already recorded are not run again and the results are those of an
// uninterrupted run.
func TestOutContinuesSameCampaign(t *testing.T) {
	dir := t.TempDir()
	whole, part := filepath.Join(dir, "whole"), filepath.Join(dir, "part")
	simrunExec(t, append(campaignArgs, "--out", whole)...).want(t, exitLiveness)
	simrunExec(t, append(campaignArgs, "--out", part)...).want(t, exitLiveness)
	path := filepath.Join(part, resultsFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs := strings.SplitAfter(string(b), "\n")
	if len(recs) < 12 {
		t.Fatalf("results.jsonl holds %d lines, want 32 records", len(recs))
	}
	if err := os.WriteFile(path, []byte(strings.Join(recs[:10], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	before, _ := seedResults(t, part)
	r := simrunExec(t, append(campaignArgs, "--out", part, "--json")...)
	ranTheRest(t, "continued", r, before)
	sameResults(t, "continued", whole, part)
	if !strings.Contains(r.stderr, "continuing it, as run --resume") {
		t.Errorf("run does not say it continues the campaign:\n%s", r.stderr)
	}
}
