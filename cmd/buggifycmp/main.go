// Command buggifycmp measures how much BUGGIFY speeds up finding a bug:
// for each (scenario, variant) case it runs independent campaigns over
// disjoint seed ranges, once with BUGGIFY off and once on over the same
// seeds, and reports the seeds to first detection of each campaign.
//
//	go run ./cmd/buggifycmp -out results/buggify
//
// writes results/buggify/detection.md and detection.json atomically.
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

	"github.com/ckptsim/ckptsim/workloads"
)

// bugCase is a planted or historical bug and the scenario it runs in.
type bugCase struct {
	Name     string            `json:"name"`
	Scenario string            `json:"scenario"`
	Variants map[string]string `json:"variants"`
	Why      string            `json:"why"`
}

// cases are bugs that the boundary faults of a general scenario reach
// rarely or never, and that a core site can open.
var cases = []bugCase{
	{Name: "H11 expiry dropped on rejection", Scenario: "smoke", Variants: map[string]string{"expiry-fallback": "drop"},
		Why: "smoke has no master step-down, so the executor never rejects an expiry; site executor-rejects does"},
	{Name: "H9 deferred error callers unfenced", Scenario: "h9-deferred-fence", Variants: map[string]string{"deferred-fence": "none"},
		Why: "the hazard's own scenario, built to reach it with boundary faults"},
}

type result struct {
	Case    bugCase           `json:"case"`
	Detect  map[string][]int  `json:"detect"` // buggify off|on -> seeds to first detection per campaign (0: not found)
	First   map[string]string `json:"first"`  // buggify off|on -> replay of the first detecting seed of campaign 0
	Elapsed string            `json:"elapsed"`
}

func main() {
	campaigns := flag.Int("campaigns", 10, "independent campaigns (disjoint seed ranges) per case and mode")
	limit := flag.Int("cap", 30, "seeds per campaign before the bug counts as not found")
	parallel := flag.Int("parallel", runtime.NumCPU(), "campaigns run at once")
	out := flag.String("out", "results/buggify", "output folder")
	only := flag.String("only", "", "run only the cases whose scenario is in this comma-separated list")
	flag.Parse()
	var results []result
	for _, c := range cases {
		if *only != "" && !strings.Contains(","+*only+",", ","+c.Scenario+",") {
			continue
		}
		fmt.Fprintf(os.Stderr, "%s on %s ...\n", c.Name, c.Scenario)
		r, err := measure(c, *campaigns, *limit, *parallel)
		if err != nil {
			fmt.Fprintln(os.Stderr, "buggifycmp:", err)
			os.Exit(1)
		}
		results = append(results, r)
	}
	cmd := "go run ./cmd/buggifycmp " + strings.Join(os.Args[1:], " ")
	if err := writeAtomic(filepath.Join(*out, "detection.md"), []byte(render(cmd, *campaigns, *limit, results))); err != nil {
		fmt.Fprintln(os.Stderr, "buggifycmp:", err)
		os.Exit(1)
	}
	b, _ := json.MarshalIndent(results, "", "  ")
	if err := writeAtomic(filepath.Join(*out, "detection.json"), b); err != nil {
		fmt.Fprintln(os.Stderr, "buggifycmp:", err)
		os.Exit(1)
	}
}

// measure runs the campaigns of one case: campaign c covers seeds
// [c*cap, (c+1)*cap), the same for BUGGIFY off and on.
func measure(c bugCase, campaigns, limit, parallel int) (result, error) {
	start := time.Now()
	s, err := workloads.Lookup(c.Scenario)
	if err != nil {
		return result{}, err
	}
	r := result{Case: c, Detect: map[string][]int{}, First: map[string]string{}}
	for _, mode := range []string{"off", "on"} {
		first := make([]string, campaigns)
		r.Detect[mode] = pool(campaigns, parallel, func(k int) int {
			for i := range limit {
				seed := uint64(k*limit + i)
				o := workloads.Run(s, workloads.Options{Seed: seed, Variants: c.Variants, Buggify: mode})
				if o.Verdict != workloads.Pass {
					first[k] = o.Replay
					return i + 1
				}
			}
			return 0
		})
		r.First[mode] = first[0]
	}
	r.Elapsed = time.Since(start).Round(time.Second).String()
	return r, nil
}

// pool runs fn(0..n-1) with parallel workers.
func pool(n, parallel int, fn func(i int) int) []int {
	out := make([]int, n)
	var wg sync.WaitGroup
	next := make(chan int)
	for range max(parallel, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i] = fn(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// stats returns median and worst seeds to detection over the campaigns
// that found the bug, and how many did.
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

func cell(found []int, limit int) string {
	m, w, hits := stats(found)
	if hits == 0 {
		return fmt.Sprintf("not found (0/%d campaigns, %d seeds each)", len(found), limit)
	}
	return fmt.Sprintf("%d / %d (%d/%d campaigns)", m, w, hits, len(found))
}

func render(cmd string, campaigns, limit int, rs []result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Seeds to detection with BUGGIFY off and on\n\nGenerated by `%s`.\n\n", cmd)
	fmt.Fprintf(&b, "Each case runs %d independent campaigns over disjoint seed ranges (campaign c: seeds c x %d .. c x %d + %d), ", campaigns, limit, limit, limit-1)
	b.WriteString("once with BUGGIFY off and once with `--buggify on` (each site on in about half the seeds, firing at 10% of its calls) over the same seeds. ")
	b.WriteString("A campaign's figure is the number of seeds it ran until its first failing seed; the cells give median / worst over the campaigns that found the bug.\n\n")
	b.WriteString("| bug | variant | scenario | BUGGIFY off | BUGGIFY on | why |\n|---|---|---|---|---|---|\n")
	for _, r := range rs {
		fmt.Fprintf(&b, "| %s | `%s` | `%s` | %s | %s | %s |\n", r.Case.Name, workloads.VariantString(r.Case.Variants), r.Case.Scenario,
			cell(r.Detect["off"], limit), cell(r.Detect["on"], limit), r.Case.Why)
	}
	b.WriteString("\nFirst detecting seed of campaign 0:\n\n")
	for _, r := range rs {
		for _, mode := range []string{"off", "on"} {
			if r.First[mode] != "" {
				fmt.Fprintf(&b, "- %s on `%s`, BUGGIFY %s: `%s`\n", r.Case.Name, r.Case.Scenario, mode, r.First[mode])
			}
		}
	}
	return b.String()
}

func writeAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
