package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ckptsim/ckptsim/workloads/campaign"
)

const mergeAbout = `Combines the results folders of shards of one campaign (simrun run
--shard i/n --out DIR, one folder per shard) into one folder: results.jsonl
with every seed in campaign order, campaign.json, and summary.json and
summary.txt recomputed from the per-seed records (verdict counts, latency
distributions, failures with their replay commands). It refuses folders of
different scenarios, seed ranges, variants, strategies or budgets, and
folders that hold the same seed, naming both. A merge that lacks seeds
(a missing or unfinished shard) says so, and simrun run --resume OUT runs
the rest.

  simrun merge shard-0 shard-1 shard-2 --out all

exit: the worst seed (1, 2, 3, 4, then 0), 130 when seeds are missing and
none failed, 64 usage error, folders that do not belong together or an --out
that cannot be made, 3 when the merged files could not be written.`

func mergeCmd(args []string, stdout, stderr io.Writer) int {
	var out string
	var verbose bool
	fs := newFlagSet("merge", "DIR... --out DIR", mergeAbout, stdout, stderr)
	fs.StringVar(&out, "out", "", "the merged results `dir` (required)")
	fs.BoolVar(&verbose, "verbose", false, "add each scenario's latency rows and its slowest seeds to the summary")
	dirs, flags := splitPositional(args, map[string]bool{"out": true})
	if c := parse(fs, flags, stderr); c >= 0 {
		return c
	}
	if out == "" || len(dirs) == 0 {
		return usagef(stderr, "merge", "want DIR... --out DIR")
	}
	if err := outFree(out, nil); err != nil {
		return usagef(stderr, "merge", "--out %v", err)
	}
	// an --out that cannot be made is a usage error before the merge, as
	// for run and compare; a write that fails after it is exit 3
	if err := os.MkdirAll(out, 0o755); err != nil {
		return usagef(stderr, "merge", "--out: %v", err)
	}
	m, records, rep, err := mergeDirs(dirs)
	if err != nil {
		return usagef(stderr, "merge", "%v", err)
	}
	rep.Command = "simrun merge " + strings.Join(args, " ")
	interrupted := rep.Seeds < rep.Planned
	if interrupted {
		rep.Resume = []string{binary + " run --resume " + out}
	}
	rep.finish(0, interrupted)
	rep.WallNs, rep.SimPerWall = m.wall.Nanoseconds(), ratio(rep.SimNs, m.wall.Nanoseconds())
	if err := writeMerged(out, m.manifest, records, rep); err != nil {
		fmt.Fprintf(stderr, "simrun merge: writing %s: %v\n", out, err)
		return exitCrash
	}
	rep.writeText(stdout, verbose)
	fmt.Fprintf(stderr, "simrun merge: %d folders, %d of %d seeds, results in %s\n", len(dirs), rep.Seeds, rep.Planned, out)
	return rep.ExitCode
}

// splitPositional separates positional arguments from flags, wherever
// they stand; valued names the flags that take a separate value.
func splitPositional(args []string, valued map[string]bool) (pos, flags []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" {
			pos = append(pos, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if valued[name] && i+1 < len(args) {
			flags = append(flags, args[i+1])
			i++
		}
	}
	return pos, flags
}

// merged is what mergeDirs read.
type merged struct {
	manifest manifest
	wall     time.Duration // the longest shard's wall time (shards run side by side)
}

// mergedLine is one record with its place in the campaign.
type mergedLine struct {
	group int
	key   seedKey
	raw   []byte
}

// mergeDirs reads and checks the shard folders and builds the report.
func mergeDirs(dirs []string) (merged, []mergedLine, *report, error) {
	var m merged
	var lines []mergedLine
	from := map[seedKey]string{}
	shards := map[string]string{}
	rep := newReport("", 0, 0)
	for i, dir := range dirs {
		sm, err := readManifest(dir)
		if err != nil {
			return m, nil, nil, err
		}
		if i == 0 {
			m.manifest = sm
			m.manifest.Args, m.manifest.Shard, m.manifest.Shards, m.manifest.Planned = wholeArgs(sm.Args), "", nil, 0
		} else if why := sameCampaign(m.manifest, sm); why != "" {
			return m, nil, nil, fmt.Errorf("%s and %s are not shards of one campaign: %s", dirs[0], dir, why)
		}
		if sm.Shard != "" || len(sm.Shards) > 0 {
			for _, s := range append([]string{sm.Shard}, sm.Shards...) {
				if other, dup := shards[s]; dup && s != "" {
					return m, nil, nil, fmt.Errorf("%s and %s both hold shard %s", other, dir, s)
				}
				shards[s] = dir
			}
			if sm.Shard != "" {
				m.manifest.Shards = append(m.manifest.Shards, sm.Shard)
			}
			m.manifest.Shards = append(m.manifest.Shards, sm.Shards...)
		}
		wall, parallel := shardWall(dir)
		m.wall = max(m.wall, wall)
		rep.Parallel += parallel
		err = campaign.ReadJournal(filepath.Join(dir, resultsFile), func(_ int, b []byte) error {
			var rec record
			if err := json.Unmarshal(b, &rec); err != nil {
				return err
			}
			if other, dup := from[rec.key()]; dup {
				return fmt.Errorf("seed %d of %s (%s) is in %s too: the folders overlap", rec.Seed, rec.Scenario, rec.Variants, other)
			}
			from[rec.key()] = dir
			g := spanIndex(m.manifest, rec)
			if g < 0 {
				return fmt.Errorf("scenario %s is not one of the campaign's", rec.Scenario)
			}
			rep.add(rep.group(g, rec.Scenario, rec.Variants, m.manifest.Spans[g].Strategy, m.manifest.Spans[g].Buggify), rec)
			lines = append(lines, mergedLine{g, rec.key(), slices.Clone(b)})
			return nil
		})
		if err != nil {
			return m, nil, nil, err
		}
	}
	slices.Sort(m.manifest.Shards)
	for _, sp := range m.manifest.Spans { // the merge is of the whole campaign, whichever shards came
		m.manifest.Planned += sp.Seeds
	}
	rep.Planned = m.manifest.Planned
	slices.SortFunc(lines, func(a, b mergedLine) int {
		return cmp.Or(cmp.Compare(a.group, b.group), cmp.Compare(a.key.seed, b.key.seed), cmp.Compare(a.key.variants, b.key.variants))
	})
	return m, lines, rep, nil
}

// spanIndex is the place of a record's span in the manifest (-1: none).
func spanIndex(m manifest, rec record) int {
	return spanOf(len(m.Spans), func(i int) spanID {
		sp := m.Spans[i]
		id := spanID{scenario: sp.Scenario, strategy: cmp.Or(m.Strategy, sp.Strategy), buggify: cmp.Or(m.Buggify, sp.Buggify)}
		if sp.Variants != "" {
			id.variants = pairs(sp.Variants)
		}
		return id
	}, rec)
}

// wholeArgs drops --shard and --out from a shard's arguments: the merged
// folder's campaign is the whole one (so --resume of it runs what is
// missing).
func wholeArgs(args []string) []string {
	out := []string{}
	for i := 0; i < len(args); i++ {
		name, _, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		if strings.HasPrefix(args[i], "-") && (name == "shard" || name == "out") {
			if !hasValue {
				i++
			}
			continue
		}
		out = append(out, args[i])
	}
	return out
}

// shardWall reads a shard's wall time and parallelism from its summary.
func shardWall(dir string) (time.Duration, int) {
	var s struct {
		WallNs   int64 `json:"wall_ns"`
		Parallel int   `json:"parallel"`
	}
	if b, err := os.ReadFile(filepath.Join(dir, "summary.json")); err == nil {
		json.Unmarshal(b, &s)
	}
	return time.Duration(s.WallNs), s.Parallel
}

// writeMerged writes the merged folder.
func writeMerged(dir string, m manifest, lines []mergedLine, rep *report) error {
	var buf bytes.Buffer
	for _, l := range lines {
		buf.Write(l.raw)
		buf.WriteByte('\n')
	}
	if err := writeAtomic(filepath.Join(dir, resultsFile), buf.Bytes()); err != nil {
		return err
	}
	if err := writeManifest(dir, m); err != nil {
		return err
	}
	return writeSummary(dir, rep)
}
