package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// longData is the file that holds one line per long campaign
// (results/long/README.md renders its tables from it): what each
// campaign's committed summary.json and campaign.json said, without the
// latency histograms and the violations' text.
const longData = "results/long/campaigns.jsonl"

// longReadme is the page of the long campaigns; its figures block is
// rendered by longTables.
const longReadme = "results/long/README.md"

// longRun is one line of results/long/campaigns.jsonl.
type longRun struct {
	Group       string         `json:"group"` // the table it is in (longGroups)
	Name        string         `json:"name"`  // its folder when it ran
	Built       string         `json:"built"` // the commit its simrun binary was built from
	Command     string         `json:"command"`
	Args        []string       `json:"args,omitempty"` // campaign.json's (what a resume runs)
	Scenario    string         `json:"scenario"`
	Variants    string         `json:"variants"`
	Strategy    string         `json:"strategy"`
	Buggify     bool           `json:"buggify,omitempty"`
	FirstSeed   int64          `json:"first_seed"`
	Planned     int            `json:"planned_seeds"`
	Seeds       int            `json:"seeds"`
	Interrupted bool           `json:"interrupted,omitempty"`
	Parallel    int            `json:"parallel"`
	Verdicts    map[string]int `json:"verdicts"`
	SimNs       int64          `json:"sim_ns"`
	WallNs      int64          `json:"wall_ns"`
	Paused      bool           `json:"paused,omitempty"` // stopped with SIGSTOP for a while: its wall time gives no rate
	Failures    []longFailure  `json:"failures,omitempty"`
}

type longFailure struct {
	Scenario string   `json:"scenario"`
	Seed     int64    `json:"seed"`
	Verdict  string   `json:"verdict"`
	Checks   []string `json:"checks,omitempty"`
}

// longGroups are the tables of results/long/README.md, in its order.
var longGroups = []struct{ id, title string }{
	{"swarm", "Swarm"},
	{"fixed1000", "The fixed design, 1 000 seeds per hazard scenario and strategy"},
	{"fixed5000", "The fixed design, 5 000 seeds per hazard scenario and detecting strategy"},
	{"timer-lead", "The timer's lead under the whole harness"},
	{"hunt", "The bug hunt of 2026-12-01"},
}

// collectLong reads the summary.json and campaign.json of each campaign
// folder in dirs and puts one line per campaign into results/long/
// campaigns.jsonl under root (replacing a line of the same group and name),
// in group and name order; those named in paused are marked so. Paths outside the repository in the commands
// (--out, merge's folders) are cut to their last element.
func collectLong(root, group, built string, paused, dirs []string) error {
	if !slices.ContainsFunc(longGroups, func(g struct{ id, title string }) bool { return g.id == group }) {
		return fmt.Errorf("-collect %q: not a group of %s (%v)", group, longData, longGroups)
	}
	runs, err := readLong(root)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	for _, dir := range dirs {
		r, err := readCampaign(dir)
		if err != nil {
			return err
		}
		r.Group, r.Built, r.Paused = group, built, slices.Contains(paused, r.Name)
		runs = slices.DeleteFunc(runs, func(o longRun) bool { return o.Group == r.Group && o.Name == r.Name })
		runs = append(runs, r)
	}
	order := func(g string) int {
		return slices.IndexFunc(longGroups, func(x struct{ id, title string }) bool { return x.id == g })
	}
	slices.SortStableFunc(runs, func(a, b longRun) int {
		if d := order(a.Group) - order(b.Group); d != 0 {
			return d
		}
		return strings.Compare(a.Name, b.Name)
	})
	var buf bytes.Buffer
	for _, r := range runs {
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	return os.WriteFile(filepath.Join(root, longData), buf.Bytes(), 0o644)
}

// readCampaign is one campaign folder as a longRun (group and built unset).
func readCampaign(dir string) (longRun, error) {
	var s struct {
		Command     string         `json:"command"`
		Interrupted bool           `json:"interrupted"`
		Planned     int            `json:"planned_seeds"`
		Seeds       int            `json:"seeds"`
		Parallel    int            `json:"parallel"`
		Verdicts    map[string]int `json:"verdicts"`
		SimNs       int64          `json:"sim_ns"`
		WallNs      int64          `json:"wall_ns"`
		Failures    []longFailure  `json:"failures"`
	}
	var c struct {
		Args      []string `json:"args"`
		Variants  string   `json:"variants"`
		Strategy  string   `json:"strategy"`
		Scenarios []struct {
			Scenario  string `json:"scenario"`
			FirstSeed int64  `json:"first_seed"`
		} `json:"scenarios"`
	}
	for name, v := range map[string]any{"summary.json": &s, "campaign.json": &c} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return longRun{}, err
		}
		if err := json.Unmarshal(b, v); err != nil {
			return longRun{}, fmt.Errorf("%s: %w", filepath.Join(dir, name), err)
		}
	}
	if len(c.Scenarios) != 1 {
		return longRun{}, fmt.Errorf("%s: %d scenarios, want 1", dir, len(c.Scenarios))
	}
	r := longRun{
		Name: filepath.Base(dir), Command: localPaths(s.Command), Scenario: c.Scenarios[0].Scenario,
		Variants: c.Variants, Strategy: c.Strategy, FirstSeed: c.Scenarios[0].FirstSeed,
		Planned: s.Planned, Seeds: s.Seeds, Interrupted: s.Interrupted, Parallel: s.Parallel,
		Verdicts: s.Verdicts, SimNs: s.SimNs, WallNs: s.WallNs, Failures: s.Failures,
	}
	if r.Strategy == "" {
		r.Strategy = "random"
	}
	for i, a := range c.Args {
		r.Args = append(r.Args, a)
		if i > 0 && c.Args[i-1] == "--out" {
			r.Args[i] = filepath.Base(a)
		}
		if i > 0 && c.Args[i-1] == "--buggify" && a == "on" {
			r.Buggify = true
		}
	}
	return r, nil
}

// localPaths cuts each absolute path in a command to its last element.
func localPaths(cmd string) string {
	f := strings.Fields(cmd)
	for i, w := range f {
		if filepath.IsAbs(w) {
			f[i] = filepath.Base(w)
		}
	}
	return strings.Join(f, " ")
}

// readLong reads results/long/campaigns.jsonl.
func readLong(root string) ([]longRun, error) {
	path := filepath.Join(root, longData)
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var runs []longRun
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for n := 1; sc.Scan(); n++ {
		var r longRun
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		runs = append(runs, r)
	}
	return runs, sc.Err()
}

// longTables renders results/long/README.md's block: one table per group
// of results/long/campaigns.jsonl.
func longTables(root string) (string, error) {
	runs, err := readLong(root)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(beginMarker + "\n")
	b.WriteString("<!-- Generated by go run ./cmd/resultsdoc (make results) from campaigns.jsonl; do not edit. -->\n\n")
	for _, g := range longGroups {
		var rows []longRun
		for _, r := range runs {
			if r.Group == g.id {
				rows = append(rows, r)
			}
		}
		if len(rows) == 0 {
			continue
		}
		fmt.Fprintf(&b, "### %s\n\n", g.title)
		b.WriteString("| campaign | scenario | variant | strategy | BUGGIFY | first seed | seeds run | pass | safety | liveness | crash | budget/unknown | seeds per core-hour | binary | failures (checks that fired) |\n")
		b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
		var tot [6]int
		for _, r := range rows {
			v := r.Verdicts
			run := fmt.Sprint(r.Seeds)
			if r.Seeds != r.Planned {
				run = fmt.Sprintf("%d of %d", r.Seeds, r.Planned)
				if r.Interrupted {
					run += " (interrupted; resumable)"
				}
			}
			rate := "paused"
			if !r.Paused && r.WallNs > 0 {
				rate = thousands(float64(r.Seeds) / (float64(r.WallNs) / 3.6e12) / float64(max(r.Parallel, 1)))
			}
			bug := "off"
			if r.Buggify {
				bug = "on"
			}
			vals := [6]int{r.Seeds, v["pass"], v["safety"], v["liveness"], v["crash"], v["budget"] + v["unknown"]}
			for i, x := range vals {
				tot[i] += x
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %d | %s | %d | %d | %d | %d | %d | %s | `%s` | %s |\n",
				r.Name, r.Scenario, r.Variants, r.Strategy, bug, r.FirstSeed, run, vals[1], vals[2], vals[3], vals[4], vals[5], rate, r.Built, failureCell(r.Failures))
		}
		fmt.Fprintf(&b, "| all %d | | | | | | %d | %d | %d | %d | %d | %d | | | |\n\n", len(rows), tot[0], tot[1], tot[2], tot[3], tot[4], tot[5])
	}
	b.WriteString(endMarker)
	return b.String(), nil
}

// failureCell is the checks that fired and how often, then the failing
// seeds when there are at most 8 (campaigns.jsonl has them all).
func failureCell(fs []longFailure) string {
	if len(fs) == 0 {
		return "-"
	}
	count := map[string]int{}
	for _, f := range fs {
		for _, c := range f.Checks {
			count[c]++
		}
	}
	var parts []string
	for _, c := range slices.Sorted(maps.Keys(count)) {
		parts = append(parts, fmt.Sprintf("%s %d", c, count[c]))
	}
	s := strings.Join(parts, ", ")
	if len(fs) <= 8 {
		var seeds []string
		for _, f := range fs {
			seeds = append(seeds, fmt.Sprint(f.Seed))
		}
		s += "; seeds " + strings.Join(seeds, ", ")
	} else {
		s += fmt.Sprintf("; %d seeds", len(fs))
	}
	return s
}

// thousands is x rounded, with commas between thousands.
func thousands(x float64) string {
	s := fmt.Sprintf("%.0f", x)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
