package main

import (
	"fmt"
	"io"
	"maps"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ckptsim/ckptsim/core/variant"
	"github.com/ckptsim/ckptsim/workloads"
)

const compareAbout = `Runs the same seeds of one scenario on several designs or variants and
prints them side by side: verdict counts, trigger-to-complete p50/p99,
scheduling delay (due to body start) p50/p99/max, failover to the first
completed checkpoint p50 (all virtual time) and simulated seconds per wall
second of one worker. Each --with is one column: a comma-separated list of
key=value variants on top of the scenario's and of --variant. Without
--with it compares every scheduler design.

With --profile NAME (simrun list shows the profiles) the columns are the
default (the scenario's variants and --variant), or each --with, and then
the same columns again under the profile, labelled profile=NAME: the
profile's pairs, --variant on top, then the column's --with on top.

  simrun compare --scenario h9-deferred-fence --seeds 20 --profile upstream

  simrun compare --scenario failovers --seeds 20 --with design=shared \
    --with design=per-pipeline --with design=shared-inline,expiry-fence=none

exit: the worst seed over all columns (1, 2, 3, 4, then 0), 64 usage or
scenario error, 130 interrupted.`

func compareCmd(args []string, stdout, stderr io.Writer) int {
	var f runFlags
	var ref string
	var with stringList
	fs := newFlagSet("compare", "[--scenario] NAME|FILE [--with k=v[,k=v]]... [flags]", compareAbout, stdout, stderr)
	fs.StringVar(&ref, "scenario", "", "scenario `name|file` (required)")
	fs.Var(&with, "with", "one column: `k=v[,k=v...]` variants (repeatable; default: each design)")
	f.addSeeds(fs, "seeds per column (default: the scenario's share of the default campaign, else 10)")
	f.addSeed(fs, "first seed")
	f.addParallel(fs)
	f.addOut(fs, "write results.jsonl, summary.json and summary.txt to `dir`")
	f.addJSON(fs, "print one JSON object per seed on stdout (the table goes to stderr)")
	f.addRunOptions(fs)
	if c := parse(fs, args, stderr); c >= 0 {
		return c
	}
	if c := f.checkSeeds(fs, stderr); c >= 0 {
		return c
	}
	if ref == "" {
		return usagef(stderr, "compare", "--scenario is required")
	}
	if f.parallel < 1 || f.seeds < 0 {
		return usagef(stderr, "compare", "--parallel must be at least 1 and --seeds not negative")
	}
	profile := f.profile
	f.profile = "" // a column under the profile names it itself
	switch {
	case len(with) == 0 && profile != "":
		with = append(with, "fixed")
	case len(with) == 0:
		k, _ := variant.Lookup("design")
		for _, d := range k.Values {
			with = append(with, "design="+d)
		}
	}
	var cols []column
	for _, prof := range []string{"", profile} {
		if prof == "" && len(cols) > 0 {
			break
		}
		for _, w := range with {
			m, err := parseVariants(w)
			if err != nil {
				return usagef(stderr, "compare", "--with %s: %v", w, err)
			}
			c := column{variants: f.expanded(prof), profile: prof}
			maps.Copy(c.variants, m) // profile, then --variant, then --with
			if prof != "" {
				c.label = "profile=" + prof
				if w != "fixed" {
					c.label += "+" + w
				}
			}
			cols = append(cols, c)
		}
	}
	sc, err := lookup(ref)
	if err != nil {
		return usagef(stderr, "compare", "%v", err)
	}
	f.parallel = fitParallel(f.parallel, []*workloads.Scenario{sc}, stderr)
	n := cmpOr(f.seeds, seedsFor(sc.Name))
	var jobs []job
	for i, c := range cols {
		for k := range uint64(n) {
			opt := f.options(f.seed + k)
			opt.Variants, opt.Profile = maps.Clone(c.variants), c.profile
			jobs = append(jobs, job{sc: sc, opt: opt, group: i, replay: f.replayFlags(string(f.strategy)), label: c.label})
		}
	}
	if f.out != "" {
		if err := outFree(f.out, nil); err != nil {
			return usagef(stderr, "compare", "--out %v", err)
		}
	}
	rep := newReport("simrun compare "+strings.Join(args, " "), f.parallel, len(jobs))
	journal, err := freshJournal(f.out)
	if err != nil {
		return usagef(stderr, "compare", "--out: %v", err)
	}
	rest, stop := execCampaign(&f, jobs, rep, journal, nil, stdout, stderr)
	defer stop() // a second interrupt while the results are written exits 130 too
	rep.finish(rep.wall, rest < len(jobs))
	w := stdout
	if f.json {
		w = stderr
	}
	fmt.Fprintf(w, "\n%s, seeds %d..%d, %d seeds per column\n", sc.Name, f.seed, f.seed+uint64(n)-1, n)
	writeComparison(w, rep)
	rep.writeFailures(w)
	index := map[string]int{}
	for i, c := range cols {
		if _, ok := index[workloads.VariantString(c.variants)]; !ok {
			index[workloads.VariantString(c.variants)] = i
		}
	}
	return closeOut(f.out, journal, rep, func(r record) int { return index[r.Variants] }, stderr)
}

// column is one column of a comparison: the variants its seeds run with,
// the profile they were expanded from and the label the table shows for
// it ("": the variants).
type column struct {
	variants map[string]string
	profile  string
	label    string
}

// writeComparison prints one row per column of the comparison.
func writeComparison(w io.Writer, r *report) {
	width := len("variants")
	for _, g := range r.Groups {
		width = max(width, len(g.label()))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%-*s\tseeds\t%s\tt2c p50\tt2c p99\tdelay p50\tdelay p99\tdelay max\tfailover-first p50\tsim-s/s\t\n", width, "variants", verdictHeader())
	for _, g := range r.Groups {
		t, d, fo := g.Latency["trigger_to_complete"], g.Latency["sched_delay"], g.Latency["failover_to_first"]
		fmt.Fprintf(tw, "%-*s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.0f\t\n", width, g.label(), g.Seeds, verdictCells(g.Verdicts),
			ns(t.P50), ns(t.P99), ns(d.P50), ns(d.P99), ns(d.Max), ns(fo.P50), g.SimPerWall)
	}
	tw.Flush()
}

func ns(v int64) string { return fmtDur(time.Duration(v)) }
