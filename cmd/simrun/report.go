package main

import (
	"cmp"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ckptsim/ckptsim/workloads"
)

// verdictOrder is the order verdict counts are shown in.
var verdictOrder = []workloads.Verdict{workloads.Pass, workloads.Safety, workloads.Liveness, workloads.Crash, workloads.Unknown,
	workloads.Budget}

// seedRef names one seed in a report.
type seedRef struct {
	Scenario  string            `json:"scenario"`
	Seed      uint64            `json:"seed"`
	Verdict   workloads.Verdict `json:"verdict"`
	WallNs    int64             `json:"wall_ns"`
	Violation string            `json:"violation,omitempty"`
	Checks    []string          `json:"checks,omitempty"` // ids of the checks that fired
	Replay    string            `json:"replay"`
	Swarm     map[string]string `json:"swarm,omitempty"`   // what a swarm seed ran with (workloads.SwarmFaults)
	Options   map[string]string `json:"options,omitempty"` // the design and options it drew (workloads.SwarmConfig)
	group     int
	variants  string
	Timeline  string `json:"-"` // the failing seed's timeline page, when written
}

// group is the report of one scenario (run) or one variant set (compare).
type group struct {
	Scenario   string               `json:"scenario"`
	Variants   string               `json:"variants,omitempty"`
	Profile    string               `json:"profile,omitempty"`  // the profile Variants were expanded from
	Label      string               `json:"label,omitempty"`    // a comparison's name for the column ("": Variants)
	Strategy   string               `json:"strategy,omitempty"` // the row's own strategy override (a default-campaign entry's)
	Buggify    string               `json:"buggify,omitempty"`  // the row's own BUGGIFY override (a default-campaign entry's)
	Seeds      int                  `json:"seeds"`
	Verdicts   map[string]int       `json:"verdicts"`
	SimNs      int64                `json:"sim_ns"`
	SeedWallNs int64                `json:"seed_wall_ns"`
	SimPerWall float64              `json:"sim_s_per_wall_s"` // simulated seconds per wall second of one worker
	Latency    map[string]distStats `json:"latency"`
	Slowest    []seedRef            `json:"slowest"`
	lat        latencies
	index      int // the group's place in the campaign (scenario or column)
}

// report is a campaign's summary, written as summary.json and summary.txt.
type report struct {
	Command     string               `json:"command"`
	ExitCode    int                  `json:"exit_code"`
	Interrupted bool                 `json:"interrupted"`
	Planned     int                  `json:"planned_seeds"`
	Seeds       int                  `json:"seeds"`
	Parallel    int                  `json:"parallel"`
	Verdicts    map[string]int       `json:"verdicts"`
	SimNs       int64                `json:"sim_ns"`
	WallNs      int64                `json:"wall_ns"`
	SimPerWall  float64              `json:"sim_s_per_wall_s"` // over the campaign's elapsed wall time
	Latency     map[string]distStats `json:"latency"`
	Groups      []*group             `json:"scenarios"`
	Failures    []seedRef            `json:"failures"`
	Resume      []string             `json:"resume,omitempty"`
	Buggify     *buggifyReport       `json:"buggify,omitempty"`
	Probes      *probeReport         `json:"probes,omitempty"`
	lat         latencies
	ioErrors    []string // outputs that could not be written: an error exit, never a verdict
	groups      []*group // by index, nil until used
	wall        time.Duration
	priorWall   time.Duration // the wall time of earlier sessions of a resumed campaign
}

func newReport(command string, parallel, planned int) *report {
	return &report{Command: command, Parallel: parallel, Planned: planned, Verdicts: countsZero(), Failures: []seedRef{},
		lat: latencies{}}
}

func countsZero() map[string]int {
	m := map[string]int{}
	for _, v := range verdictOrder {
		m[string(v)] = 0
	}
	return m
}

// label is the group's name in a comparison table.
func (g *group) label() string { return cmp.Or(g.Label, g.Variants) }

// group returns the report of group i, made on first use: its scenario,
// variants, and the strategy and BUGGIFY of its own ("" when the entry
// has none).
func (r *report) group(i int, scenario, variants, strategy, buggify string) *group {
	for len(r.groups) <= i {
		r.groups = append(r.groups, nil)
	}
	if r.groups[i] == nil {
		r.groups[i] = &group{Scenario: scenario, Variants: variants, Verdicts: countsZero(), Slowest: []seedRef{},
			lat: latencies{}, index: i, Strategy: strategy, Buggify: buggify}
	}
	return r.groups[i]
}

// add counts one seed's record. Every figure it feeds is order-free (sums,
// histogram merges, sorted lists), so the summary does not depend on the
// order seeds finish, on sharding or on resuming.
func (r *report) add(g *group, rec record) {
	o := rec.Outcome
	ref := seedRef{Scenario: o.Scenario, Seed: o.Seed, Verdict: o.Verdict, WallNs: o.WallNs, Checks: o.Checks, Replay: o.Replay, group: g.index,
		variants: o.Variants, Swarm: o.Swarm, Options: o.Options}
	if len(o.Violations) > 0 {
		ref.Violation, _, _ = strings.Cut(o.Violations[0], "\n")
	}
	g.Seeds++
	g.Verdicts[string(o.Verdict)]++
	g.SimNs += o.SimNs
	g.SeedWallNs += o.WallNs
	g.Slowest = slowest(g.Slowest, ref)
	g.lat.merge(rec.Latency)
	r.Seeds++
	r.Verdicts[string(o.Verdict)]++
	r.SimNs += o.SimNs
	r.lat.merge(rec.Latency)
	if o.Verdict != workloads.Pass {
		for _, a := range o.Artifacts {
			if filepath.Base(a) == workloads.TimelineFile {
				ref.Timeline = a
			}
		}
		r.Failures = append(r.Failures, ref)
	}
	r.addBuggify(g.index, o)
	r.addProbes(g.index, workloads.EntryLabel(g.Scenario, g.Variants, g.Strategy, g.Buggify), o)
	for _, e := range o.IOErrors {
		r.ioError(fmt.Sprintf("%s seed %d: %s", o.Scenario, o.Seed, e))
	}
}

// ioError counts an output that could not be written; the campaign then
// exits 3 (or worse).
func (r *report) ioError(msg string) { r.ioErrors = append(r.ioErrors, msg) }

// seedOrder orders seeds by campaign place: group, seed, variants.
func seedOrder(a, b seedRef) int {
	return cmp.Or(cmp.Compare(a.group, b.group), cmp.Compare(a.Seed, b.Seed), cmp.Compare(a.variants, b.variants))
}

// slowest keeps the five slowest seeds by wall time (ties in seed order).
func slowest(s []seedRef, ref seedRef) []seedRef {
	s = append(s, ref)
	slices.SortStableFunc(s, func(a, b seedRef) int { return cmp.Or(cmp.Compare(b.WallNs, a.WallNs), seedOrder(a, b)) })
	return s[:min(len(s), 5)]
}

// finish computes the derived figures and the exit code; wall is this
// session's elapsed time. It may run again after more seeds are added.
func (r *report) finish(wall time.Duration, interrupted bool) {
	r.WallNs, r.Interrupted = (r.priorWall + wall).Nanoseconds(), interrupted
	r.SimPerWall = ratio(r.SimNs, r.WallNs)
	r.Latency = r.lat.stats()
	r.Buggify.finish()
	var rows []string
	for _, g := range r.groups {
		if g != nil {
			rows = append(rows, workloads.EntryLabel(g.Scenario, g.Variants, g.Strategy, g.Buggify))
		}
	}
	r.Probes.finish(rows)
	r.Groups = slices.DeleteFunc(slices.Clone(r.groups), func(g *group) bool { return g == nil })
	slices.SortFunc(r.Failures, seedOrder)
	for _, g := range r.Groups {
		g.SimPerWall = ratio(g.SimNs, g.SeedWallNs)
		g.Latency = g.lat.stats()
	}
	r.ExitCode = exitPass
	for v, n := range r.Verdicts {
		if n > 0 {
			r.ExitCode = worse(r.ExitCode, verdictExit(workloads.Verdict(v)))
		}
	}
	if len(r.ioErrors) > 0 {
		slices.Sort(r.ioErrors)
		r.ExitCode = worse(r.ExitCode, exitCrash)
	}
	if interrupted {
		r.ExitCode = worse(r.ExitCode, exitInterrupted)
	}
}

func ratio(sim, wall int64) float64 {
	if wall <= 0 {
		return 0
	}
	return float64(sim) / float64(wall)
}

// writeText writes the human summary: per scenario, latency, failures;
// verbose adds each scenario's latency rows and its slowest seeds (a
// passing campaign's summary fits one screen without them).
func (r *report) writeText(w io.Writer, verbose bool) {
	fmt.Fprintf(w, "\nsimrun: %d of %d seeds in %v on %d workers; simulated %v, %.0f sim-s/s; exit %d\n",
		r.Seeds, r.Planned, time.Duration(r.WallNs).Round(time.Millisecond), r.Parallel,
		time.Duration(r.SimNs).Round(time.Second), r.SimPerWall, r.ExitCode)
	width := len("scenario")
	for _, g := range r.Groups {
		width = max(width, len(r.label(g)))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%-*s\tseeds\t%s\tsim time\tsim-s/s per worker\t\n", width, "scenario", verdictHeader())
	for _, g := range r.Groups {
		fmt.Fprintf(tw, "%-*s\t%d\t%s\t%v\t%.0f\t\n", width, r.label(g), g.Seeds, verdictCells(g.Verdicts),
			time.Duration(g.SimNs).Round(time.Second), g.SimPerWall)
	}
	tw.Flush()
	r.writeLatency(w, verbose)
	if verbose {
		r.writeSlowest(w)
	}
	r.Buggify.writeText(w)
	r.Probes.writeText(w)
	r.writeFailures(w)
}

// label names a group in the text summary: its scenario, with its
// variants when another group runs the same scenario (the default
// campaign's design entries).
func (r *report) label(g *group) string {
	for _, o := range r.Groups {
		if o != g && o.Scenario == g.Scenario {
			return workloads.EntryLabel(g.Scenario, g.Variants, g.Strategy, g.Buggify)
		}
	}
	return g.Scenario
}

// verdictHeader names the verdict columns, one per verdictCells cell:
// both come from verdictOrder, so a verdict added there adds its column.
func verdictHeader() string {
	var names []string
	for _, v := range verdictOrder {
		names = append(names, string(v))
	}
	return strings.Join(names, "\t")
}

func verdictCells(m map[string]int) string {
	var cells []string
	for _, v := range verdictOrder {
		cells = append(cells, fmt.Sprint(m[string(v)]))
	}
	return strings.Join(cells, "\t")
}

func (r *report) writeLatency(w io.Writer, verbose bool) {
	fmt.Fprintln(w, "\nlatency (virtual time)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%-31s\tscope\tcount\tp50\tp90\tp99\tmax\t\n", "")
	for _, n := range latencyNames {
		latencyRow(tw, n.label, "all", r.Latency[n.key])
		for _, g := range r.Groups {
			if verbose && len(r.Groups) > 1 {
				latencyRow(tw, "", r.label(g), g.Latency[n.key])
			}
		}
	}
	tw.Flush()
	if !verbose {
		fmt.Fprintln(w, "(each scenario's latency and its slowest seeds: --verbose)")
	}
}

func latencyRow(w io.Writer, label, scope string, s distStats) {
	fmt.Fprintf(w, "%-31s\t%s\t%d\t%s\t%s\t%s\t%s\t\n", label, scope, s.Count, fmtDur(time.Duration(s.P50)),
		fmtDur(time.Duration(s.P90)), fmtDur(time.Duration(s.P99)), fmtDur(time.Duration(s.Max)))
}

func (r *report) writeSlowest(w io.Writer) {
	fmt.Fprintln(w, "\nslowest seeds (wall)")
	for _, g := range r.Groups {
		for _, s := range g.Slowest {
			fmt.Fprintf(w, "  %-20s seed %-6d %9v  %s\n", r.label(g), s.Seed, time.Duration(s.WallNs).Round(time.Millisecond), s.Replay)
		}
	}
}

func (r *report) writeFailures(w io.Writer) {
	if len(r.Failures) == 0 {
		fmt.Fprintln(w, "\nno failures")
	} else {
		fmt.Fprintf(w, "\nfailures (%d)\n", len(r.Failures))
	}
	for _, f := range r.Failures {
		fmt.Fprintf(w, "  %s seed %d: %s%s: %s\n    replay: %s\n", f.Scenario, f.Seed, f.Verdict, checkList(f.Checks), f.Violation, f.Replay)
		if f.Swarm != nil {
			fmt.Fprintf(w, "    swarm: %s\n", workloads.SwarmString(f.Swarm))
		}
		if f.Options != nil {
			fmt.Fprintf(w, "    options: %s\n", workloads.OptionsString(f.Options))
		}
		if f.Timeline != "" {
			fmt.Fprintf(w, "    timeline: %s\n", f.Timeline)
		}
	}
	if len(r.ioErrors) > 0 {
		fmt.Fprintf(w, "\noutputs not written (%d)\n", len(r.ioErrors))
		for _, e := range r.ioErrors {
			fmt.Fprintf(w, "  %s\n", e)
		}
	}
	if len(r.Resume) > 0 {
		fmt.Fprintf(w, "\ninterrupted after %d of %d seeds; to run the rest:\n", r.Seeds, r.Planned)
		for _, c := range r.Resume {
			fmt.Fprintf(w, "  %s\n", c)
		}
	}
}

// checkList renders the ids of the checks that fired as " [a, b]" ("" for none).
func checkList(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	return " [" + strings.Join(ids, ", ") + "]"
}
