// Command hazards regenerates the hazard catalog (results/hazards.md): for
// each hazard of SPEC.md section D, the variant that reintroduces it, the
// scenario that makes it reachable, the general check that detects it, the
// seeds to first detection over independent campaigns (random walk and PCT
// separately), how many seeds the fixed design passes, the named race
// windows reached, a shrunk reproduction and its replay command; and the
// lock-order graph of the fixed coordinator over the whole campaign.
// The rows are workloads/hazards/catalog.yaml (workloads.HazardCatalog);
// each measured row records the commit it ran at (with "-dirty" when the
// tree outside results/ differed from it).
//
//	go run ./cmd/hazards [-campaigns 20] [-cap 40] [-fixed 100] [-out results] [-only H1,H4]
//	go run ./cmd/hazards -spread H8 [-seeds 40]   # scheduling-delay spread, bug vs fixed design
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/workloads"
	"github.com/ckptsim/ckptsim/workloads/campaign"
)

type config struct {
	campaigns, cap, fixed, parallel int
	out                             string
	only                            map[string]bool
	shrink                          bool
	catalog                         []workloads.Hazard
	commit                          string // recorded in each measured row
}

// command is the command line that reproduces this configuration's catalog.
func (cfg config) command() string {
	c := fmt.Sprintf("go run ./cmd/hazards -campaigns %d -cap %d -fixed %d", cfg.campaigns, cfg.cap, cfg.fixed)
	if !cfg.shrink {
		c += " -shrink=false"
	}
	return c
}

// result is one row's measurements.
type result struct {
	Hazard workloads.Hazard
	// Commit is the commit the row was measured at, "-dirty" appended when
	// the tree outside results/ differed from it ("" in rows measured
	// before it was recorded).
	Commit      string            `json:"commit,omitempty"`
	Detect      map[string][]int  // strategy -> seeds to first detection per campaign (0: not found)
	Runs        map[string]int    // strategy -> bug-variant seeds run (the detection rate's trials)
	Fired       map[string]int    // named check id -> detecting seeds it fired in
	Fixed       map[string][2]int // strategy -> fixed design (passed, seeds), over the bug campaigns' seed ranges
	FirstSeed   map[string]int64  // strategy -> first detecting seed of campaign 0
	FirstReason string
	// ReproStrategy is the strategy of the reproduction (random when it
	// found the hazard, else pct).
	ReproStrategy string
	FixedSeeds    int
	FixedPass     int
	FixedFail     []string
	Windows       map[string]int // summed over the fixed run
	BugWindows    map[string]int // summed over the bug runs
	Shrunk        string
	Replay        string
	Elapsed       time.Duration
}

func main() {
	var cfg config
	var only string
	flag.IntVar(&cfg.campaigns, "campaigns", 20, "independent campaigns per strategy")
	flag.IntVar(&cfg.cap, "cap", 40, "seeds per campaign before a hazard counts as not found")
	flag.IntVar(&cfg.fixed, "fixed", 100, "seeds of the fixed design per hazard scenario")
	flag.IntVar(&cfg.parallel, "parallel", runtime.NumCPU(), "seeds run at once")
	flag.StringVar(&cfg.out, "out", "results", "output folder")
	flag.StringVar(&only, "only", "", "comma-separated hazard ids (default: all)")
	flag.BoolVar(&cfg.shrink, "shrink", true, "shrink the first detecting seed (in-process, as simrun shrink)")
	quick := flag.Bool("quick", false, "a quick pass for testing: 2 campaigns of 8 seeds, 8 fixed seeds per strategy, no shrinking (overrides those flags)")
	spreadID := flag.String("spread", "", "instead of the catalog: the scheduling-delay spread of one row's scenario, bug variant against the fixed design (see -seeds)")
	seeds := flag.Int("seeds", 40, "with -spread: seeds per design and strategy")
	reproOnly := flag.Bool("repro-only", false, "run nothing: rewrite hazards/repro.mk from the committed hazards.json (the replay commands its runs found)")
	flag.Parse()
	if *quick {
		cfg.campaigns, cfg.cap, cfg.fixed, cfg.shrink = 2, 8, 8, false
	}
	var err error
	if cfg.catalog, err = workloads.HazardCatalog(); err != nil {
		fail(err)
	}
	if *reproOnly {
		if err := rewriteRepro(cfg.out); err != nil {
			fail(err)
		}
		return
	}
	if *spreadID != "" {
		if err := spread(os.Stdout, cfg, strings.ToUpper(*spreadID), *seeds); err != nil {
			fail(err)
		}
		return
	}
	if only != "" {
		cfg.only = map[string]bool{}
		for _, id := range strings.Split(only, ",") {
			cfg.only[strings.ToUpper(strings.TrimSpace(id))] = true
		}
	}
	cfg.commit = headCommit()
	if err := run(cfg); err != nil {
		fail(err)
	}
}

// rewriteRepro writes out/hazards/repro.mk from out/hazards.json.
func rewriteRepro(out string) error {
	b, err := os.ReadFile(filepath.Join(out, "hazards.json"))
	if err != nil {
		return err
	}
	var rs []result
	if err := json.Unmarshal(b, &rs); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(out, "hazards.json"), err)
	}
	return writeAtomic(filepath.Join(out, "hazards", "repro.mk"), []byte(reproMk(rs)))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "hazards:", err)
	os.Exit(1)
}

// headCommit is the commit the tree is at, abbreviated, with "-dirty" when
// the tree outside results/ and README.md (what a run writes: make mutants,
// which make verdicts runs before make hazards, re-renders README.md's
// figures block from results/) differs from it, untracked files included;
// "unknown" outside a git checkout.
func headCommit() string {
	git := func(args ...string) (string, error) {
		b, err := exec.Command("git", args...).Output()
		return strings.TrimSpace(string(b)), err
	}
	commit, err := git("rev-parse", "--short=12", "HEAD")
	if err != nil {
		fmt.Fprintln(os.Stderr, "hazards: no git commit to record:", err)
		return "unknown"
	}
	st, err := git("status", "--porcelain", "--", ".", ":(exclude)results", ":(exclude)README.md")
	if err != nil || st != "" {
		commit += "-dirty"
	}
	return commit
}

// lookup is the catalog row id.
func (cfg config) lookup(id string) (workloads.Hazard, bool) {
	for _, h := range cfg.catalog {
		if h.ID == id {
			return h, true
		}
	}
	return workloads.Hazard{}, false
}

func run(cfg config) error {
	for id := range cfg.only {
		if _, ok := cfg.lookup(id); !ok {
			return fmt.Errorf("-only %s: no such row in workloads/hazards/catalog.yaml", id)
		}
	}
	var results []result
	locks := sim.NewLockGraph()
	for _, h := range cfg.catalog {
		if cfg.only != nil && !cfg.only[h.ID] {
			continue
		}
		fmt.Fprintf(os.Stderr, "%s %s ...\n", h.ID, h.Title)
		r, err := measure(cfg, h, locks)
		if err != nil {
			return fmt.Errorf("%s: %w", h.ID, err)
		}
		r.Commit = cfg.commit
		results = append(results, r)
	}
	if cfg.only != nil {
		results = mergePrevious(cfg, results)
	}
	if err := writeAtomic(filepath.Join(cfg.out, "hazards.md"), []byte(render(cfg, results))); err != nil {
		return err
	}
	b, _ := json.MarshalIndent(results, "", "  ")
	if err := writeAtomic(filepath.Join(cfg.out, "hazards.json"), b); err != nil {
		return err
	}
	if err := writeAtomic(filepath.Join(cfg.out, "hazards", "repro.mk"), []byte(reproMk(results))); err != nil {
		return err
	}
	if cfg.only != nil {
		return nil // the lock-order report needs every scenario
	}
	return writeAtomic(filepath.Join(cfg.out, "lock-order.md"), []byte(lockReport(cfg, locks)))
}

// mergePrevious keeps the rows of an earlier full run that -only did not
// measure again, in catalog order.
func mergePrevious(cfg config, fresh []result) []result {
	byID := map[string]result{}
	if b, err := os.ReadFile(filepath.Join(cfg.out, "hazards.json")); err == nil {
		var old []result
		if json.Unmarshal(b, &old) == nil {
			for _, r := range old {
				byID[r.Hazard.ID] = r
			}
		}
	}
	for _, r := range fresh {
		byID[r.Hazard.ID] = r
	}
	var out []result
	for _, h := range cfg.catalog {
		if r, ok := byID[h.ID]; ok {
			r.Hazard = h
			out = append(out, r)
		}
	}
	return out
}

// seedBase is the first seed of campaign c of a strategy: disjoint ranges.
func seedBase(c, strategy int) uint64 { return uint64(c)*1_000_000 + uint64(strategy)*500_000 }

var strategies = []string{"random", "pct"}

// detects reports whether a run found the hazard: one of its named checks
// fired (campaign.Found: any other failure, a crash, a budget or unknown is
// not a detection).
func detects(h workloads.Hazard, out workloads.Outcome) (string, bool) {
	return campaign.Found(out, h.Checks...)
}

func measure(cfg config, h workloads.Hazard, locks *sim.LockGraph) (result, error) {
	start := time.Now()
	r := result{Hazard: h, Detect: map[string][]int{}, FirstSeed: map[string]int64{}, Windows: map[string]int{}, BugWindows: map[string]int{},
		Runs: map[string]int{}, Fired: map[string]int{}, Fixed: map[string][2]int{}}
	if h.Scenario == "" || h.Pending != "" {
		r.Elapsed = time.Since(start)
		return r, nil
	}
	s, err := workloads.Lookup(h.Scenario)
	if err != nil {
		return r, err
	}
	var mu sync.Mutex
	for si, strategy := range strategies {
		base := func(c int) uint64 { return seedBase(c, si) }
		r.Detect[strategy] = campaign.SeedsToDetection(cfg.campaigns, cfg.cap, cfg.parallel, base, func(c int, seed uint64) bool {
			out := workloads.Run(s, workloads.Options{Seed: seed, Variants: h.Bug, Strategy: strategy})
			id, hit := detects(h, out)
			mu.Lock()
			defer mu.Unlock()
			r.Runs[strategy]++
			for k, v := range out.Windows {
				r.BugWindows[k] += v
			}
			if hit {
				r.Fired[id]++
				if _, ok := r.FirstSeed[strategy]; !ok || c == 0 {
					r.FirstSeed[strategy] = int64(seed)
					if r.FirstReason == "" || strategy == "random" {
						r.FirstReason = fmt.Sprintf("%s [%s]: %s", out.Verdict, id, firstFinding(out, id))
					}
				}
			}
			return hit
		})
	}
	// The fixed design runs with every strategy that found the bug (random
	// when none did), over the bug campaigns' seed ranges.
	per := (cfg.fixed + cfg.campaigns - 1) / max(cfg.campaigns, 1)
	for si, strategy := range strategies {
		if _, _, hits := campaign.DetectionStats(r.Detect[strategy]); hits == 0 && (strategy != "random" || len(r.FirstSeed) > 0) {
			continue
		}
		fixed := campaign.Map(cfg.campaigns*per, cfg.parallel, func(i int) workloads.Outcome {
			return workloads.Run(s, workloads.Options{Seed: seedBase(i/per, si) + uint64(i%per), Variants: h.Fixed, Strategy: strategy})
		})
		var st [2]int
		for _, out := range fixed {
			st[1]++
			if out.Verdict == workloads.Pass {
				st[0]++
			} else if len(r.FixedFail) < 5 {
				r.FixedFail = append(r.FixedFail, fmt.Sprintf("%s seed %d %s: %s", strategy, out.Seed, out.Verdict, firstLine(out.Violations)))
			}
			for k, v := range out.Windows {
				r.Windows[k] += v
			}
			locks.Merge(out.LockGraph)
		}
		r.Fixed[strategy] = st
		r.FixedSeeds += st[1]
		r.FixedPass += st[0]
	}
	strategy := "random"
	seed, ok := r.FirstSeed[strategy]
	if !ok {
		strategy = "pct"
		seed, ok = r.FirstSeed[strategy]
	}
	if ok {
		r.ReproStrategy = strategy
		r.Replay = workloads.ReplayCommand(s, uint64(seed), h.Bug)
		if strategy != "random" {
			r.Replay += " --strategy " + strategy
		}
		if cfg.shrink {
			r.Shrunk = shrink(cfg, h, uint64(seed), strategy)
		}
	}
	r.Elapsed = time.Since(start)
	return r, nil
}

// firstFinding is the message of the first finding of check id.
func firstFinding(out workloads.Outcome, id string) string {
	for _, f := range out.Findings {
		if f.Check == id {
			return firstLine([]string{f.String()})
		}
	}
	return firstLine(out.Violations)
}

// wilson is the 95% Wilson score interval of k successes in n trials.
func wilson(k, n int) (lo, hi float64) {
	if n == 0 {
		return 0, 1
	}
	const z = 1.959963984540054
	p, nf := float64(k)/float64(n), float64(n)
	d := 1 + z*z/nf
	c := (p + z*z/(2*nf)) / d
	w := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / d
	return math.Max(0, c-w), math.Min(1, c+w)
}

// shrink shrinks the first detecting seed in-process (the campaign
// library's shrinker, as simrun shrink); it returns the path of the shrunk
// scenario, or "" when shrinking failed.
func shrink(cfg config, h workloads.Hazard, seed uint64, strategy string) string {
	path := filepath.Join(cfg.out, "hazards", strings.ToLower(h.ID)+".yaml")
	s, err := workloads.Lookup(h.Scenario)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: shrink: %v\n", h.ID, err)
		return ""
	}
	res, err := campaign.Shrink(s, campaign.ShrinkConfig{Seed: seed, Variants: h.Bug, Checks: h.Checks, MaxRuns: 40, Path: path, Log: os.Stderr,
		Run: func(sc *workloads.Scenario, seed uint64) workloads.Outcome {
			return workloads.Run(sc, workloads.Options{Seed: seed, Strategy: strategy})
		}})
	if err == nil && res.Found {
		err = writeAtomic(path, res.Scenario.YAML())
	}
	if err != nil || !res.Found {
		fmt.Fprintf(os.Stderr, "%s: shrink: seed %d found nothing to shrink (%v)\n", h.ID, seed, err)
		return ""
	}
	return path
}

func firstLine(v []string) string {
	if len(v) == 0 {
		return ""
	}
	l, _, _ := strings.Cut(v[0], "\n")
	if len(l) > 160 {
		l = l[:160] + "..."
	}
	return l
}

// writeAtomic writes durably and atomically (file and folder fsynced).
func writeAtomic(path string, b []byte) error { return campaign.WriteFile(path, b) }
