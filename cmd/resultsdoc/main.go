// Command resultsdoc writes the figures blocks of results/README.md and of
// the repository's README.md (between <!-- figures:begin --> and
// <!-- figures:end -->) from the committed data files: the benchmark results
// of results/bench (Go benchmark format, read with
// golang.org/x/perf/benchfmt), results/campaign/default-cost.txt and
// results/refresher/caught.txt (the same format), results/mutants.json,
// results/hazards.json, the front matter of the findings ledger's entries,
// the coverage report and the embedded scenarios. Each figure names the file
// it came from and that file's command and commit lines, so no figure in
// either block is typed by hand; README.md's prose quotes none and points at
// its block. It also renders the tables of results/long/README.md from
// results/long/campaigns.jsonl (one line per long campaign, put there with
// -collect) and, in the README of each area without a command of its own
// (areas), an index of the folder's files with the command and commit each
// records. It prints each page it rendered and whether it changed.
//
//	go run ./cmd/resultsdoc          # rewrite the blocks (make results)
//	go run ./cmd/resultsdoc -check   # exit 1 when a committed block is stale
//	go run ./cmd/resultsdoc -collect GROUP -built COMMIT DIR...   # campaign folders into campaigns.jsonl
//
// go test ./cmd/resultsdoc fails while a committed block differs from what
// this command writes.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ckptsim/ckptsim/workloads/campaign"
	"golang.org/x/perf/benchfmt"
)

const (
	beginMarker = "<!-- figures:begin -->"
	endMarker   = "<!-- figures:end -->"
	readme      = "results/README.md"
)

// doc is a page with a figures block and what renders it.
type doc struct {
	path   string
	render func(root string) (string, error)
}

var docs = []doc{{readme, figures}, {rootReadme, readmeFigures}, {longReadme, longTables}}

func main() {
	root := flag.String("root", ".", "the repository's root")
	check := flag.Bool("check", false, "only check that the figures blocks of the pages are current (exit 1 if not)")
	collect := flag.String("collect", "", "put the campaign folders named as arguments into "+longData+" under this group (then render)")
	built := flag.String("built", "", "with -collect: the commit the campaigns' simrun binary was built from")
	paused := flag.String("paused", "", "with -collect: the campaigns (comma-separated names) stopped with SIGSTOP for a while, whose wall time gives no rate")
	flag.Parse()
	if *collect != "" {
		if *built == "" || flag.NArg() == 0 {
			fail(errors.New("-collect GROUP needs -built COMMIT and campaign folders"))
		}
		if err := collectLong(*root, *collect, *built, strings.Split(*paused, ","), flag.Args()); err != nil {
			fail(err)
		}
		fmt.Printf("resultsdoc: %s: %d campaigns of %s collected\n", longData, flag.NArg(), *collect)
	}
	stale := false
	for _, d := range docs {
		path := filepath.Join(*root, d.path)
		old, doc, err := rendered(*root, d)
		if err != nil {
			fail(err)
		}
		switch {
		case doc == old:
			if !*check {
				fmt.Printf("resultsdoc: %s: unchanged\n", d.path)
			}
		case *check:
			fmt.Fprintf(os.Stderr, "resultsdoc: %s: the figures block is stale; run go run ./cmd/resultsdoc (make results)\n", path)
			stale = true
		default:
			if err := campaign.WriteFile(path, []byte(doc)); err != nil {
				fail(err)
			}
			fmt.Printf("resultsdoc: %s: written, %s\n", d.path, changedLines(old, doc))
		}
	}
	if stale {
		os.Exit(1)
	}
}

// changedLines says which lines of old the new page replaced, and with
// how many.
func changedLines(old, doc string) string {
	a, b := strings.Split(old, "\n"), strings.Split(doc, "\n")
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	removed, added := len(a)-pre-suf, len(b)-pre-suf
	if removed == 0 {
		return fmt.Sprintf("%d lines added after line %d", added, pre)
	}
	return fmt.Sprintf("lines %d-%d (%d) replaced by %d lines", pre+1, pre+removed, removed, added)
}

// rendered is d's page as committed and with its block rendered afresh.
func rendered(root string, d doc) (old, doc string, err error) {
	path := filepath.Join(root, d.path)
	b, err := os.ReadFile(path)
	if err != nil {
		return "", "", err
	}
	block, err := d.render(root)
	if err != nil {
		return "", "", err
	}
	doc, err = splice(string(b), block)
	if err != nil {
		return "", "", fmt.Errorf("%s: %w", path, err)
	}
	return string(b), doc, nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "resultsdoc:", err)
	os.Exit(1)
}

// splice replaces what lies between the markers (the markers' lines
// included) with block.
func splice(doc, block string) (string, error) {
	i := strings.Index(doc, beginMarker)
	j := strings.Index(doc, endMarker)
	if i < 0 || j < i {
		return "", errors.New("no " + beginMarker + " ... " + endMarker + " block")
	}
	return doc[:i] + block + doc[j+len(endMarker):], nil
}

// figures renders the whole block, markers included.
func figures(root string) (string, error) {
	var b strings.Builder
	b.WriteString(beginMarker + "\n")
	b.WriteString("<!-- Generated by go run ./cmd/resultsdoc (make results) from the files named under each figure; do not edit. -->\n\n")
	for _, f := range []func(*strings.Builder, string) error{simSpeed, triggerP50, mutationScore, findingCost, defaultDetection, hazardRows, findingsCounts, coverage} {
		if err := f(&b, root); err != nil {
			return "", err
		}
	}
	b.WriteString(endMarker)
	return b.String(), nil
}

// source is the line under a figure: the file, its command and its commit
// (both already in Markdown: code spans made by code).
func source(b *strings.Builder, file, command, commit string) {
	fmt.Fprintf(b, "  <sub>from [`%s`](%s): command %s; commit %s</sub>\n\n", file, file, command, commit)
}

// code is s as a Markdown code span.
func code(s string) string { return "`" + s + "`" }

// benchFile is one results/bench file: its header lines and its results.
type benchFile struct {
	name            string // relative to results/
	command, commit string
	date            string
	machine         string                          // the machine: line (bench/header.sh)
	vals            map[string]map[string][]float64 // benchmark full name -> unit -> values
	// one holds the runs named without a GOMAXPROCS suffix, which go test
	// gives a benchmark run at GOMAXPROCS 1 (bench/side.sh -cpu 1), many
	// the others; vals holds both.
	one, many map[string]map[string][]float64
}

func readBench(root, name string) (*benchFile, error) {
	path := filepath.Join(root, "results", name)
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	bf := &benchFile{name: name, vals: map[string]map[string][]float64{}, one: map[string]map[string][]float64{}, many: map[string]map[string][]float64{}}
	r := benchfmt.NewReader(f, path)
	for r.Scan() {
		res, ok := r.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		bf.command, bf.commit, bf.date = res.GetConfig("command"), res.GetConfig("commit"), res.GetConfig("date")
		bf.machine = res.GetConfig("machine")
		full := nameOf(res.Name)
		by := bf.many
		if _, gmp := res.Name.Parts(); len(gmp) == 0 || !bytes.HasPrefix(gmp[len(gmp)-1], []byte("-")) {
			by = bf.one
		}
		for _, into := range []map[string]map[string][]float64{bf.vals, by} {
			m := into[full]
			if m == nil {
				m = map[string][]float64{}
				into[full] = m
			}
			for _, v := range res.Values {
				u, x := v.OrigUnit, v.OrigValue
				if u == "" {
					u, x = v.Unit, v.Value
				}
				m[u] = append(m[u], x)
			}
		}
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	if bf.command == "" || bf.commit == "" {
		return nil, fmt.Errorf("%s: no command: or commit: line", path)
	}
	return bf, nil
}

// median is the median bench/cmd/plot's tables use (the upper one of an
// even count), so the figures here match results/bench/tables.md.
func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	v = slices.Clone(v)
	slices.Sort(v)
	return v[len(v)/2]
}

// nameOf is a benchmark's name without its GOMAXPROCS suffix
// ("Sim/pipelines=500" for "BenchmarkSim/pipelines=500-2").
func nameOf(n benchfmt.Name) string {
	base, parts := n.Parts()
	var b strings.Builder
	b.Write(base)
	for _, p := range parts {
		if !bytes.HasPrefix(p, []byte("-")) {
			b.Write(p)
		}
	}
	return b.String()
}

func (bf *benchFile) get(full, unit string) ([]float64, error) {
	v := bf.vals[full][unit]
	if len(v) == 0 {
		return nil, fmt.Errorf("results/%s: no %s %s", bf.name, full, unit)
	}
	return v, nil
}

// getAll is get for several units of one benchmark, in their order.
func (bf *benchFile) getAll(full string, units ...string) ([][]float64, error) {
	out := make([][]float64, len(units))
	for i, u := range units {
		v, err := bf.get(full, u)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// simSpeed quotes the simulator's speed first as a ratio to a peer
// measured in the same process (sim.World against testing/synctest on the
// timed-wake workload), which another machine can check, and then
// BenchmarkSim's x real time as a figure of the machine it ran on.
func simSpeed(b *strings.Builder, root string) error {
	tw, err := readBench(root, "bench/timedwake.txt")
	if err != nil {
		return err
	}
	r500, err := tw.getAll("TimedWakeRatio/threads=500", "cpu-synctest/sim", "synctest/sim", "sim-cpu-ns/wake", "synctest-cpu-ns/wake")
	if err != nil {
		return err
	}
	cpu500, wall500, simNs, stNs := r500[0], r500[1], r500[2], r500[3]
	var fewer []string
	for _, n := range []string{"10", "100"} {
		v, err := tw.get("TimedWakeRatio/threads="+n, "cpu-synctest/sim")
		if err != nil {
			return err
		}
		fewer = append(fewer, fmt.Sprintf("%.1fx", median(v)))
	}
	fmt.Fprintf(b, "- **Simulator speed against a peer** (`BenchmarkTimedWakeRatio`: N threads, each waking every 10 ms of virtual time and taking one lock, "+
		"on `sim.World` and in a `testing/synctest` bubble, the two arms alternating in one process): at 500 threads `sim.World` spends "+
		"**%.1fx less CPU per wake** than synctest (median of %d; %.1f-%.1f; %.0f against %.0f ns), %.1fx less real time; %s and %s less CPU at 10 and 100 threads. "+
		"A ratio of two arms run side by side; synctest's arm moves with the host far more than sim's, and on one P synctest is the cheaper "+
		"([`bench/experiments/`](bench/experiments/README.md#synctest-modes), synctest-modes).\n",
		median(cpu500), len(cpu500), slices.Min(cpu500), slices.Max(cpu500), median(simNs), median(stNs), median(wall500), fewer[0], fewer[1])
	source(b, "bench/timedwake.txt", code(tw.command), code(tw.commit)+", "+tw.date)

	bf, err := readBench(root, "bench/sim.txt")
	if err != nil {
		return err
	}
	const full = "Sim/pipelines=500"
	v, err := bf.getAll(full, "sim-s/s", "steps/s", "steps/op", "allocs/step")
	if err != nil {
		return err
	}
	x, steps, perOp, allocs := v[0], v[1], v[2], v[3]
	on := "the machine it ran on"
	if bf.machine != "" {
		on = bf.machine
	}
	fmt.Fprintf(b, "- **Simulator speed on one machine** (`BenchmarkSim/pipelines=500`: 500 pipelines, a step-down and a savepoint, 2 virtual minutes): "+
		"**%.0f x real time** (median of %d; %.0f-%.0f), %.2f M scheduling points/s, %.0f points per run, %.3f allocations per point, on %s: "+
		"a figure of that machine as much as of the simulator.\n",
		median(x), len(x), slices.Min(x), slices.Max(x), median(steps)/1e6, median(perOp), median(allocs), on)
	source(b, "bench/sim.txt", code(bf.command), code(bf.commit)+", "+bf.date)
	return nil
}

var designs = []string{"per-pipeline", "shared", "shared-inline", "leader-follower"}

func micro(ns float64) string {
	if ns >= 1e6 {
		return fmt.Sprintf("%.1f ms", ns/1e6)
	}
	if ns >= 1e4 {
		return fmt.Sprintf("%.0f µs", ns/1e3)
	}
	return fmt.Sprintf("%.1f µs", ns/1e3)
}

func triggerP50(b *strings.Builder, root string) error {
	goSide, err := readBench(root, "bench/trigger-precise.txt")
	if err != nil {
		return err
	}
	jdk, err := readBench(root, "bench/trigger-jdk.txt")
	if err != nil {
		return err
	}
	type side struct {
		label string
		vals  map[string]map[string][]float64
		base  string
	}
	sides := []side{{"Go", goSide.many, "TriggerPrecise"}}
	if len(goSide.one) > 0 { // the default env also run on one P (make bench: bench/side.sh -cpu 0,1)
		sides = append(sides, side{"Go, 1 P,", goSide.one, "TriggerPrecise"})
	}
	sides = append(sides, side{"JDK", jdk.vals, "Trigger"})
	pipelines := []string{"10", "100", "500"}
	table := func(unit string) {
		b.WriteString("  | design |")
		for _, sd := range sides {
			for _, p := range pipelines {
				fmt.Fprintf(b, " %s %s |", sd.label, p)
			}
		}
		b.WriteString("\n  |---|" + strings.Repeat("---|", len(sides)*len(pipelines)) + "\n")
		for _, d := range designs {
			fmt.Fprintf(b, "  | %s |", d)
			for _, sd := range sides {
				for _, p := range pipelines {
					if v := sd.vals[sd.base+"/design="+d+"/pipelines="+p][unit]; len(v) > 0 {
						fmt.Fprintf(b, " %s |", micro(median(v)))
					} else {
						b.WriteString(" – |")
					}
				}
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	onOne := ""
	if len(goSide.one) > 0 {
		onOne = ", on the machine's Ps and on one (GOMAXPROCS 1)"
	}
	b.WriteString("- **Trigger delay p50 per design** (from the intended schedule; the default env `env.Default()`, " +
		"`BenchmarkTriggerPrecise`" + onOne + ", beside the JDK peer; median over rounds):\n\n")
	table("p50-ns")
	b.WriteString("- **Process CPU per firing**, the same runs (user + system over the measured firings; a host that stops the virtual machine charges the stopped time as CPU: [experiments](bench/experiments/README.md#stalls), stalls):\n\n")
	table("cpu-ns/op")
	source(b, "bench/trigger-precise.txt", code(goSide.command), code(goSide.commit)+", "+goSide.date)
	source(b, "bench/trigger-jdk.txt", code(jdk.command), code(jdk.commit)+", "+jdk.date)
	return nil
}

// mutantsReport is the part of results/mutants.json (cmd/mutants' Report)
// read here.
type mutantsReport struct {
	Command string `json:"command"`
	Commit  string `json:"commit"`
	Date    string `json:"date"`
	Results []struct {
		Mutant struct {
			Check      string `json:"check"`
			Equivalent string `json:"equivalent_at_boundary"`
		} `json:"mutant"`
		Pending  bool   `json:"pending"`
		Error    string `json:"error"`
		Detected bool   `json:"detected"`
		Control  string `json:"control"` // "passes": the unpatched tree passed the detecting seed
	} `json:"results"`
}

// runs splits a field that lists several runs ("a`, then `b" in the
// command, "a` then `b" in the commit) into its runs.
func runs(s, sep string) []string {
	return strings.Split(s, sep)
}

func mutationScore(b *strings.Builder, root string) error {
	var rep mutantsReport
	if err := readJSON(root, "mutants.json", &rep); err != nil {
		return err
	}
	found, landed, uncontrolled, equivalent := 0, 0, 0, 0
	checks := map[string]bool{}
	for _, r := range rep.Results {
		if r.Pending {
			continue
		}
		if !r.Detected && r.Error == "" && r.Control != "fails" && r.Mutant.Equivalent != "" {
			equivalent++ // cmd/mutants' "equivalent" row: not counted, as in mutants.md's score
			continue
		}
		landed++
		switch {
		case r.Detected && r.Error == "" && r.Control == "passes":
			found++
			checks[r.Mutant.Check] = true
		case r.Detected && r.Error == "" && r.Control == "":
			uncontrolled++ // measured before controls: not counted
		}
	}
	fmt.Fprintf(b, "- **Mutation score of the harness**: **%d of %d** planted bugs found by the check they name on a seed the unpatched tree passes (the control), over %d distinct checks",
		found, landed, len(checks))
	if uncontrolled > 0 {
		fmt.Fprintf(b, "; %d more fired their check in runs made before controls existed and are not counted until `make mutants` measures them again", uncontrolled)
	}
	if equivalent > 0 {
		fmt.Fprintf(b, "; %d more, not found, change nothing a check can see by their header's argument (equivalent at the boundary, not counted)", equivalent)
	}
	b.WriteString(".\n")
	cmds, commits := runs(rep.Command, "`, then `"), runs(rep.Commit, "` then `")
	command := code(cmds[0])
	if len(cmds) > 1 {
		command += fmt.Sprintf(" then %d more runs, each with `-only` (listed in the header of [`mutants.md`](mutants.md))", len(cmds)-1)
	}
	commit := code(commits[0])
	if len(commits) > 1 {
		commit = fmt.Sprintf("`%s` (the first) to `%s` (the last), %d commit entries", commits[0], commits[len(commits)-1], len(commits))
	}
	source(b, "mutants.json", command, commit)
	return nil
}

// findingCost is what a user pays to find a bug: the default campaign's
// seeds per CPU-second (results/campaign/default-cost.txt) and, per planted
// bug found with a passing control, the wall seconds of the campaign that
// found it (mutants.json: the random walk's when it found the bug, else
// PCT's), summed and at the median.
func findingCost(b *strings.Builder, root string) error {
	bf, err := readBench(root, "campaign/default-cost.txt")
	if err != nil {
		return err
	}
	get := func(unit string) (float64, error) {
		v, err := bf.get("DefaultCampaign", unit)
		if err != nil {
			return 0, err
		}
		return median(v), nil
	}
	seeds, err := get("seeds")
	if err != nil {
		return err
	}
	cpu, err := get("cpu-s")
	if err != nil {
		return err
	}
	rate, err := get("seeds/cpu-s")
	if err != nil {
		return err
	}
	var rep struct {
		Command string `json:"command"`
		Commit  string `json:"commit"`
		Results []struct {
			Detected  bool   `json:"detected"`
			Control   string `json:"control"`
			Campaigns []struct {
				Strategy string  `json:"strategy"`
				Found    int     `json:"seeds_to_detection"`
				WallS    float64 `json:"wall_s"`
				CPUS     float64 `json:"cpu_s"`
			} `json:"campaigns"`
		} `json:"results"`
	}
	if err := readJSON(root, "mutants.json", &rep); err != nil {
		return err
	}
	var walls, cpus []float64
	for _, r := range rep.Results {
		if !r.Detected || r.Control != "passes" {
			continue
		}
		for _, c := range r.Campaigns { // the first strategy that found it, in the order the run measured them
			if c.Found > 0 {
				walls = append(walls, c.WallS)
				if c.CPUS > 0 {
					cpus = append(cpus, c.CPUS)
				}
				break
			}
		}
	}
	fmt.Fprintf(b, "- **What finding a bug costs**: the default campaign runs **%.1f seeds per CPU-second** (%.0f seeds in %.1f CPU-s, user + sys)", rate, seeds, cpu)
	switch {
	case len(walls) > 0 && len(cpus) == len(walls):
		fmt.Fprintf(b, "; a planted bug is found (with its control) after **%.1f CPU-s** at the median, %.0f CPU-s for all %d together (the mutant's simrun process up to its detecting seed, user + sys)",
			median(cpus), sum(cpus), len(cpus))
	case len(walls) > 0:
		fmt.Fprintf(b, "; a planted bug is found (with its control) after **%.1f s** of wall time at the median, %.0f s for all %d together (the detecting campaign's wall time, on the cores the mutants run shared: this run of cmd/mutants kept no CPU time)",
			median(walls), sum(walls), len(walls))
	}
	b.WriteString(".\n")
	source(b, "campaign/default-cost.txt", code(bf.command), code(bf.commit)+", "+bf.date)
	source(b, "mutants.json", code(runs(rep.Command, "`, then `")[0]), code(runs(rep.Commit, "` then `")[0]))
	return nil
}

// hazardResult is the part of one results/hazards.json row read here.
type hazardResult struct {
	Hazard struct {
		ID       string `json:"ID"`
		Scenario string `json:"Scenario"`
	} `json:"Hazard"`
	Detect     map[string][]int `json:"Detect"`
	FixedSeeds int              `json:"FixedSeeds"`
	FixedPass  int              `json:"FixedPass"`
	Commit     string           `json:"commit"` // "" in rows measured before cmd/hazards recorded it
}

func hazardRows(b *strings.Builder, root string) error {
	var rs []hazardResult
	if err := readJSON(root, "hazards.json", &rs); err != nil {
		return err
	}
	scenarios, detected, fixedSeeds, fixedPass := 0, 0, 0, 0
	for _, r := range rs {
		if r.Hazard.Scenario == "" {
			continue
		}
		scenarios++
		found := false
		for _, d := range r.Detect {
			for _, n := range d {
				found = found || n > 0
			}
		}
		if found {
			detected++
		}
		fixedSeeds += r.FixedSeeds
		fixedPass += r.FixedPass
	}
	fmt.Fprintf(b, "- **Hazard catalog**: %d rows (%d with a run-time scenario, %d of them found by a check they name); "+
		"the fixed design passes %d of %d seeds of those scenarios.\n", len(rs), scenarios, detected, fixedPass, fixedSeeds)
	command, err := generatedBy(filepath.Join(root, "results", "hazards.md"))
	if err != nil {
		return err
	}
	source(b, "hazards.json", code(command), hazardCommits(rs))
	return nil
}

// hazardCommits is the commit of the measured rows: one, the commits in
// row order when -only runs merged rows of several, or, for rows measured
// before cmd/hazards recorded it, a pointer to HISTORY.md.
func hazardCommits(rs []hazardResult) string {
	var commits []string
	unrecorded := 0
	for _, r := range rs {
		switch {
		case r.Hazard.Scenario == "":
		case r.Commit == "":
			unrecorded++
		case !slices.Contains(commits, r.Commit):
			commits = append(commits, r.Commit)
		}
	}
	const history = "not recorded in the file (the run is dated in [`HISTORY.md`](HISTORY.md))"
	if len(commits) == 0 {
		return history
	}
	var parts []string
	for _, c := range commits {
		parts = append(parts, code(c))
	}
	s := strings.Join(parts, ", ")
	if len(commits) > 1 {
		s = fmt.Sprintf("%d commits (rows measured with -only): %s", len(commits), s)
	}
	if unrecorded > 0 {
		rows := "rows"
		if unrecorded == 1 {
			rows = "row"
		}
		s += fmt.Sprintf("; %d %s %s", unrecorded, rows, history)
	}
	return s
}

// generatedBy is the command of a generated file's "Generated by `...`" line.
func generatedBy(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	_, rest, ok := strings.Cut(string(b), "Generated by `")
	if !ok {
		return "", fmt.Errorf("%s: no \"Generated by `...`\" line", path)
	}
	cmd, _, ok := strings.Cut(rest, "`")
	if !ok {
		return "", fmt.Errorf("%s: an unterminated command", path)
	}
	return cmd, nil
}

var verdicts = []string{"PRESENT", "ABSENT", "PORT-ONLY", "UNCLEAR"}

func findingsCounts(b *strings.Builder, root string) error {
	paths, err := filepath.Glob(filepath.Join(root, "results", "findings", "F[0-9]*.md"))
	if err != nil {
		return err
	}
	count := map[string]int{}
	for _, p := range paths {
		v, err := frontMatter(p, "verdict")
		if err != nil {
			return err
		}
		if !slices.Contains(verdicts, v) {
			return fmt.Errorf("%s: verdict %q is none of %v", p, v, verdicts)
		}
		count[v]++
	}
	if len(paths) == 0 {
		return errors.New("results/findings: no F*.md entries")
	}
	fmt.Fprintf(b, "- **Findings ledger**: %d bugs fixed in `core/`; can the same sequence happen in Apache SeaTunnel Zeta:", len(paths))
	for i, v := range verdicts {
		sep := ","
		if i == 0 {
			sep = ""
		}
		fmt.Fprintf(b, "%s %s %d", sep, v, count[v])
	}
	b.WriteString(".\n")
	fmt.Fprintf(b, "  <sub>from the front matter of [`findings/F*.md`](findings/README.md): command `go run ./cmd/findings` "+
		"(renders the index); commit: not recorded in the files (each entry names its fix commit)</sub>\n\n")
	return nil
}

// frontMatter is the value of key in a ledger entry's front matter.
func frontMatter(path, key string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	if !sc.Scan() || sc.Text() != "---" {
		return "", fmt.Errorf("%s: no front matter", path)
	}
	for sc.Scan() && sc.Text() != "---" {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && k == key {
			return strings.TrimSpace(v), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("%s: no %s: in the front matter", path, key)
}

func coverage(b *strings.Builder, root string) error {
	path := filepath.Join(root, "results", "coverage", "README.md")
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var commit, all, coord, runnable string
	for _, l := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(l, "Of the **"):
			// "Of the **N** statements a simulation of the shipped defaults
			// can run (...), the campaign reached **R (P%)**; ..."
			n, _, _ := strings.Cut(strings.TrimPrefix(l, "Of the **"), "**")
			_, r, _ := strings.Cut(l, "reached **")
			r, _, _ = strings.Cut(r, "**")
			if n != "" && r != "" {
				runnable = fmt.Sprintf("; of the %s statements a simulation of the shipped defaults can run (all but the wall-only and the variant-only ones), %s", n, r)
			}
		case strings.HasPrefix(l, "Commit `") && commit == "":
			c, _, _ := strings.Cut(strings.TrimPrefix(l, "Commit "), ". Commands")
			commit = c
		case strings.HasPrefix(l, "| all |"):
			all = l
		case strings.HasPrefix(l, "| `core/coord` |"):
			coord = l
		}
	}
	cell := func(row string, i int) (string, error) {
		cs := strings.Split(row, "|")
		if row == "" || i+1 >= len(cs) {
			return "", fmt.Errorf("%s: no such table row", path)
		}
		_, pct, ok := strings.Cut(strings.TrimSpace(cs[i+1]), "(")
		if !ok {
			return "", fmt.Errorf("%s: cell %q has no percentage", path, cs[i+1])
		}
		return strings.TrimSuffix(pct, ")"), nil
	}
	off, err := cell(all, 2)
	if err != nil {
		return err
	}
	on, err := cell(all, 3)
	if err != nil {
		return err
	}
	co, err := cell(coord, 3)
	if err != nil {
		return err
	}
	if commit == "" {
		return fmt.Errorf("%s: no Commit line", path)
	}
	fmt.Fprintf(b, "- **What the default campaign reaches in `core/`**: %s of the statements with BUGGIFY off, %s with it on; `core/coord` %s%s.\n",
		off, on, co, runnable)
	command, err := generatedBy(path)
	if err != nil {
		return err
	}
	source(b, "coverage/README.md", code(command), commit)
	return nil
}

func readJSON(root, name string, v any) error {
	path := filepath.Join(root, "results", name)
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func sum(xs []float64) float64 {
	t := 0.0
	for _, x := range xs {
		t += x
	}
	return t
}
