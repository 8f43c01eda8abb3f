package main

import (
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ckptsim/ckptsim/workloads"
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
	if c := parse(fs, args, stderr); c >= 0 {
		return c
	}
	if ref == "" {
		return usagef(stderr, "shrink", "--scenario is required")
	}
	sc, err := lookup(ref)
	if err != nil {
		return usagef(stderr, "shrink", "%v", err)
	}
	sh := &shrinker{f: &f, stderr: stderr, maxRuns: maxRuns}
	return sh.run(sc, stdout)
}

type shrinker struct {
	f       *runFlags
	stderr  io.Writer
	maxRuns int
	runs    int
	seed    uint64
	target  workloads.Verdict
	out     string
}

func (sh *shrinker) run(sc *workloads.Scenario, stdout io.Writer) int {
	base := clone(sc)
	base.Variants = map[string]string{}
	maps.Copy(base.Variants, sc.Variants)
	maps.Copy(base.Variants, sh.f.variants)
	if !sh.findSeed(base) {
		fmt.Fprintf(sh.stderr, "simrun shrink: %s passes on seeds %d..%d; nothing to shrink\n", sc.Name, sh.f.seed, sh.f.seed+uint64(max(sh.f.seeds, 1))-1)
		return exitPass
	}
	sh.out = sh.outPath(sc.Name)
	base.Name = strings.TrimSuffix(sc.Name, "-shrunk") + "-shrunk"
	base.Description = fmt.Sprintf("Shrunk by simrun from %s, seed %d (%s). %s", sc.Ref(), sh.seed, sh.target, strings.TrimSpace(sc.Description))
	cur, err := sh.reparse(base)
	if err != nil {
		fmt.Fprintf(sh.stderr, "simrun shrink: the scenario does not survive YAML() and Parse: %v\n", err)
		return exitCrash
	}
	if o := sh.try(cur); o.Verdict != sh.target {
		fmt.Fprintf(sh.stderr, "simrun shrink: after YAML() and Parse the seed gives %s, not %s; shrinking anyway\n", o.Verdict, sh.target)
	}
	cur = sh.reduce(cur)
	return sh.report(sc, cur, stdout)
}

// findSeed looks for a failing seed and remembers it and its verdict.
func (sh *shrinker) findSeed(s *workloads.Scenario) bool {
	for k := range uint64(max(sh.f.seeds, 1)) {
		sh.seed = sh.f.seed + k
		if o := sh.try(s); o.Verdict != workloads.Pass {
			sh.target = o.Verdict
			fmt.Fprintf(sh.stderr, "shrink: %s seed %d fails: %s: %s\n", s.Name, sh.seed, o.Verdict, firstLine(o.Violations))
			return true
		}
	}
	return false
}

func (sh *shrinker) try(s *workloads.Scenario) workloads.Outcome {
	sh.runs++
	opt := sh.f.options(sh.seed)
	opt.Variants = nil // baked into the scenario
	return runJob(job{sc: s, opt: opt, replay: sh.f.replayFlags()})
}

// reduce applies the first candidate that still fails, again and again.
func (sh *shrinker) reduce(cur *workloads.Scenario) *workloads.Scenario {
	for sh.runs < sh.maxRuns {
		improved := false
		for _, c := range candidates(cur) {
			if sh.runs >= sh.maxRuns {
				fmt.Fprintf(sh.stderr, "shrink: stopped after %d runs (--max-runs)\n", sh.runs)
				break
			}
			next, err := sh.reparse(c.s)
			if err != nil {
				continue // a reduction the validator refuses
			}
			if o := sh.try(next); o.Verdict == sh.target {
				fmt.Fprintf(sh.stderr, "shrink: %s: still %s (run %d)\n", c.what, o.Verdict, sh.runs)
				cur, improved = next, true
				break
			}
		}
		if !improved {
			break
		}
	}
	return cur
}

// reparse validates a candidate the way a user's file is: through its
// YAML text and workloads.Parse, named after the output file.
func (sh *shrinker) reparse(s *workloads.Scenario) (*workloads.Scenario, error) {
	return workloads.Parse(sh.out, s.YAML())
}

func (sh *shrinker) outPath(name string) string {
	def := fmt.Sprintf("%s-seed%d-shrunk.yaml", strings.TrimSuffix(name, "-shrunk"), sh.seed)
	if sh.f.out == "" {
		return def
	}
	if st, err := os.Stat(sh.f.out); err == nil && st.IsDir() {
		return filepath.Join(sh.f.out, def)
	}
	return sh.f.out
}

func (sh *shrinker) report(orig, cur *workloads.Scenario, stdout io.Writer) int {
	o := sh.try(cur)
	y := cur.YAML()
	if err := writeAtomic(sh.out, y); err != nil {
		fmt.Fprintf(sh.stderr, "simrun shrink: %v\n", err)
		return exitUsage
	}
	fmt.Fprintf(sh.stderr, "shrink: %d runs; %s\n", sh.runs, sizeDiff(orig, cur))
	fmt.Fprintf(stdout, "# seed: %d\n# verdict: %s\n# violation: %s\n# trace_hash: %s\n# replay: %s\n%s",
		sh.seed, o.Verdict, firstLine(o.Violations), o.TraceHash, o.Replay, y)
	fmt.Fprintf(sh.stderr, "shrink: wrote %s\n", sh.out)
	return verdictExit(o.Verdict)
}

func firstLine(v []string) string {
	if len(v) == 0 {
		return ""
	}
	l, _, _ := strings.Cut(v[0], "\n")
	return l
}

// sizeDiff describes what shrinking removed.
func sizeDiff(a, b *workloads.Scenario) string {
	return fmt.Sprintf("jobs %d -> %d, pipelines %d -> %d, tasks %d -> %d, fault kinds %d -> %d, duration %v -> %v",
		a.Cluster.Jobs, b.Cluster.Jobs, a.Cluster.Pipelines, b.Cluster.Pipelines, a.Cluster.Tasks, b.Cluster.Tasks,
		len(faultKindsOn(a)), len(faultKindsOn(b)), a.Run.Duration.D, b.Run.Duration.D)
}

// durations shorter than d worth trying, in whole seconds, at least 1s.
func shorter(d time.Duration) []time.Duration {
	var out []time.Duration
	for _, x := range []time.Duration{d / 4, d / 2, d * 3 / 4} {
		x = x.Round(time.Second)
		if x >= time.Second && x < d && (len(out) == 0 || out[len(out)-1] != x) {
			out = append(out, x)
		}
	}
	return out
}
