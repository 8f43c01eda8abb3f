// Command mutants measures the harness's own mutation score: each planted
// bug of testdata/mutants (a small patch to core/ or sim/ whose header names
// the check that must find it) is applied to a temporary copy of the
// repository, simrun is built from that copy, and campaigns of the mutant's
// scenario run with each strategy until the named check fires (or the seed
// cap is reached). It writes results/mutants.md and results/mutants.json:
// per mutant, the checks that fired, whether the named one did, and the
// seeds to first detection per strategy; whether the targeted tests fail
// on the mutant (`go test -short -count=1` of the packages the patch
// touches and ./workloads: the affordable stand-in for `make test`, see
// -tests); with -make-test, also whether `make test` itself fails.
//
//	go run ./cmd/mutants [-seeds 1000] [-only a,b] [-resume] [-parallel 1] [-tests=false] [-make-test]
//
// A patch that no longer applies to the tree is an error naming its file;
// nothing runs until every patch applies.
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	durable "github.com/ckptsim/ckptsim/workloads/campaign"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

type config struct {
	dir          string // the mutants folder
	out          string // the results folder
	seeds        int    // seed cap per campaign
	pendingSeeds int    // seed cap for a mutant whose check is pending
	first        uint64 // first seed
	parallel     int    // mutants at once
	seedParallel int    // simrun --parallel
	timeout      time.Duration
	only         map[string]bool
	resume       bool
	makeTest     bool
	tests        bool
	testsOnly    bool
	testsTimeout time.Duration
	keep         bool
	cmdline      string
}

// Campaign is one strategy's stop-at-first-detection campaign.
type Campaign struct {
	Strategy string   `json:"strategy"`
	Ran      int      `json:"seeds_ran"`          // seeds judged before it stopped
	Found    int      `json:"seeds_to_detection"` // 0: the named check never fired
	Seed     int64    `json:"detecting_seed"`     // -1 when not found
	Fired    []string `json:"fired"`              // every check id seen on a failing seed
	First    string   `json:"first_failure,omitempty"`
	Replay   string   `json:"replay,omitempty"`
	TimedOut bool     `json:"timed_out,omitempty"`
	WallS    float64  `json:"wall_s"`
}

// Result is one mutant's row.
type Result struct {
	Mutant    *Mutant    `json:"mutant"`
	PatchHash string     `json:"patch_sha256"`
	Pending   bool       `json:"pending,omitempty"` // the named check has not landed here yet
	Error     string     `json:"error,omitempty"`
	Campaigns []Campaign `json:"campaigns"`
	Fired     []string   `json:"fired"`
	Detected  bool       `json:"detected"`            // the named check fired in some campaign
	MakeTest  string     `json:"make_test,omitempty"` // "fails", "passes" or "" (not run)
	// Tests is the targeted test run's outcome ("fails", "passes", "" not
	// run), TestsCommand what ran in the mutant's copy, TestsFailed the
	// first failing tests or packages it reported.
	Tests        string   `json:"tests,omitempty"`
	TestsCommand string   `json:"tests_command,omitempty"`
	TestsFailed  []string `json:"tests_failed,omitempty"`
	Cap          int      `json:"seed_cap"`
	WallS        float64  `json:"wall_s"`
}

// Report is results/mutants.json.
type Report struct {
	Command string    `json:"command"`
	Commit  string    `json:"commit"`
	Date    string    `json:"date"`
	Seeds   int       `json:"seed_cap"`
	Results []*Result `json:"results"`
}

func main() {
	var cfg config
	var only string
	flag.StringVar(&cfg.dir, "dir", "testdata/mutants", "folder of the mutant patches")
	flag.StringVar(&cfg.out, "out", "results", "folder for mutants.md and mutants.json")
	flag.IntVar(&cfg.seeds, "seeds", 1000, "seeds per campaign before a mutant counts as not found")
	flag.IntVar(&cfg.pendingSeeds, "pending-seeds", 20, "seeds per campaign for a mutant whose named check has not landed (it cannot be found)")
	flag.Uint64Var(&cfg.first, "seed", 0, "first seed of every campaign")
	flag.IntVar(&cfg.parallel, "parallel", 1, "mutants measured at once")
	flag.IntVar(&cfg.seedParallel, "seed-parallel", runtime.NumCPU(), "seeds run at once within a campaign (simrun --parallel)")
	flag.DurationVar(&cfg.timeout, "timeout", 20*time.Minute, "wall-clock limit of one campaign")
	flag.StringVar(&only, "only", "", "comma-separated mutant names (default: all); other rows are kept from the previous mutants.json")
	flag.BoolVar(&cfg.resume, "resume", false, "keep rows of the previous mutants.json whose patch and seed cap are unchanged")
	flag.BoolVar(&cfg.makeTest, "make-test", false, "also run `make test` on each mutant (slow)")
	flag.BoolVar(&cfg.tests, "tests", true, "run `go test -short -count=1` on the packages each patch touches and ./workloads in the mutant's copy, and record whether it fails")
	flag.BoolVar(&cfg.testsOnly, "tests-only", false, "run only the targeted tests of the selected mutants and add them to their rows of the previous mutants.json (campaigns kept as they are)")
	flag.DurationVar(&cfg.testsTimeout, "tests-timeout", 15*time.Minute, "wall-clock limit of one mutant's targeted test run (a run cut off counts as failing)")
	flag.BoolVar(&cfg.keep, "keep", false, "keep the temporary copies")
	renderOnly := flag.Bool("render-only", false, "rewrite mutants.md from mutants.json without running anything")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "mutants: unexpected argument %q\n", flag.Arg(0))
		os.Exit(64)
	}
	if only != "" {
		cfg.only = map[string]bool{}
		for _, n := range strings.Split(only, ",") {
			cfg.only[strings.TrimSpace(n)] = true
		}
	}
	cfg.cmdline = "go run ./cmd/mutants " + strings.Join(os.Args[1:], " ")
	cfg.cmdline = strings.TrimSpace(cfg.cmdline)
	if *renderOnly {
		if err := rerender(cfg.out); err != nil {
			fmt.Fprintln(os.Stderr, "mutants:", err)
			os.Exit(1)
		}
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code, err := run(ctx, cfg)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutants:", err)
		os.Exit(1)
	}
	os.Exit(code)
}

// run measures the mutants; it returns 1 when a mutant failed to build or
// was not found by its named (landed) check.
func run(ctx context.Context, cfg config) (int, error) {
	root, err := gitOut(".", "rev-parse", "--show-toplevel")
	if err != nil {
		return 0, fmt.Errorf("not in a git checkout: %v", err)
	}
	ms, err := LoadMutants(under(root, cfg.dir))
	if err != nil {
		return 0, err
	}
	for n := range cfg.only {
		if !slices.ContainsFunc(ms, func(m *Mutant) bool { return m.Name == n }) {
			return 0, fmt.Errorf("-only: no mutant %q in %s", n, cfg.dir)
		}
	}
	for _, m := range ms {
		if known, _ := CheckKnown(m.Check); !known {
			return 0, fmt.Errorf("%s: check %q is not a known check id", m.File, m.Check)
		}
		if err := applyCheck(root, m.File); err != nil {
			return 0, err
		}
	}
	outDir := under(root, cfg.out)
	prev, prevRep := previous(filepath.Join(outDir, "mutants.json"))
	commit, _ := gitOut(root, "describe", "--always", "--dirty")
	rep := &Report{Command: cfg.cmdline, Commit: commit, Date: time.Now().UTC().Format(time.RFC3339), Seeds: cfg.seeds}
	if (cfg.only != nil || cfg.resume) && prevRep.Command != "" {
		// rows kept from the earlier run came from its command and commit
		rep.Command = prevRep.Command + "`, then `" + cfg.cmdline
		if prevRep.Commit != commit {
			rep.Commit = prevRep.Commit + "` then `" + commit
		}
	}
	rep.Results = make([]*Result, len(ms))
	var todo []int
	for i, m := range ms {
		hash := patchHash(m)
		if p, ok := prev[m.Name]; ok && ((cfg.only != nil && !cfg.only[m.Name]) ||
			(cfg.resume && p.PatchHash == hash && p.Cap == cfg.seeds && p.Error == "")) {
			p.Mutant = m
			rep.Results[i] = p
			continue
		}
		if cfg.only != nil && !cfg.only[m.Name] {
			continue
		}
		todo = append(todo, i)
	}
	var mu sync.Mutex
	write := func() error {
		mu.Lock()
		defer mu.Unlock()
		return writeReport(outDir, rep)
	}
	next := make(chan int)
	var wg sync.WaitGroup
	var werr error
	for range max(cfg.parallel, 1) {
		wg.Go(func() {
			for i := range next {
				if ctx.Err() != nil {
					continue // interrupted: keep what finished
				}
				var r *Result
				if cfg.testsOnly {
					r = testsOnly(ctx, cfg, root, ms[i], prev[ms[i].Name])
				} else {
					r = measure(ctx, cfg, root, ms[i])
				}
				mu.Lock()
				rep.Results[i] = r
				mu.Unlock()
				if err := write(); err != nil {
					mu.Lock()
					werr = err
					mu.Unlock()
				}
			}
		})
	}
	for _, i := range todo {
		next <- i
	}
	close(next)
	wg.Wait()
	if werr != nil {
		return 0, werr
	}
	if err := write(); err != nil {
		return 0, err
	}
	code := 0
	for _, r := range rep.Results {
		if r != nil && (r.Error != "" || (!r.Detected && !r.Pending)) {
			code = 1
		}
	}
	return code, nil
}

// under resolves a flag's path against the repository root unless it is
// absolute.
func under(root, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(root, p)
}

func patchHash(m *Mutant) string {
	h := sha256.Sum256(m.Patch)
	return hex.EncodeToString(h[:])
}

// rerender rewrites mutants.md from the mutants.json in out.
func rerender(out string) error {
	root, err := gitOut(".", "rev-parse", "--show-toplevel")
	if err != nil {
		return err
	}
	path := filepath.Join(under(root, out), "mutants.json")
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var rep Report
	if err := json.Unmarshal(b, &rep); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return durable.WriteFile(filepath.Join(under(root, out), "mutants.md"), []byte(render(&rep)))
}

// previous reads the rows of an earlier mutants.json by mutant name, and
// the report itself.
func previous(path string) (map[string]*Result, Report) {
	out := map[string]*Result{}
	var rep Report
	b, err := os.ReadFile(path)
	if err != nil {
		return out, rep
	}
	if json.Unmarshal(b, &rep) != nil {
		return out, Report{}
	}
	for _, r := range rep.Results {
		if r != nil && r.Mutant != nil {
			out[r.Mutant.Name] = r
		}
	}
	return out, rep
}

// applyCheck fails, naming the file, when the patch does not apply to the
// working tree of root.
func applyCheck(root, patch string) error {
	cmd := exec.Command("git", "apply", "--check", patch)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		rel, _ := filepath.Rel(root, patch)
		return fmt.Errorf("%s: the patch no longer applies to the tree: %s", rel, strings.TrimSpace(string(out)))
	}
	return nil
}

// testsOnly adds the targeted tests' outcome to a mutant's previous row
// (its campaigns unchanged); a row whose patch changed since is refused.
func testsOnly(ctx context.Context, cfg config, root string, m *Mutant, prev *Result) *Result {
	if prev == nil || prev.PatchHash != patchHash(m) {
		return &Result{Mutant: m, PatchHash: patchHash(m), Cap: cfg.seeds, Fired: []string{},
			Error: "-tests-only: no measured row for this patch in mutants.json (run its campaigns first)"}
	}
	r := *prev
	r.Mutant = m
	tmp, err := os.MkdirTemp("", "mutant-"+m.Name+"-")
	if err != nil {
		r.Error = err.Error()
		return &r
	}
	defer os.RemoveAll(tmp)
	if err := copyTracked(root, tmp); err != nil {
		r.Error = "copy: " + err.Error()
		return &r
	}
	apply := exec.CommandContext(ctx, "git", "apply", m.File)
	apply.Dir = tmp
	if out, err := apply.CombinedOutput(); err != nil {
		r.Error = fmt.Sprintf("%s: the patch no longer applies: %s", m.File, strings.TrimSpace(string(out)))
		return &r
	}
	targetedTests(ctx, cfg, tmp, m, &r)
	fmt.Fprintf(os.Stderr, "%s: %s: %s\n", m.Name, r.TestsCommand, r.Tests)
	return &r
}

// measure copies the tree, applies the mutant, builds simrun and runs one
// campaign per strategy.
func measure(ctx context.Context, cfg config, root string, m *Mutant) *Result {
	start := time.Now()
	r := &Result{Mutant: m, PatchHash: patchHash(m), Cap: cfg.seeds, Fired: []string{}}
	if _, r.Pending = CheckKnown(m.Check); r.Pending {
		r.Cap = min(cfg.seeds, cfg.pendingSeeds)
	}
	defer func() { r.WallS = time.Since(start).Seconds() }()
	logf := func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "%s: "+format+"\n", append([]any{m.Name}, args...)...)
	}
	tmp, err := os.MkdirTemp("", "mutant-"+m.Name+"-")
	if err != nil {
		r.Error = err.Error()
		return r
	}
	if cfg.keep {
		logf("copy in %s", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	if err := copyTracked(root, tmp); err != nil {
		r.Error = "copy: " + err.Error()
		return r
	}
	apply := exec.CommandContext(ctx, "git", "apply", m.File)
	apply.Dir = tmp
	if out, err := apply.CombinedOutput(); err != nil {
		r.Error = fmt.Sprintf("%s: the patch no longer applies: %s", m.File, strings.TrimSpace(string(out)))
		return r
	}
	bin := filepath.Join(tmp, ".mutant-bin", "simrun")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/simrun")
	build.Dir = tmp
	if out, err := build.CombinedOutput(); err != nil {
		r.Error = fmt.Sprintf("%s: the mutant does not build: %s", m.File, strings.TrimSpace(string(out)))
		return r
	}
	logf("built; %s on %s", m.Check, m.Scenario)
	fired := map[string]bool{}
	for _, s := range m.Strategies {
		c := campaign(ctx, cfg, r.Cap, bin, tmp, m, s)
		logf("%s: %s", s, campaignText(c))
		for _, id := range c.Fired {
			fired[id] = true
		}
		if c.Found > 0 {
			r.Detected = true
		}
		r.Campaigns = append(r.Campaigns, c)
	}
	if ctx.Err() != nil {
		r.Error = "interrupted"
		return r
	}
	r.Fired = slices.Sorted(mapKeysBool(fired))
	if r.Fired == nil {
		r.Fired = []string{}
	}
	if cfg.tests {
		targetedTests(ctx, cfg, tmp, m, r)
		logf("%s: %s", r.TestsCommand, r.Tests)
	}
	if cfg.makeTest {
		mt := exec.CommandContext(ctx, "make", "test")
		mt.Dir = tmp
		mt.Stdout, mt.Stderr = io.Discard, io.Discard
		if err := mt.Run(); err != nil {
			r.MakeTest = "fails"
		} else {
			r.MakeTest = "passes"
		}
		logf("make test %s", r.MakeTest)
	}
	return r
}

// targetedTests runs the mutant's targeted tests in its copy dir and
// records the outcome in r.
func targetedTests(ctx context.Context, cfg config, dir string, m *Mutant, r *Result) {
	args := append([]string{"test", "-short", "-count=1"}, m.TestPackages()...)
	r.TestsCommand = "go " + strings.Join(args, " ")
	ctx, cancel := context.WithTimeout(ctx, cfg.testsTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	r.Tests, r.TestsFailed = "passes", nil
	if err == nil {
		return
	}
	if errors.Is(ctx.Err(), context.Canceled) { // interrupted: nothing measured
		r.Tests, r.TestsCommand = "", ""
		return
	}
	r.Tests = "fails"
	if ctx.Err() != nil {
		r.TestsFailed = []string{fmt.Sprintf("timed out after %v", cfg.testsTimeout)}
		return
	}
	r.TestsFailed = failedTests(out)
}

// failedTests picks the first failing tests (or packages that did not
// build) out of go test's output.
func failedTests(out []byte) []string {
	var fails []string
	for l := range strings.SplitSeq(string(out), "\n") {
		l = strings.TrimSpace(l)
		var name string
		switch {
		case strings.HasPrefix(l, "--- FAIL: "):
			name, _, _ = strings.Cut(strings.TrimPrefix(l, "--- FAIL: "), " ")
		case strings.HasPrefix(l, "FAIL\t") && strings.Contains(l, "[build failed]"):
			name = strings.TrimPrefix(l, "FAIL\t")
		default:
			continue
		}
		if !slices.Contains(fails, name) && len(fails) < 3 {
			fails = append(fails, name)
		}
	}
	if len(fails) == 0 {
		return []string{"go test failed (no test named)"}
	}
	return fails
}

func mapKeysBool(m map[string]bool) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// seedLine is the part of simrun's --json line the tool reads; Checks is
// the verdict's check ids where simrun carries them.
type seedLine struct {
	Seed       uint64   `json:"seed"`
	Verdict    string   `json:"verdict"`
	Violations []string `json:"violations"`
	Checks     []string `json:"checks"`
	Replay     string   `json:"replay"`
}

// campaign runs simrun on the mutant's scenario and reads its per-seed
// lines (in seed order) until the named check fires, then stops it.
func campaign(ctx context.Context, cfg config, seeds int, bin, dir string, m *Mutant, strategy string) (c Campaign) {
	start := time.Now()
	c = Campaign{Strategy: strategy, Seed: -1, Fired: []string{}}
	defer func() { c.WallS = time.Since(start).Seconds() }()
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	args := []string{"run", "--scenario", m.Scenario, "--seeds", fmt.Sprint(seeds), "--seed", fmt.Sprint(cfg.first),
		"--strategy", strategy, "--json", "--parallel", fmt.Sprint(max(cfg.seedParallel, 1))}
	args = append(args, m.VariantArgs()...)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &tail{buf: &stderr, max: 4096}
	out, err := cmd.StdoutPipe()
	if err != nil {
		c.First = err.Error()
		return c
	}
	if err := cmd.Start(); err != nil {
		c.First = err.Error()
		return c
	}
	fired := map[string]bool{}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var l seedLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			continue
		}
		c.Ran++
		if l.Verdict == "pass" {
			continue
		}
		ids := CheckIDs(l.Checks, l.Violations)
		for _, id := range ids {
			fired[id] = true
		}
		if c.First == "" {
			c.First = fmt.Sprintf("seed %d %s: %s", l.Seed, l.Verdict, firstLine(l.Violations))
		}
		if slices.Contains(ids, m.Check) {
			c.Found, c.Seed, c.Replay = c.Ran, int64(l.Seed), l.Replay
			if !strings.Contains(c.Replay, "--strategy") {
				c.Replay += " --strategy " + strategy
			}
			c.First = fmt.Sprintf("seed %d %s: %s", l.Seed, l.Verdict, firstWith(l.Violations, m.Check))
			break
		}
	}
	if c.Found > 0 && cmd.Process != nil {
		_ = cmd.Process.Kill() // stop at the first detection
	}
	_, _ = io.Copy(io.Discard, out)
	werr := cmd.Wait()
	if ctx.Err() != nil {
		c.TimedOut = true
	}
	var ee *exec.ExitError
	if c.Found == 0 && werr != nil && errors.As(werr, &ee) && ee.ExitCode() == 64 {
		c.First = "simrun usage error: " + strings.TrimSpace(stderr.String())
	}
	c.Fired = slices.Sorted(mapKeysBool(fired))
	if c.Fired == nil {
		c.Fired = []string{}
	}
	return c
}

func firstLine(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return clip(v[0])
}

// firstWith returns the first violation whose check is id.
func firstWith(v []string, id string) string {
	for _, s := range v {
		if checkOf(s) == id {
			return clip(s)
		}
	}
	return firstLine(v)
}

func clip(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	if len(l) > 200 {
		l = l[:200] + "..."
	}
	return l
}

// tail keeps the last max bytes written to it.
type tail struct {
	buf *bytes.Buffer
	max int
}

func (t *tail) Write(p []byte) (int, error) {
	t.buf.Write(p)
	if over := t.buf.Len() - t.max; over > 0 {
		t.buf.Next(over)
	}
	return len(p), nil
}

// copyTracked copies the files git tracks in root (as they are in the
// working tree, uncommitted edits included) to dst.
func copyTracked(root, dst string) error {
	cmd := exec.Command("git", "ls-files", "-z")
	cmd.Dir = root
	list, err := cmd.Output()
	if err != nil {
		return err
	}
	for _, rel := range strings.Split(strings.TrimRight(string(list), "\x00"), "\x00") {
		if rel == "" {
			continue
		}
		src := filepath.Join(root, rel)
		st, err := os.Lstat(src)
		if errors.Is(err, os.ErrNotExist) {
			continue // deleted in the working tree
		}
		if err != nil {
			return err
		}
		if !st.Mode().IsRegular() {
			continue
		}
		b, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(to, b, st.Mode().Perm()); err != nil {
			return err
		}
	}
	return nil
}

func gitOut(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	b, err := cmd.Output()
	return strings.TrimSpace(string(b)), err
}

// writeReport writes mutants.json and mutants.md atomically.
func writeReport(dir string, rep *Report) error {
	var rows []*Result
	for _, r := range rep.Results {
		if r != nil {
			rows = append(rows, r)
		}
	}
	view := *rep
	view.Results = rows
	b, err := json.MarshalIndent(view, "", "  ")
	if err != nil {
		return err
	}
	if err := durable.WriteFile(filepath.Join(dir, "mutants.json"), append(b, '\n')); err != nil {
		return err
	}
	return durable.WriteFile(filepath.Join(dir, "mutants.md"), []byte(render(&view)))
}
