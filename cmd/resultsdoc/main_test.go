package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const root = "../.."

// TestReadmeFiguresCurrent fails while the committed figures block of
// results/README.md or of README.md differs from what go run
// ./cmd/resultsdoc writes.
func TestReadmeFiguresCurrent(t *testing.T) {
	for _, d := range docs {
		old, doc, err := rendered(root, d)
		if err != nil {
			t.Fatal(err)
		}
		if doc != old {
			block, _ := d.render(root)
			t.Errorf("%s's figures block is stale: run go run ./cmd/resultsdoc (make results). It should read:\n%s", d.path, block)
		}
	}
}

// copyResults copies the data files the figures read into a fresh root.
func copyResults(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	for _, p := range []string{"bench/sim.txt", "campaign/default-cost.txt", "bench/trigger-precise.txt", "bench/trigger-jdk.txt", "mutants.json",
		"hazards.json", "hazards.md", "coverage/README.md", "bench/floor.txt", "refresher/caught.txt", "bench/timedwake.txt",
		"mutants/default-campaign.json"} {
		b, err := os.ReadFile(filepath.Join(root, "results", p))
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dst, "results", p)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(out, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	entries, _ := filepath.Glob(filepath.Join(root, "results", "findings", "F[0-9]*.md"))
	if err := os.MkdirAll(filepath.Join(dst, "results", "findings"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range entries {
		b, _ := os.ReadFile(p)
		os.WriteFile(filepath.Join(dst, "results", "findings", filepath.Base(p)), b, 0o644)
	}
	return dst
}

// TestFiguresFollowTheData: a change to a data file changes the figure
// (here one mutant no longer detected, one finding's verdict changed, and
// the 500-pipeline simulator runs removed).
func TestFiguresFollowTheData(t *testing.T) {
	dir := copyResults(t)
	before, err := figures(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"**122 of 123** planted bugs found by the check they name on a seed the unpatched tree passes", "can the same sequence happen in Apache SeaTunnel Zeta: PRESENT ", "[`bench/sim.txt`](bench/sim.txt)", "commit `5c916e7`", "seeds per CPU-second"} {
		if !strings.Contains(before, want) {
			t.Fatalf("figures lack %q (the committed data changed? then change this test):\n%s", want, before)
		}
	}

	mj := filepath.Join(dir, "results", "mutants.json")
	var rep map[string]any
	b, _ := os.ReadFile(mj)
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	for _, r := range rep["results"].([]any) { // the first row found: no longer detected
		if row := r.(map[string]any); row["detected"] == true {
			row["detected"] = false
			break
		}
	}
	b, _ = json.Marshal(rep)
	os.WriteFile(mj, b, 0o644)

	f := filepath.Join(dir, "results", "findings", "F001-half-done-restore.md")
	b, _ = os.ReadFile(f)
	os.WriteFile(f, []byte(strings.Replace(string(b), "\nverdict: PRESENT\n", "\nverdict: ABSENT\n", 1)), 0o644)

	after, err := figures(dir)
	if err != nil {
		t.Fatal(err)
	}
	var present, absent int
	if _, err := fmt.Sscanf(before[strings.Index(before, "Zeta: PRESENT ")+len("Zeta: "):], "PRESENT %d, ABSENT %d", &present, &absent); err != nil {
		t.Fatalf("no verdict counts in the figures: %v", err)
	}
	for _, want := range []string{"**121 of 123**", fmt.Sprintf("PRESENT %d, ABSENT %d", present-1, absent+1)} {
		if !strings.Contains(after, want) {
			t.Errorf("after the change the figures lack %q:\n%s", want, after)
		}
	}

	sim := filepath.Join(dir, "results", "bench", "sim.txt")
	b, _ = os.ReadFile(sim)
	var keep []string
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(l, "BenchmarkSim/pipelines=500") {
			keep = append(keep, l)
		}
	}
	os.WriteFile(sim, []byte(strings.Join(keep, "\n")), 0o644)
	if _, err := figures(dir); err == nil || !strings.Contains(err.Error(), "Sim/pipelines=500") {
		t.Errorf("figures without the 500-pipeline runs: err %v, want one naming Sim/pipelines=500", err)
	}
}

// TestSimSpeedFollowsTheData: the simulator's speed is quoted first as the
// synctest ratio at 500 threads, from bench/timedwake.txt (the median of
// its runs), and BenchmarkSim's x real time names the machine of its file.
func TestSimSpeedFollowsTheData(t *testing.T) {
	dir := copyResults(t)
	tw := filepath.Join(dir, "results", "bench", "timedwake.txt")
	header := "command: go test -run ^$ -bench ^BenchmarkTimedWakeRatio$ ./bench/\ncommit: abc1234\ndate: 2026-12-03T00:00Z\n"
	var lines []string
	for _, th := range []string{"10", "100", "500"} {
		for _, r := range []string{"2.0", "4.5", "3.1"} { // median 3.1 at 500; 10 and 100 the same
			lines = append(lines, "BenchmarkTimedWakeRatio/threads="+th+"-2 15 1 ns/op "+r+" cpu-synctest/sim 500 sim-cpu-ns/wake 1500 synctest-cpu-ns/wake 1.25 synctest/sim")
		}
	}
	if err := os.WriteFile(tw, []byte(header+strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sim := filepath.Join(dir, "results", "bench", "sim.txt")
	b, _ := os.ReadFile(sim)
	var keep []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "machine:") {
			l = "machine: 64 cores, Test CPU"
		}
		keep = append(keep, l)
	}
	os.WriteFile(sim, []byte(strings.Join(keep, "\n")), 0o644)
	got, err := figures(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"**3.1x less CPU per wake** than synctest (median of 3; 2.0-4.5; 500 against 1500 ns), 1.2x less real time; 3.1x and 3.1x less CPU at 10 and 100 threads",
		"commit `abc1234`", "on 64 cores, Test CPU: a figure of that machine"} {
		if !strings.Contains(got, want) {
			t.Errorf("figures lack %q:\n%s", want, got)
		}
	}
	rd, err := readmeFigures(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rd, "spends **3.1x less CPU** per wake (median of 3)") {
		t.Errorf("README's block lacks the synctest ratio:\n%s", rd)
	}
	os.WriteFile(tw, []byte(header+strings.Join(lines[:6], "\n")+"\n"), 0o644) // no 500-thread runs
	if _, err := figures(dir); err == nil || !strings.Contains(err.Error(), "TimedWakeRatio/threads=500") {
		t.Errorf("figures without the 500-thread runs: err %v, want one naming TimedWakeRatio/threads=500", err)
	}
}

func TestSpliceNeedsMarkers(t *testing.T) {
	if _, err := splice("no markers here", "x"); err == nil {
		t.Error("splice without markers succeeded")
	}
	got, err := splice("a\n"+beginMarker+"\nold\n"+endMarker+"\nb\n", beginMarker+"\nnew\n"+endMarker)
	if err != nil || got != "a\n"+beginMarker+"\nnew\n"+endMarker+"\nb\n" {
		t.Errorf("splice = %q, %v", got, err)
	}
}

// TestHuntList: results/long/hunt.sh -n prints, for every campaign of the
// hunt in results/long/campaigns.jsonl, the command its campaign.json
// recorded, and names each campaign once.
func TestHuntList(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	out, err := exec.Command("bash", filepath.Join(root, "results", "long", "hunt.sh"), "-n").Output()
	if err != nil {
		t.Fatalf("hunt.sh -n: %v", err)
	}
	byName := map[string][]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(l)
		if len(f) < 4 || f[0] != "simrun" || f[1] != "run" || f[len(f)-2] != "--out" {
			t.Fatalf("hunt.sh -n line %q", l)
		}
		name := f[len(f)-1]
		if byName[name] != nil {
			t.Errorf("campaign %s listed twice", name)
		}
		byName[name] = f[2:]
	}
	runs, err := readLong(root)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range runs {
		if r.Group != "hunt" {
			continue
		}
		n++
		got, ok := byName[r.Name]
		if !ok {
			t.Errorf("%s: no line in results/long/hunts.txt", r.Name)
			continue
		}
		if !slices.Equal(got, r.Args) {
			t.Errorf("%s: hunt.sh runs %q, the campaign ran %q", r.Name, got, r.Args)
		}
	}
	if n == 0 {
		t.Fatal("no campaign of the hunt in results/long/campaigns.jsonl")
	}
}

// TestLongTablesFollowTheData: a campaign collected from its folder shows
// in its group's table with its verdicts, rate and failing checks, and
// collecting it again replaces its row.
func TestLongTablesFollowTheData(t *testing.T) {
	dir := t.TempDir()
	camp := filepath.Join(dir, "run", "fixed-h9-x-pct")
	if err := os.MkdirAll(camp, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, s string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(camp, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("campaign.json", `{"args":["--scenario","h9","--seeds","10","--strategy","pct","--buggify","on","--out","/abs/fixed-h9-x-pct"],
		"scenarios":[{"scenario":"h9","first_seed":7,"seeds":10}],"variants":"fixed","strategy":"pct","planned_seeds":10}`)
	summary := `{"command":"simrun run --scenario h9 --out /abs/fixed-h9-x-pct","planned_seeds":10,"seeds":10,"parallel":2,
		"verdicts":{"pass":PASS,"safety":SAFETY},"wall_ns":3600000000000,
		"failures":[{"scenario":"h9","seed":9,"verdict":"safety","violation":"long text","checks":["deadlock","checkpoint-progress"]}]}`
	write("summary.json", strings.NewReplacer("PASS", "9", "SAFETY", "1").Replace(summary))
	if err := os.MkdirAll(filepath.Join(dir, "results", "long"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := collectLong(dir, "fixed5000", "abc1234", nil, []string{camp}); err != nil {
		t.Fatal(err)
	}
	got, err := longTables(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := "| `fixed-h9-x-pct` | h9 | fixed | pct | on | 7 | 10 | 9 | 1 | 0 | 0 | 0 | 5 | `abc1234` | checkpoint-progress 1, deadlock 1; seeds 9 |"
	if !strings.Contains(got, want) || !strings.Contains(got, "### The fixed design, 5 000 seeds") {
		t.Errorf("tables lack\n%s\ngot:\n%s", want, got)
	}
	b, _ := os.ReadFile(filepath.Join(dir, longData))
	if strings.Contains(string(b), "/abs") || strings.Contains(string(b), "long text") {
		t.Errorf("campaigns.jsonl keeps a machine path or a violation's text:\n%s", b)
	}
	write("summary.json", strings.NewReplacer("PASS", "10", "SAFETY", "0").Replace(summary))
	if err := collectLong(dir, "fixed5000", "abc1234", []string{"fixed-h9-x-pct"}, []string{camp}); err != nil {
		t.Fatal(err)
	}
	runs, err := readLong(dir)
	if err != nil || len(runs) != 1 || runs[0].Verdicts["pass"] != 10 || !runs[0].Paused {
		t.Errorf("collected again: %+v, %v; want one row, 10 passes, paused", runs, err)
	}
	if got, _ := longTables(dir); !strings.Contains(got, "| 10 | 10 | 0 | 0 | 0 | 0 | paused |") {
		t.Errorf("a paused campaign's rate is not \"paused\":\n%s", got)
	}
	if err := collectLong(dir, "nosuch", "abc1234", nil, []string{camp}); err == nil {
		t.Error("-collect into an unknown group succeeded")
	}
}

// TestHazardCommitFollowsTheData: the hazard figure names the commit
// results/hazards.json's rows record (cmd/hazards writes one per row),
// each commit once when -only runs merged rows of several, and falls back
// to HISTORY.md for rows without one.
func TestHazardCommitFollowsTheData(t *testing.T) {
	dir := copyResults(t)
	hj := filepath.Join(dir, "results", "hazards.json")
	b, err := os.ReadFile(hj)
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(b, &rows); err != nil {
		t.Fatal(err)
	}
	set := func(commit func(i int) string) string {
		t.Helper()
		for i, r := range rows {
			if c := commit(i); c != "" {
				r["commit"] = c
			} else {
				delete(r, "commit")
			}
		}
		b, _ := json.Marshal(rows)
		if err := os.WriteFile(hj, b, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := figures(dir)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if out := set(func(int) string { return "" }); !strings.Contains(out, "(the run is dated in [`HISTORY.md`]") {
		t.Errorf("rows without a commit: the figure does not point at HISTORY.md:\n%s", out)
	}
	if out := set(func(int) string { return "0123456789ab" }); !strings.Contains(out, "; commit `0123456789ab`</sub>") {
		t.Errorf("rows at one commit: the figure does not name it:\n%s", out)
	}
	out := set(func(i int) string {
		switch {
		case i == 0:
			return ""
		case i < 5:
			return "0123456789ab"
		}
		return "ba9876543210-dirty"
	})
	for _, want := range []string{"2 commits (rows measured with -only): `0123456789ab`, `ba9876543210-dirty`; 1 row not recorded"} {
		if !strings.Contains(out, want) {
			t.Errorf("rows at two commits: the figure lacks %q:\n%s", want, out)
		}
	}
}

// TestRootFiguresFollowTheData: README.md's block changes with its data
// files (the refresher's counts, the campaign's seeds), and a data file
// without the figure's result is an error naming it, never a figure left
// as it was.
func TestRootFiguresFollowTheData(t *testing.T) {
	dir := copyResults(t)
	before, err := readmeFigures(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"caught in **16 of 100 seeds**", "**1225 seeds**", "[`results/refresher/caught.txt`](results/refresher/caught.txt)",
		"took **25 minutes**", "`c1786a0bb6ca`"} {
		if !strings.Contains(before, want) {
			t.Fatalf("figures lack %q (the committed data changed? then change this test):\n%s", want, before)
		}
	}
	edit := func(name, old, new string) {
		t.Helper()
		p := filepath.Join(dir, "results", name)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), old) {
			t.Fatalf("%s lacks %q", name, old)
		}
		os.WriteFile(p, []byte(strings.ReplaceAll(string(b), old, new)), 0o644)
	}
	edit("refresher/caught.txt", "strategy=random 1 16 caught", "strategy=random 1 17 caught")
	edit("campaign/default-cost.txt", " 1225 seeds ", " 600 seeds ")
	edit("mutants/default-campaign.json", `"median_cpu_s": 2.906607`, `"median_cpu_s": 12.5`)
	after, err := readmeFigures(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"caught in **17 of 100 seeds**", "**600 seeds**", "median **12.50**"} {
		if !strings.Contains(after, want) {
			t.Errorf("after the change the figures lack %q:\n%s", want, after)
		}
	}
	edit("bench/floor.txt", "BenchmarkTimerFloor/sleep=nanosleep", "BenchmarkTimerFloor/sleep=other")
	if _, err := readmeFigures(dir); err == nil || !strings.Contains(err.Error(), "TimerFloor/sleep=nanosleep") {
		t.Errorf("figures without the nanosleep runs: err %v, want one naming TimerFloor/sleep=nanosleep", err)
	}
}

// TestTriggerOnOneP: runs of BenchmarkTriggerPrecise named without a
// GOMAXPROCS suffix (GOMAXPROCS 1, bench/side.sh -cpu 1) get columns of
// their own, apart from the machine's Ps, in both the p50 and the CPU
// table.
func TestTriggerOnOneP(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"bench/trigger-precise.txt": `command: bench/side.sh -cpu 0,1
commit: abc1234
peer: go
BenchmarkTriggerPrecise/design=shared-inline/pipelines=10-2 1000 900000 cpu-ns/op 4000 p50-ns
BenchmarkTriggerPrecise/design=shared-inline/pipelines=10 1000 300000 cpu-ns/op 3000 p50-ns
BenchmarkTriggerPrecise/design=shared-inline/pipelines=10-2 1000 1100000 cpu-ns/op 6000 p50-ns
BenchmarkTriggerPrecise/design=shared/pipelines=10-2 1000 500000 cpu-ns/op 70000 p50-ns
BenchmarkTriggerPrecise/design=shared/pipelines=10 1000 350000 cpu-ns/op 25000 p50-ns
`,
		"bench/trigger-jdk.txt": `command: bench/side.sh -cpu 0,1
commit: abc1234
peer: jdk
BenchmarkTrigger/design=shared-inline/pipelines=10-2 1000 400000 cpu-ns/op 300000 p50-ns
`,
	}
	for p, s := range files {
		out := filepath.Join(dir, "results", p)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(out, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var b strings.Builder
	if err := triggerP50(&b, dir); err != nil {
		t.Fatal(err)
	}
	if err := triggerSummary(&b, dir); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"| design | Go 10 | Go 100 | Go 500 | Go, 1 P, 10 | Go, 1 P, 100 | Go, 1 P, 500 | JDK 10 | JDK 100 | JDK 500 |",
		// p50: the upper median of 4.0 and 6.0 on two Ps, 3.0 on one
		"| shared-inline | 6.0 µs | – | – | 3.0 µs | – | – | 300 µs | – | – |",
		"| shared-inline | 1.1 ms | – | – | 300 µs | – | – | 400 µs | – | – |",
		"on the machine's Ps and on one (GOMAXPROCS 1)",
		// README's summary: the machine's Ps alone, then one P
		"**6.0 µs** with the per-pipeline, shared-inline and leader-follower designs",
		"70 µs with shared (a timer thread hands each task to a dispatcher thread), against 300 µs for the JDK peer; 0.50-1.10 ms of process CPU per firing (the JDK peer's: 0.40 ms). On one P (GOMAXPROCS 1), the same runs: **3.0 µs**, 25 µs with shared, 0.30-0.35 ms of CPU per firing.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("figures lack\n%s\ngot:\n%s", want, out)
		}
	}
}

// TestAreaIndexFollowsTheFolder: an area's README lists every file of its
// folder with the header the file carries, and a new file makes the
// committed README stale.
func TestAreaIndexFollowsTheFolder(t *testing.T) {
	dir := t.TempDir()
	area := filepath.Join(dir, "results", "x")
	files := map[string]string{
		"README.md": "# X\n\n" + beginMarker + "\n" + endMarker + "\n",
		"run.sh":    "#!/bin/sh\n# run.sh OUT: measures x. More words.\n# Second line.\nset -eu\n",
		"x.txt":     "command: results/x/run.sh x.txt\ncommit: abc1234\ndate: 2026-12-06T00:00Z\nBenchmarkX 1 2 ns/op\nBenchmarkX 1 3 ns/op\n",
		"sub/a.png": "png",
		"s.yaml":    "name: s\ndescription: \"Shrunk from y, seed 3 (safety). More.\"\n",
		".hidden":   "x",
	}
	for p, s := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(area, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(area, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := areaIndex(dir, "results/x")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| [`run.sh`](run.sh) | run.sh OUT: measures x. |  |  |",
		"| [`s.yaml`](s.yaml) | Shrunk from y, seed 3 (safety). |  |  |",
		"| [`sub/a.png`](sub/a.png) | screenshot |  |  |",
		"| [`x.txt`](x.txt) | 2 results in the Go benchmark format | `results/x/run.sh x.txt` | `abc1234`, 2026-12-06T00:00Z |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("index lacks\n%s\ngot:\n%s", want, got)
		}
	}
	if strings.Contains(got, "hidden") || strings.Contains(got, "README.md`]") {
		t.Errorf("index lists a dot file or the README itself:\n%s", got)
	}
}
