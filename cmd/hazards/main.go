// Command hazards regenerates the hazard catalog (results/hazards.md): for
// each hazard of SPEC.md section D, the variant that reintroduces it, the
// scenario that makes it reachable, the general check that detects it, the
// seeds to first detection over independent campaigns (random walk and PCT
// separately), how many seeds the fixed design passes, the named race
// windows reached, a shrunk reproduction and its replay command; and the
// lock-order graph of the fixed coordinator over the whole campaign.
//
//	go run ./cmd/hazards [-campaigns 20] [-cap 40] [-fixed 100] [-out results] [-only H1,H4]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/sim/cluster"
	"github.com/ckptsim/ckptsim/workloads"
	"github.com/ckptsim/ckptsim/workloads/campaign"
)

// hazard is one row of the catalog.
type hazard struct {
	ID, Title string
	Scenario  string
	Bug       map[string]string // variants that reintroduce it
	Fixed     map[string]string // variants of the fixed design (nil: defaults)
	Detector  string
	Window    string // the race window that matters, if one is counted
	Note      string
}

var catalog = []hazard{
	{ID: "H1", Title: "stale expiry fails a restored generation", Scenario: "h1-stale-expiry",
		Bug: map[string]string{"expiry-fence": "none"}, Detector: "generation model (porcupine) and the generation-fence invariant",
		Window: cluster.WindowExpiryVsAck},
	{ID: "H2", Title: "cancel after the hand-off runs the body once", Scenario: "h2-cancel-after-handoff",
		Bug:      map[string]string{"expiry-fence": "none", "watchdog-recheck": "none"},
		Detector: "generation model (porcupine), with the cancel-after-handoff window counted",
		Window:   cluster.WindowCancelAfterHandoff,
		Note: "a body that runs once after its cancel returned true is harmless while bodies re-validate, so the variant removes both " +
			"re-validations (the watchdog's \"still pending\" and the expiry's fence); the window is zero virtual time wide and is reached " +
			"only because the scenario puts watchdogs and failovers on one time grid (a first version without the grid reached it 0 times " +
			"in 1 600 seeds). With both re-validations gone, an expiry armed before the restore also fails the new generation without " +
			"the cancel (the H1 path), so the table's count does not isolate the late body; the window column shows it is reached"},
	{ID: "H3", Title: "re-throw kills the dispatch worker", Scenario: "h3-kill-worker",
		Bug: map[string]string{"task-failure": "kill-worker"}, Detector: "worker-death invariant on the dispatch pool"},
	{ID: "H4", Title: "periodic trigger silently stops after a throw", Scenario: "h4-trigger-silent",
		Bug: map[string]string{"trigger-errors": "silent"}, Detector: "liveness phase (no checkpoint after faults stop)"},
	{ID: "H5", Title: "savepoint holds coord.lock across its sleep-poll", Scenario: "h5-savepoint-under-lock",
		Bug: map[string]string{"savepoint-wait": "under-lock"}, Detector: "scheduling-delay bound (checks.max_delay)"},
	{ID: "H6", Title: "thenAccept runs the continuation inline on the lock holder", Scenario: "h6-inline-continuation",
		Bug: map[string]string{"barrier-continuation": "inline"}, Detector: "one-pending invariant (pending counter -1)",
		Window: cluster.WindowInlineContinuation},
	{ID: "H7", Title: "null lease from mocks", Detector: "construction check: coord.New refuses a nil lease with the job and pipeline (TestNilLeaseRefused)",
		Note: "not a run-time race: prevented by construction and pinned by a unit test"},
	{ID: "H8", Title: "dispatch pool saturation delays triggers", Scenario: "h8-saturation",
		Bug: map[string]string{"design": "shared"}, Fixed: map[string]string{"design": "per-pipeline"},
		Detector: "scheduling-delay bound (checks.max_delay)",
		Note:     "the shared design trades drops for delay by design; the per-pipeline design is the comparison, at 2 threads per pipeline"},
	{ID: "H9", Title: "deferred error callers carry no generation", Scenario: "h9-deferred-fence",
		Bug: map[string]string{"deferred-fence": "none"}, Detector: "generation model (porcupine) and the generation-fence invariant"},
	{ID: "H10", Title: "retention desync after coordinator recreation", Scenario: "h10-retention",
		Bug: map[string]string{"retention": "memory"}, Detector: "retention invariant (at most 2N-1 checkpoints kept)"},
	{ID: "H11", Title: "expiry rejected by a shut-down coordinator executor", Scenario: "h11-step-down",
		Bug: map[string]string{"expiry-fallback": "drop"}, Detector: "liveness phase (no checkpoint after faults stop)",
		Window: ""},
}

type config struct {
	campaigns, cap, fixed, parallel int
	out                             string
	only                            map[string]bool
	shrink                          bool
}

// result is one row's measurements.
type result struct {
	Hazard      hazard
	Detect      map[string][]int // strategy -> seeds to first detection per campaign (0: not found)
	FirstSeed   map[string]int64 // strategy -> first detecting seed of campaign 0
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
	flag.Parse()
	if only != "" {
		cfg.only = map[string]bool{}
		for _, id := range strings.Split(only, ",") {
			cfg.only[strings.ToUpper(strings.TrimSpace(id))] = true
		}
	}
	if err := run(cfg); err != nil {
		fmt.Fprintln(os.Stderr, "hazards:", err)
		os.Exit(1)
	}
}

func run(cfg config) error {
	var results []result
	locks := sim.NewLockGraph()
	for _, h := range catalog {
		if cfg.only != nil && !cfg.only[h.ID] {
			continue
		}
		fmt.Fprintf(os.Stderr, "%s %s ...\n", h.ID, h.Title)
		r, err := measure(cfg, h, locks)
		if err != nil {
			return fmt.Errorf("%s: %w", h.ID, err)
		}
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
	for _, h := range catalog {
		if r, ok := byID[h.ID]; ok {
			r.Hazard = h
			out = append(out, r)
		}
	}
	return out
}

// pool runs fn over seeds with cfg.parallel workers (the campaign
// library's pool).
func pool[T any](n, parallel int, fn func(i int) T) []T { return campaign.Map(n, parallel, fn) }

func measure(cfg config, h hazard, locks *sim.LockGraph) (result, error) {
	start := time.Now()
	r := result{Hazard: h, Detect: map[string][]int{}, FirstSeed: map[string]int64{}, Windows: map[string]int{}, BugWindows: map[string]int{}}
	if h.Scenario == "" {
		r.Elapsed = time.Since(start)
		return r, nil
	}
	s, err := workloads.Lookup(h.Scenario)
	if err != nil {
		return r, err
	}
	var mu sync.Mutex
	for si, strategy := range []string{"random", "pct"} {
		found := pool(cfg.campaigns, cfg.parallel, func(c int) int {
			base := uint64(c)*1_000_000 + uint64(si)*500_000
			for i := range cfg.cap {
				out := workloads.Run(s, workloads.Options{Seed: base + uint64(i), Variants: h.Bug, Strategy: strategy})
				mu.Lock()
				for k, v := range out.Windows {
					r.BugWindows[k] += v
				}
				mu.Unlock()
				if out.Verdict != workloads.Pass {
					mu.Lock()
					if _, ok := r.FirstSeed[strategy]; !ok || c == 0 {
						r.FirstSeed[strategy] = int64(base + uint64(i))
						if r.FirstReason == "" || strategy == "random" {
							r.FirstReason = fmt.Sprintf("%s: %s", out.Verdict, firstLine(out.Violations))
						}
					}
					mu.Unlock()
					return i + 1
				}
			}
			return 0
		})
		r.Detect[strategy] = found
	}
	fixed := pool(cfg.fixed, cfg.parallel, func(i int) workloads.Outcome {
		return workloads.Run(s, workloads.Options{Seed: uint64(i), Variants: h.Fixed})
	})
	for _, out := range fixed {
		r.FixedSeeds++
		if out.Verdict == workloads.Pass {
			r.FixedPass++
		} else if len(r.FixedFail) < 5 {
			r.FixedFail = append(r.FixedFail, fmt.Sprintf("seed %d %s: %s", out.Seed, out.Verdict, firstLine(out.Violations)))
		}
		for k, v := range out.Windows {
			r.Windows[k] += v
		}
		locks.Merge(out.LockGraph)
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

// shrink shrinks the first detecting seed in-process (the campaign
// library's shrinker, as simrun shrink); it returns the path of the shrunk
// scenario, or "" when shrinking failed.
func shrink(cfg config, h hazard, seed uint64, strategy string) string {
	path := filepath.Join(cfg.out, "hazards", strings.ToLower(h.ID)+".yaml")
	s, err := workloads.Lookup(h.Scenario)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: shrink: %v\n", h.ID, err)
		return ""
	}
	res, err := campaign.Shrink(s, campaign.ShrinkConfig{Seed: seed, Variants: h.Bug, MaxRuns: 40, Path: path, Log: os.Stderr,
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

// stats returns median and worst seeds to detection, and how many
// campaigns found it.
func stats(found []int) (median, worst, hits int) {
	var xs []int
	for _, f := range found {
		if f > 0 {
			xs = append(xs, f)
		}
	}
	if len(xs) == 0 {
		return 0, 0, 0
	}
	sort.Ints(xs)
	return xs[len(xs)/2], xs[len(xs)-1], len(xs)
}
