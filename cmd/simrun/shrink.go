package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ckptsim/ckptsim/workloads"
	"github.com/ckptsim/ckptsim/workloads/campaign"
	"github.com/ckptsim/ckptsim/workloads/oracle"
)

const shrinkAbout = `Reduces a failing seed to a smaller scenario that fails the same way:
with the same seed and the same verdict class (safety, liveness, crash or
budget), it tries fewer jobs, pipelines and tasks, fewer fault kinds,
lower fault rates and a shorter run, keeping each change that still fails,
until none does. Every candidate is written as YAML and parsed again, so
what is printed is what ran. The smallest scenario goes to stdout and to
--out, with the command that replays it; the steps go to stderr.

With --seeds N it first looks for a failing seed among the N seeds from
--seed. The --variant values are written into the scenario's variants.
With --check ID[,ID...] a seed or candidate fails the same way only when
one of those check ids (workloads/oracle/CHECKS.md) is among its verdict's
checks: a failure of another check, a crash, a budget or an unknown is
not the failure being shrunk.

exit: the verdict class of the shrunk scenario (1 safety, 2 liveness, 3
crash, 4 budget), 0 when no seed fails, 64 usage or scenario error.`

func shrinkCmd(args []string, stdout, stderr io.Writer) int {
	var f runFlags
	var ref string
	maxRuns := 300
	fs := newFlagSet("shrink", "[--scenario] NAME|FILE [--seed S] [flags]", shrinkAbout, stdout, stderr)
	fs.StringVar(&ref, "scenario", "", "scenario `name|file` (required)")
	f.addSeed(fs, "the failing seed (or the first seed searched)")
	f.addSeeds(fs, "search this many seeds from --seed for a failing one (default 1)")
	f.addRunOptions(fs)
	f.addOut(fs, "write the shrunk scenario to `file` (default: NAME-seedS-shrunk.yaml; a folder: inside it)")
	fs.IntVar(&maxRuns, "max-runs", maxRuns, "stop after this many runs of candidates")
	var checkList string
	fs.StringVar(&checkList, "check", "", "keep only failures that carry one of these check `ids` (comma-separated)")
	if c := parse(fs, args, stderr); c >= 0 {
		return c
	}
	if c := f.checkSeeds(fs, stderr); c >= 0 {
		return c
	}
	if ref == "" {
		return usagef(stderr, "shrink", "--scenario is required")
	}
	sc, err := lookup(ref)
	if err != nil {
		return usagef(stderr, "shrink", "%v", err)
	}
	var checks []string
	for id := range strings.SplitSeq(checkList, ",") {
		if id = strings.TrimSpace(id); id == "" {
			continue
		}
		if _, ok := oracle.Lookup(id); !ok {
			return usagef(stderr, "shrink", "--check: %q is not a check id (workloads/oracle/CHECKS.md)", id)
		}
		checks = append(checks, id)
	}
	path := ""
	if f.out != "" {
		path = f.out
		if st, err := os.Stat(f.out); err == nil && st.IsDir() {
			path = "" // decided once the seed is known
		}
	}
	res, err := campaign.Shrink(sc, campaign.ShrinkConfig{Seed: f.seed, Seeds: f.seeds, Variants: f.variants, Checks: checks,
		Run: func(s *workloads.Scenario, seed uint64) workloads.Outcome {
			opt := f.options(seed)
			opt.Variants = nil // baked into the scenario
			return runJob(job{sc: s, opt: opt, replay: f.replayFlags(string(f.strategy))})
		}, Path: path, MaxRuns: maxRuns, Log: stderr})
	if err != nil {
		fmt.Fprintf(stderr, "simrun shrink: %v\n", err)
		return exitCrash
	}
	if !res.Found {
		what := "passes"
		if len(checks) > 0 {
			what = "fires none of " + strings.Join(checks, ", ")
		}
		fmt.Fprintf(stderr, "simrun shrink: %s %s on seeds %d..%d; nothing to shrink\n", sc.Name, what, f.seed, f.seed+uint64(max(f.seeds, 1))-1)
		return exitPass
	}
	if path == "" && f.out != "" {
		res.Path = filepath.Join(f.out, res.Path)
	}
	return shrinkReport(sc, res, stdout, stderr)
}

func shrinkReport(orig *workloads.Scenario, res campaign.ShrinkResult, stdout, stderr io.Writer) int {
	o, cur := res.Outcome, res.Scenario
	y := cur.YAML()
	if err := campaign.WriteFile(res.Path, y); err != nil {
		fmt.Fprintf(stderr, "simrun shrink: %v\n", err)
		return exitUsage
	}
	fmt.Fprintf(stderr, "shrink: %d runs; %s\n", res.Runs, campaign.SizeDiff(orig, cur))
	fmt.Fprintf(stdout, "# seed: %d\n# verdict: %s\n# violation: %s\n# trace_hash: %s\n# replay: %s\n%s",
		res.Seed, o.Verdict, campaign.FirstLine(o.Violations), o.TraceHash, o.Replay, y)
	fmt.Fprintf(stderr, "shrink: wrote %s\n", res.Path)
	return verdictExit(o.Verdict)
}
