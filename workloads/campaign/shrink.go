package campaign

import (
	"fmt"
	"io"
	"maps"
	"strings"
	"time"

	"github.com/ckptsim/ckptsim/workloads"
)

// ShrinkConfig says how to shrink a scenario.
type ShrinkConfig struct {
	// Seed and Seeds: search Seeds seeds (at least 1) from Seed for the
	// first that fails.
	Seed  uint64
	Seeds int
	// Variants are baked into the shrunk scenario's variants.
	Variants map[string]string
	// Checks, when set, narrow "fails the same way": a seed or candidate
	// counts only when one of these check ids fires (Found), besides
	// keeping the verdict class; nil: any failure of the same class.
	Checks []string
	// Run runs one seed of a candidate (its variants are in the scenario).
	Run func(s *workloads.Scenario, seed uint64) workloads.Outcome
	// Path names the candidates when they are parsed again (the output
	// file; its name appears in errors); "" derives one from the seed.
	Path string
	// MaxRuns stops shrinking after this many runs (0: 300).
	MaxRuns int
	// Log receives one line per step (nil: none).
	Log io.Writer
}

// ShrinkResult is a shrink's outcome.
type ShrinkResult struct {
	Found    bool              // a failing seed was found
	Seed     uint64            // the failing seed
	Target   workloads.Verdict // its verdict class, kept by every step (with one of ShrinkConfig.Checks, when set)
	Scenario *workloads.Scenario
	Outcome  workloads.Outcome // the shrunk scenario's run
	Runs     int
	Path     string
}

// Shrink reduces a failing seed of sc to a smaller scenario that fails the
// same way: with the same seed and verdict class it tries fewer jobs,
// pipelines and tasks, fewer fault kinds, a shorter run and lower rates,
// keeping each change that still fails, until none does. Each candidate is
// written as YAML and parsed again, so what it returns is what ran.
func Shrink(sc *workloads.Scenario, cfg ShrinkConfig) (ShrinkResult, error) {
	sh := &shrinker{cfg: cfg}
	if sh.cfg.MaxRuns <= 0 {
		sh.cfg.MaxRuns = 300
	}
	base := clone(sc)
	base.Variants = map[string]string{}
	maps.Copy(base.Variants, sc.Variants)
	maps.Copy(base.Variants, cfg.Variants)
	if !sh.findSeed(base) {
		return ShrinkResult{Runs: sh.runs}, nil
	}
	sh.path = cfg.Path
	if sh.path == "" {
		sh.path = DefaultShrinkName(sc.Name, sh.seed)
	}
	base.Name = strings.TrimSuffix(sc.Name, "-shrunk") + "-shrunk"
	base.Description = fmt.Sprintf("Shrunk by simrun from %s, seed %d (%s). %s", sc.Ref(), sh.seed, sh.target, strings.TrimSpace(sc.Description))
	cur, err := sh.reparse(base)
	if err != nil {
		return ShrinkResult{}, fmt.Errorf("the scenario does not survive YAML() and Parse: %w", err)
	}
	if o := sh.try(cur); o.Verdict != sh.target {
		sh.logf("shrink: after YAML() and Parse the seed gives %s, not %s; shrinking anyway", o.Verdict, sh.target)
	}
	cur = sh.reduce(cur)
	o := sh.try(cur)
	return ShrinkResult{Found: true, Seed: sh.seed, Target: sh.target, Scenario: cur, Outcome: o, Runs: sh.runs, Path: sh.path}, nil
}

// DefaultShrinkName is the file name of a shrunk scenario.
func DefaultShrinkName(name string, seed uint64) string {
	return fmt.Sprintf("%s-seed%d-shrunk.yaml", strings.TrimSuffix(name, "-shrunk"), seed)
}

type shrinker struct {
	cfg    ShrinkConfig
	runs   int
	seed   uint64
	target workloads.Verdict
	path   string
}

func (sh *shrinker) logf(format string, args ...any) {
	if sh.cfg.Log != nil {
		fmt.Fprintf(sh.cfg.Log, format+"\n", args...)
	}
}

// findSeed looks for a failing seed and remembers it and its verdict.
func (sh *shrinker) findSeed(s *workloads.Scenario) bool {
	for k := range uint64(max(sh.cfg.Seeds, 1)) {
		sh.seed = sh.cfg.Seed + k
		if o := sh.try(s); o.Verdict != workloads.Pass && sh.named(o) {
			sh.target = o.Verdict
			sh.logf("shrink: %s seed %d fails: %s: %s", s.Name, sh.seed, o.Verdict, FirstLine(o.Violations))
			return true
		}
	}
	return false
}

// named reports whether o carries one of the configured checks (always
// true when none is configured).
func (sh *shrinker) named(o workloads.Outcome) bool {
	if len(sh.cfg.Checks) == 0 {
		return true
	}
	_, ok := Found(o, sh.cfg.Checks...)
	return ok
}

func (sh *shrinker) try(s *workloads.Scenario) workloads.Outcome {
	sh.runs++
	return sh.cfg.Run(s, sh.seed)
}

// reduce applies the first candidate that still fails, again and again.
func (sh *shrinker) reduce(cur *workloads.Scenario) *workloads.Scenario {
	for sh.runs < sh.cfg.MaxRuns {
		improved := false
		for _, c := range candidates(cur, sh.seed) {
			if sh.runs >= sh.cfg.MaxRuns {
				sh.logf("shrink: stopped after %d runs (max runs)", sh.runs)
				break
			}
			next, err := sh.reparse(c.s)
			if err != nil {
				continue // a reduction the validator refuses
			}
			if o := sh.try(next); o.Verdict == sh.target && sh.named(o) {
				sh.logf("shrink: %s: still %s (run %d)", c.what, o.Verdict, sh.runs)
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
	return workloads.Parse(sh.path, s.YAML())
}

// FirstLine is the first line of the first violation ("" when none).
func FirstLine(v []string) string {
	if len(v) == 0 {
		return ""
	}
	l, _, _ := strings.Cut(v[0], "\n")
	return l
}

// SizeDiff describes what shrinking removed.
func SizeDiff(a, b *workloads.Scenario) string {
	return fmt.Sprintf("jobs %d -> %d, pipelines %d -> %d, tasks %d -> %d, fault kinds %d -> %d, duration %v -> %v",
		a.Cluster.Jobs, b.Cluster.Jobs, a.Cluster.Pipelines, b.Cluster.Pipelines, a.Cluster.Tasks, b.Cluster.Tasks,
		len(FaultKindsOn(a)), len(FaultKindsOn(b)), a.Run.Duration.D, b.Run.Duration.D)
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
