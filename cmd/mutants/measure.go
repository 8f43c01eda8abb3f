package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ckptsim/ckptsim/workloads"
	"github.com/ckptsim/ckptsim/workloads/campaign"
)

// seedLine is the part of simrun's --json line the tool reads.
type seedLine struct {
	Seed       uint64   `json:"seed"`
	Verdict    string   `json:"verdict"`
	Violations []string `json:"violations"`
	Checks     []string `json:"checks"`
	Replay     string   `json:"replay"`
}

// outcome is the line as the detection judges it.
func (l seedLine) outcome() workloads.Outcome {
	return workloads.Outcome{Seed: l.Seed, Verdict: workloads.Verdict(l.Verdict), Checks: l.Checks, Violations: l.Violations}
}

// seedsFunc runs seeds first .. first+n-1 of a mutant's scenario with a
// strategy on one tree (the mutant's, or the unpatched control) and hands
// each seed's line to each, in seed order, until each returns false. It
// returns the CPU seconds (user + system) the run took, up to the seed
// each stopped at (0 when not measured).
type seedsFunc func(ctx context.Context, first uint64, n int, strategy string, each func(seedLine) bool) (cpuS float64, err error)

// errTimedOut: the campaign ran past its wall-clock limit.
var errTimedOut = errors.New("timed out")

// measure copies the snapshot, applies the mutant, builds simrun and runs
// one campaign per strategy, each detection checked against the control
// binary (simrun built from the unpatched snapshot).
func measure(ctx context.Context, cfg config, base string, t tree, control string, m *Mutant) *Result {
	start := time.Now()
	r := &Result{Mutant: m, Cap: cfg.seeds, Fired: []string{}}
	if _, r.Pending = CheckKnown(m.Check); r.Pending {
		r.Cap = min(cfg.seeds, cfg.pendingSeeds)
	}
	defer func() { r.WallS = time.Since(start).Seconds() }()
	dir, bin, done, err := buildMutant(ctx, cfg, base, t, m)
	defer done()
	if err != nil {
		r.Error = err.Error()
		return r
	}
	logf(m, "built; %s on %s", m.Check, m.Scenario)
	patched := simrunSeeds(bin, dir, m, cfg.seedParallel, cfg.timeout)
	unpatched := simrunSeeds(control, t.Dir, m, 1, cfg.timeout)
	for _, s := range m.Strategies {
		c := runCampaign(ctx, m, s, cfg.first, r.Cap, cfg.controlTries, patched, unpatched)
		logf(m, "%s: %s; control %s", s, campaignText(c), controlText(c))
		r.Campaigns = append(r.Campaigns, c)
	}
	if ctx.Err() != nil {
		r.Error = "interrupted"
		return r
	}
	summarize(r)
	if cfg.tests {
		targetedTests(ctx, cfg, dir, m, r)
		logf(m, "%s: %s", r.TestsCommand, r.Tests)
	}
	if cfg.makeTest {
		r.MakeTest = makeTest(ctx, dir)
		logf(m, "make test %s", r.MakeTest)
	}
	return r
}

func logf(m *Mutant, format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s: "+format+"\n", append([]any{m.Name}, args...)...)
}

// summarize fills the row's checks fired, detection and control from its
// campaigns.
func summarize(r *Result) {
	fired := map[string]bool{}
	r.Detected, r.Control = false, ""
	for _, c := range r.Campaigns {
		for _, id := range c.Fired {
			fired[id] = true
		}
		switch {
		case c.Found > 0:
			r.Detected, r.Control = true, "passes"
		case len(c.Controls) > 0 && r.Control == "":
			r.Control = "fails"
		}
	}
	r.Fired = slices.Sorted(mapKeysBool(fired))
	if r.Fired == nil {
		r.Fired = []string{}
	}
}

// runCampaign runs the mutant's seeds from first (at most limit) until one
// is a detection (search), each detection's control the unpatched tree's
// run of the same seed; the detecting seed's replay names the strategy.
func runCampaign(ctx context.Context, m *Mutant, strategy string, first uint64, limit, tries int, patched, control seedsFunc) Campaign {
	c := search(ctx, m, strategy, tries,
		func(ctx context.Context, each func(seedLine, func() float64) bool) (float64, error) {
			return patched(ctx, first, limit, strategy, func(l seedLine) bool { return each(l, nil) })
		},
		func(ctx context.Context, l seedLine) Control { return runControl(ctx, control, l.Seed, strategy) })
	if c.Found > 0 && !strings.Contains(c.Replay, "--strategy") {
		c.Replay += " --strategy " + strategy
	}
	return c
}

// campaignFunc runs a campaign, handing each seed's line (and, where the
// caller measures it, a reader of the process's CPU seconds so far; nil
// otherwise) to each until it returns false; it returns the CPU seconds up
// to there.
type campaignFunc func(ctx context.Context, each func(seedLine, func() float64) bool) (float64, error)

// search runs a campaign until a detection: a seed whose verdict carries
// the named check (campaign.Found: a verdict's check ids, never its text)
// and whose control (the unpatched tree's run of it) passes. A seed whose
// control fails is kept in Controls and the search goes on, until tries
// such seeds. Where the campaign reads the CPU clock, it also records the
// first failing seed of any verdict (FirstFail*: what a user sees first).
func search(ctx context.Context, m *Mutant, strategy string, tries int, patched campaignFunc, control func(context.Context, seedLine) Control) Campaign {
	start := time.Now()
	c := Campaign{Strategy: strategy, Seed: -1, Controls: []Control{}, Fired: []string{}}
	fired, other := map[string]bool{}, map[string]bool{}
	cpu, err := patched(ctx, func(l seedLine, cpuNow func() float64) bool {
		c.Ran++
		o := l.outcome()
		if o.Verdict == workloads.Pass {
			return true
		}
		if cpuNow != nil && c.FirstFailRan == 0 {
			c.FirstFailRan, c.FirstFailCPUS, c.FirstFailReplay = c.Ran, cpuNow(), l.Replay
			c.FirstFailChecks = append([]string{}, l.Checks...)
			if len(l.Checks) == 0 {
				c.FirstFailChecks = []string{l.Verdict}
			}
		}
		for _, id := range o.Checks {
			fired[id] = true
		}
		if o.Verdict != workloads.Safety && o.Verdict != workloads.Liveness {
			other[l.Verdict] = true
		}
		if c.First == "" {
			c.First = seedText(l, "")
		}
		if _, ok := campaign.Found(o, m.Check); !ok {
			return true
		}
		ctl := control(ctx, l)
		c.Controls = append(c.Controls, ctl)
		if !ctl.Passes() {
			c.ControlStop = len(c.Controls) >= max(tries, 1)
			return !c.ControlStop
		}
		c.Found, c.Seed, c.Replay = c.Ran, int64(l.Seed), l.Replay
		c.First = seedText(l, m.Check)
		return false
	})
	switch {
	case errors.Is(err, errTimedOut):
		c.TimedOut = true
	case err != nil && c.First == "":
		c.First = err.Error()
	}
	c.Fired = slices.Sorted(mapKeysBool(fired))
	if c.Fired == nil {
		c.Fired = []string{}
	}
	c.Other = slices.Sorted(mapKeysBool(other))
	c.WallS = time.Since(start).Seconds()
	c.CPUS = cpu
	return c
}

// runControl runs one seed on the unpatched tree.
func runControl(ctx context.Context, control seedsFunc, seed uint64, strategy string) Control {
	ctl := Control{Seed: seed, Verdict: "error", First: "no result"}
	_, err := control(ctx, seed, 1, strategy, func(l seedLine) bool {
		ctl = Control{Seed: seed, Verdict: l.Verdict, Checks: l.Checks, First: firstLine(l.Violations)}
		return true
	})
	if err != nil && ctl.Verdict == "error" {
		ctl.First = err.Error()
	}
	return ctl
}

// seedText describes a failing seed, by the violation of check id when
// one names it.
func seedText(l seedLine, id string) string {
	ids := ""
	if len(l.Checks) > 0 {
		ids = " [" + strings.Join(l.Checks, ", ") + "]"
	}
	return fmt.Sprintf("seed %d %s%s: %s", l.Seed, l.Verdict, ids, firstWith(l.Violations, id))
}

// simrunSeeds runs bin (simrun) in dir on the mutant's scenario, variants
// and BUGGIFY setting, parallel seeds at once, each call cut off after
// timeout.
func simrunSeeds(bin, dir string, m *Mutant, parallel int, timeout time.Duration) seedsFunc {
	return func(ctx context.Context, first uint64, n int, strategy string, each func(seedLine) bool) (float64, error) {
		args := []string{"run", "--scenario", m.Scenario, "--seeds", fmt.Sprint(n), "--seed", fmt.Sprint(first),
			"--strategy", strategy, "--json", "--parallel", fmt.Sprint(max(parallel, 1))}
		args = append(args, m.VariantArgs()...)
		return streamSeeds(ctx, bin, dir, args, timeout, func(l seedLine, _ func() float64) bool { return each(l) })
	}
}

// streamSeeds runs bin (simrun) in dir with args (a run printing --json
// lines) and hands each seed's line to each, with a function that reads
// the process's CPU seconds so far, until each returns false; then it
// kills the process. It returns the CPU seconds (user + system) the
// process took up to there, from its rusage (0 when not measured).
func streamSeeds(ctx context.Context, bin, dir string, args []string, timeout time.Duration, each func(seedLine, func() float64) bool) (float64, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &tail{buf: &stderr, max: 4096}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	cpuNow := func() float64 { return procCPU(cmd.Process.Pid) }
	stopped := false
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var l seedLine
		if json.Unmarshal(sc.Bytes(), &l) != nil {
			continue
		}
		if !each(l, cpuNow) {
			stopped = true
			_ = cmd.Process.Kill()
			break
		}
	}
	_, _ = io.Copy(io.Discard, out)
	werr := cmd.Wait()
	cpu := 0.0
	if ps := cmd.ProcessState; ps != nil { // killed at the detecting seed: its CPU up to there
		cpu = (ps.UserTime() + ps.SystemTime()).Seconds()
	}
	var ee *exec.ExitError
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return cpu, errTimedOut
	case stopped || ctx.Err() != nil:
		return cpu, nil
	case werr != nil && errors.As(werr, &ee) && ee.ExitCode() == 64:
		return cpu, fmt.Errorf("simrun usage error: %s", strings.TrimSpace(stderr.String()))
	}
	return cpu, nil
}

// buildMutant copies the snapshot into a folder of base, applies the
// mutant and builds its simrun: the copy, the binary, and what removes the
// copy (unless -keep; call it however it went).
func buildMutant(ctx context.Context, cfg config, base string, t tree, m *Mutant) (dir, bin string, done func(), err error) {
	done = func() {}
	dir, err = mutantCopy(ctx, base, t, m, cfg.keep)
	if err != nil {
		return "", "", done, err
	}
	if !cfg.keep {
		done = func() { os.RemoveAll(dir) }
	}
	bin = filepath.Join(dir, ".mutant-bin", "simrun")
	if err := buildSimrun(ctx, dir, bin); err != nil {
		return dir, bin, done, fmt.Errorf("%s: the mutant does not build: %v", m.File, err)
	}
	return dir, bin, done, nil
}

// mutantCopy copies the snapshot to a folder of base and applies the
// mutant's patch there (the folder is removed again on an error).
func mutantCopy(ctx context.Context, base string, t tree, m *Mutant, keep bool) (_ string, err error) {
	dir, err := os.MkdirTemp(base, "mutant-"+m.Name+"-")
	if err != nil {
		return "", err
	}
	defer func() {
		if err != nil && !keep {
			os.RemoveAll(dir)
		}
	}()
	if keep {
		logf(m, "copy in %s", dir)
	}
	if err := copyTree(t.Dir, dir); err != nil {
		return "", fmt.Errorf("copy: %w", err)
	}
	apply := exec.CommandContext(ctx, "git", "apply", "-")
	apply.Dir = dir
	apply.Stdin = bytes.NewReader(m.Patch)
	if out, err := apply.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%s: the patch no longer applies: %s", m.File, strings.TrimSpace(string(out)))
	}
	return dir, nil
}

// buildSimrun builds dir's cmd/simrun into bin.
func buildSimrun(ctx context.Context, dir, bin string) error {
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/simrun")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("%v: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// testsOnly adds the targeted tests' outcome to a mutant's journal row
// (its campaigns unchanged); without a measured row for its patch it is an
// error row.
func testsOnly(ctx context.Context, cfg config, base string, t tree, m *Mutant, prev *Result) *Result {
	if prev == nil || prev.PatchHash != patchHash(m) {
		return &Result{Mutant: m, Cap: cfg.seeds, Fired: []string{},
			Error: "-tests-only: no measured row for this patch in the journal at this tree (run its campaigns first)"}
	}
	r := *prev
	dir, err := mutantCopy(ctx, base, t, m, cfg.keep)
	if err != nil {
		r.Error = err.Error()
		return &r
	}
	if !cfg.keep {
		defer os.RemoveAll(dir)
	}
	targetedTests(ctx, cfg, dir, m, &r)
	logf(m, "%s: %s", r.TestsCommand, r.Tests)
	return &r
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

// makeTest runs `make test` in dir: "fails" or "passes".
func makeTest(ctx context.Context, dir string) string {
	mt := exec.CommandContext(ctx, "make", "test")
	mt.Dir = dir
	mt.Stdout, mt.Stderr = io.Discard, io.Discard
	if mt.Run() != nil {
		return "fails"
	}
	return "passes"
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

func firstLine(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return clip(v[0])
}

// firstWith returns the first violation line that reads as check id's
// ("<at> <subject>: <id>: ..." or "<id>: ..."), else the first: for the
// report only; detection never reads the text.
func firstWith(v []string, id string) string {
	if id != "" {
		for _, s := range v {
			if strings.HasPrefix(s, id+": ") || strings.Contains(s, ": "+id+": ") {
				return clip(s)
			}
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
