package main

import (
	"context"
	"fmt"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The default-campaign mode (-default-campaign) measures what a user pays
// for a verdict: each mutant's simrun runs the default campaign (simrun
// with no arguments: its rows and seeds, in campaign order, one seed at a
// time) until the first seed whose verdict carries the check the mutant's
// header names and whose control passes (the unpatched tree's simrun,
// given the same seed's replay arguments as a one-seed run). The row
// records the seeds and the CPU seconds of the mutant's process up to
// that seed; a mutant the whole campaign misses records the campaign's
// seeds and CPU seconds, and "not found". The mutant's own scenario and
// variants play no part: the default campaign is what runs.

// defaultStrategy is the Campaign.Strategy of a default-campaign row: the
// campaign's rows choose their strategies.
const defaultStrategy = "default-campaign"

// measureDefault copies the snapshot, applies the mutant, builds simrun and
// runs the default campaign until the first detection.
func measureDefault(ctx context.Context, cfg config, base string, t tree, control string, m *Mutant) *Result {
	start := time.Now()
	r := &Result{Mutant: m, Fired: []string{}}
	defer func() { r.WallS = time.Since(start).Seconds() }()
	dir, bin, done, err := buildMutant(ctx, cfg, base, t, m)
	defer done()
	if err != nil {
		r.Error = err.Error()
		return r
	}
	logf(m, "built; %s over the default campaign", m.Check)
	c := runDefault(ctx, m, cfg.controlTries,
		func(ctx context.Context, each func(seedLine, func() float64) bool) (float64, error) {
			return streamSeeds(ctx, bin, dir, []string{"run", "--json", "--parallel", "1"}, cfg.timeout, each)
		},
		func(ctx context.Context, replay string) Control {
			return replayControl(ctx, control, t.Dir, replay, cfg.timeout)
		})
	logf(m, "%s; control %s; %.1f CPU-s", campaignText(c), controlText(c), c.CPUS)
	r.Campaigns = []Campaign{c}
	if ctx.Err() != nil {
		r.Error = "interrupted"
		return r
	}
	summarize(r)
	return r
}

// runDefault is search over the default campaign: the control of a seed
// is the unpatched tree's one-seed run from the seed's replay command.
func runDefault(ctx context.Context, m *Mutant, tries int, patched campaignFunc, control func(context.Context, string) Control) Campaign {
	return search(ctx, m, defaultStrategy, tries, patched, func(ctx context.Context, l seedLine) Control { return control(ctx, l.Replay) })
}

// replayArgs turns a seed's replay command ("go run ./cmd/simrun replay
// --scenario S --seed N [flags]") into the arguments of a one-seed run of
// the same seed.
func replayArgs(replay string) ([]string, error) {
	f := strings.Fields(replay)
	i := -1
	for k, w := range f {
		if w == "replay" {
			i = k
			break
		}
	}
	if i < 0 {
		return nil, fmt.Errorf("not a replay command: %q", replay)
	}
	return append(append([]string{"run"}, f[i+1:]...), "--seeds", "1", "--json", "--parallel", "1"), nil
}

// replayControl runs one seed, given by its replay command, on the
// unpatched tree's simrun.
func replayControl(ctx context.Context, bin, dir, replay string, timeout time.Duration) Control {
	args, err := replayArgs(replay)
	ctl := Control{Verdict: "error", First: "no result"}
	if err != nil {
		ctl.First = err.Error()
		return ctl
	}
	_, err = streamSeeds(ctx, bin, dir, args, timeout, func(l seedLine, _ func() float64) bool {
		ctl = Control{Seed: l.Seed, Verdict: l.Verdict, Checks: l.Checks, First: firstLine(l.Violations)}
		return true
	})
	if err != nil && ctl.Verdict == "error" {
		ctl.First = err.Error()
	}
	return ctl
}

// procCPU is a running process's CPU seconds (user + system) so far, from
// /proc/PID/stat (in clock ticks, taken as 100 a second, Linux's USER_HZ);
// 0 where it cannot be read.
func procCPU(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 { // the command name may hold spaces
		s = s[i+1:]
	}
	f := strings.Fields(s) // f[0] is field 3 (state): utime is field 14, stime 15
	if len(f) < 13 {
		return 0
	}
	u, err1 := strconv.ParseFloat(f[11], 64)
	st, err2 := strconv.ParseFloat(f[12], 64)
	if err1 != nil || err2 != nil {
		return 0
	}
	return (u + st) / 100
}

// DefaultSummary is the default-campaign report's figures, over the rows
// found: CPU seconds (and seeds) to the first detection, median, 90th
// percentile (nearest rank) and worst; and the rows not found with the
// CPU seconds the whole campaign took them (median).
type DefaultSummary struct {
	Rows         int      `json:"rows"`
	Found        int      `json:"found"`
	NotFound     []string `json:"not_found"`
	Errors       []string `json:"errors,omitempty"`
	MedianCPUS   float64  `json:"median_cpu_s"`
	P90CPUS      float64  `json:"p90_cpu_s"`
	WorstCPUS    float64  `json:"worst_cpu_s"`
	Worst        string   `json:"worst"`
	MedianSeeds  int      `json:"median_seeds"`
	WorstSeeds   int      `json:"worst_seeds"`
	WholeCPUS    float64  `json:"whole_campaign_cpu_s,omitempty"`
	WholeSeeds   int      `json:"whole_campaign_seeds,omitempty"`
	SeedsPerCPUS float64  `json:"seeds_per_cpu_s,omitempty"`
}

// summarizeDefault computes the report's figures from its rows.
func summarizeDefault(rep *Report) *DefaultSummary {
	s := &DefaultSummary{NotFound: []string{}}
	var cpus []float64
	var seeds []int
	var wholeCPU []float64
	for _, r := range rep.Results {
		if len(r.Campaigns) == 0 || r.Error != "" {
			s.Errors = append(s.Errors, r.Mutant.Name)
			continue
		}
		s.Rows++
		c := r.Campaigns[0]
		if r.Status() == "found" {
			s.Found++
			cpus = append(cpus, c.CPUS)
			seeds = append(seeds, c.Found)
			if c.CPUS >= s.WorstCPUS {
				s.WorstCPUS, s.Worst = c.CPUS, r.Mutant.Name
			}
			continue
		}
		s.NotFound = append(s.NotFound, r.Mutant.Name)
		if !c.TimedOut && !c.ControlStop && c.CPUS > 0 {
			wholeCPU = append(wholeCPU, c.CPUS)
			s.WholeSeeds = c.Ran
		}
	}
	if len(cpus) > 0 {
		s.MedianCPUS, s.P90CPUS = quantile(cpus, 0.5), quantile(cpus, 0.9)
		fs := make([]float64, len(seeds))
		for i, n := range seeds {
			fs[i] = float64(n)
		}
		s.MedianSeeds, s.WorstSeeds = int(quantile(fs, 0.5)), int(quantile(fs, 1))
	}
	if len(wholeCPU) > 0 {
		s.WholeCPUS = quantile(wholeCPU, 0.5)
		s.SeedsPerCPUS = float64(s.WholeSeeds) / s.WholeCPUS
	}
	return s
}

// quantile is the nearest-rank q-quantile of v (v non-empty).
func quantile(v []float64, q float64) float64 {
	w := slices.Clone(v)
	slices.Sort(w)
	i := int(float64(len(w))*q+0.999999) - 1
	return w[min(max(i, 0), len(w)-1)]
}

// renderDefault is default-campaign.md.
func renderDefault(rep *Report, root string) string {
	s := summarizeDefault(rep)
	var b strings.Builder
	b.WriteString("# Planted bugs: CPU-seconds to the first detection under the default campaign\n\n")
	fmt.Fprintf(&b, "Generated by `%s` at commit `%s`, %s.", rep.Command, rep.Commit, rep.Date)
	if n := len(rep.Results); rep.Mutants > n {
		fmt.Fprintf(&b, " %d of the %d mutants have a row at this commit.", n, rep.Mutants)
	}
	b.WriteString("\n\n")
	b.WriteString("What a user pays for a verdict. Each planted bug of `testdata/mutants/` is applied to a copy of the tree and ")
	b.WriteString("that copy's `simrun` runs the default campaign (`simrun` with no arguments: its rows and seeds in campaign ")
	b.WriteString("order, one seed at a time, `--parallel 1`) until the first seed whose verdict carries the check the patch's header ")
	b.WriteString("names and whose control passes (the unpatched tree runs the same seed from its replay command). The CPU-seconds ")
	b.WriteString("are the mutant process's user + system time up to that seed (its rusage, killed there), build and controls not ")
	b.WriteString("counted. The mutant's own scenario and variants play no part: a mutant only its own targeted campaign reaches ")
	b.WriteString("(see [mutants.md](" + path.Join(root, "results/mutants.md") + ")) is \"not found\" here, at the cost of the whole campaign. ")
	b.WriteString("\"First failure\" is the first failing seed of any check, what a user sees first.\n\n")
	fmt.Fprintf(&b, "**%d of %d planted bugs found by the default campaign.** CPU-seconds to the first detection: median **%.2f**, "+
		"90th percentile **%.2f**, worst **%.2f** (`%s`); seeds to it: median %d, worst %d.",
		s.Found, s.Rows, s.MedianCPUS, s.P90CPUS, s.WorstCPUS, s.Worst, s.MedianSeeds, s.WorstSeeds)
	if s.WholeCPUS > 0 {
		fmt.Fprintf(&b, " The %d not found cost the whole campaign each: %d seeds in %.1f CPU-seconds (median), %.1f seeds per CPU-second at `--parallel 1`.",
			len(s.NotFound), s.WholeSeeds, s.WholeCPUS, s.SeedsPerCPUS)
	}
	if len(s.Errors) > 0 {
		fmt.Fprintf(&b, " %d rows are errors: %s.", len(s.Errors), strings.Join(s.Errors, ", "))
	}
	b.WriteString("\n\n| mutant | check named | found | seeds to detection | CPU-s to detection | detecting seed | first failure: seeds, CPU-s, checks | checks fired |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	for _, r := range rep.Results {
		m := r.Mutant
		if len(r.Campaigns) == 0 {
			fmt.Fprintf(&b, "| [`%s`](%s) | `%s` | %s | - | - | - | - | - |\n", m.Name, path.Join(root, "testdata/mutants", m.Name+".diff"),
				m.Check, statusText(r))
			continue
		}
		c := r.Campaigns[0]
		seedsCell, cpuCell, det := "-", "-", "-"
		if c.Found > 0 {
			seedsCell, cpuCell = fmt.Sprint(c.Found), fmt.Sprintf("%.2f", c.CPUS)
			det = "`" + strings.TrimPrefix(c.Replay, "go run ./cmd/simrun replay ") + "`"
		} else {
			seedsCell = fmt.Sprintf("(%d run)", c.Ran)
			cpuCell = fmt.Sprintf("(%.1f)", c.CPUS)
		}
		ff := "-"
		if c.FirstFailRan > 0 {
			ff = fmt.Sprintf("%d, %.2f, `%s`", c.FirstFailRan, c.FirstFailCPUS, strings.Join(c.FirstFailChecks, "`, `"))
		}
		fmt.Fprintf(&b, "| [`%s`](%s) | `%s` | %s | %s | %s | %s | %s | %s |\n", m.Name, path.Join(root, "testdata/mutants", m.Name+".diff"),
			m.Check, statusText(r), seedsCell, cpuCell, det, ff, firedText(r))
	}
	return b.String()
}
