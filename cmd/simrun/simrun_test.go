package main

import (
	"bufio"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/workloads"
	"github.com/ckptsim/ckptsim/workloads/campaign"
)

func TestRunSmoke(t *testing.T) {
	dir := t.TempDir()
	r := simrunExec(t, "run", "--scenario", "smoke", "--seeds", "4", "--out", dir)
	r.want(t, exitPass)
	for _, s := range []string{"latency (virtual time)", "trigger to complete", "no failures"} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("summary lacks %q:\n%s", s, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "slowest seeds (wall)") {
		t.Errorf("the slowest seeds are printed without --verbose:\n%s", r.stdout)
	}
	if txt, err := os.ReadFile(filepath.Join(dir, "summary.txt")); err != nil || !strings.Contains(string(txt), "slowest seeds") {
		t.Errorf("summary.txt lacks the slowest seeds (%v)", err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var seeds []uint64
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var o workloads.Outcome
		if err := json.Unmarshal([]byte(l), &o); err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, o.Seed)
	}
	if !slices.Equal(seeds, []uint64{0, 1, 2, 3}) {
		t.Errorf("results.jsonl seeds %v, want 0..3 in order", seeds)
	}
	var sum report
	b, err = os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Seeds != 4 || sum.Verdicts["pass"] != 4 || sum.Latency["trigger_to_complete"].Count == 0 {
		t.Errorf("summary.json: seeds %d, verdicts %v, latency %v", sum.Seeds, sum.Verdicts, sum.Latency)
	}
	if _, err := os.Stat(filepath.Join(dir, "summary.txt")); err != nil {
		t.Error(err)
	}
}

// TestDefaultCampaign runs simrun with no arguments (about 10 s on two
// cores).
func TestDefaultCampaign(t *testing.T) {
	if testing.Short() {
		t.Skip("the default campaign takes about 10 s")
	}
	dir := filepath.Join(t.TempDir(), "out")
	r := simrunExec(t, "--out", dir)
	r.want(t, exitPass)
	for _, c := range workloads.DefaultCampaign {
		if !strings.Contains(r.stdout, c.Name) {
			t.Errorf("summary lacks scenario %s", c.Name)
		}
	}
	// Every code probe is hit in the row that must hit it.
	var sum report
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	for _, m := range sum.Probes.Missing() {
		t.Errorf("the default campaign left a probe unhit: %s", m)
	}
	if !strings.Contains(r.stdout, "unhit: none (every probe hit)") {
		t.Errorf("the summary does not say every probe was hit:\n%s", r.stdout)
	}
}

// TestSameHashAcrossProcesses: the same seeds print the same JSON lines,
// trace hashes included, in two processes with different parallelism.
func TestSameHashAcrossProcesses(t *testing.T) {
	args := []string{"run", "--scenario", "smoke", "--scenario", "h4-trigger-silent", "--seeds", "3", "--json"}
	a := simrunExec(t, append(args, "--parallel", "1")...)
	b := simrunExec(t, append(args, "--parallel", "2")...)
	if a.code != b.code || a.stdout != b.stdout {
		t.Fatalf("--parallel 1 (exit %d):\n%s\n--parallel 2 (exit %d):\n%s", a.code, a.stdout, b.code, b.stdout)
	}
	if got := lines(t, a.stdout); len(got) != 6 || got[0].TraceHash == "" {
		t.Fatalf("want 6 lines with hashes, got %+v", got)
	}
}

func TestShardsCoverRange(t *testing.T) {
	base := []string{"run", "--scenario", "smoke", "--seed", "5", "--seeds", "7", "--json"}
	set := func(ls []seedLine) map[uint64]string {
		m := map[uint64]string{}
		for _, l := range ls {
			if _, dup := m[l.Seed]; dup {
				t.Fatalf("seed %d twice", l.Seed)
			}
			m[l.Seed] = l.TraceHash
		}
		return m
	}
	all := set(lines(t, simrunExec(t, base...).stdout))
	union := map[uint64]string{}
	for _, sh := range []string{"0/2", "1/2"} {
		for s, h := range set(lines(t, simrunExec(t, append(base, "--shard", sh)...).stdout)) {
			if _, dup := union[s]; dup {
				t.Errorf("seed %d in both shards", s)
			}
			union[s] = h
		}
	}
	if len(all) != 7 || len(union) != len(all) {
		t.Fatalf("unsharded %v, shards together %v", all, union)
	}
	for s, h := range all {
		if union[s] != h {
			t.Errorf("seed %d: hash %s unsharded, %s sharded", s, h, union[s])
		}
	}
}

// TestBadInput: every kind of bad input is a clear error and exit 64.
func TestBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want []string // all in stderr
	}{
		{"unknown field", []string{"--scenario", "testdata/unknown-field.yaml"}, []string{"testdata/unknown-field.yaml:6:3: cluster.nodes: unknown field"}},
		{"wrong type", []string{"--scenario", "testdata/wrong-type.yaml"}, []string{"testdata/wrong-type.yaml:4:14: cluster.pipelines: wrong type: got string, want int"}},
		{"negative interval", []string{"--scenario", "testdata/negative-interval.yaml"}, []string{"testdata/negative-interval.yaml:7:13: checkpoint.interval: -10s is below the minimum 10ms"}},
		{"zero pipelines", []string{"--scenario", "testdata/zero-pipelines.yaml"}, []string{"testdata/zero-pipelines.yaml:4:14: cluster.pipelines: 0 out of range [1, 2000]"}},
		{"unknown variant in file", []string{"--scenario", "testdata/unknown-variant.yaml"}, []string{"testdata/unknown-variant.yaml:13:19: variants.trigger-errors: unknown value \"loud\""}},
		{"malformed yaml", []string{"--scenario", "testdata/malformed.yaml"}, []string{"testdata/malformed.yaml:9:1: ", "']' must be specified"}},
		{"unknown variant value flag", []string{"--scenario", "testdata/good.yaml", "--variant", "trigger-errors=loud"}, []string{"-variant", "unknown value \"loud\" for variant trigger-errors (want report or silent)"}},
		{"unknown variant key flag", []string{"--scenario", "testdata/good.yaml", "--variant", "colour=blue"}, []string{"unknown variant key \"colour\""}},
		{"variant without value", []string{"--scenario", "testdata/good.yaml", "--variant", "design"}, []string{"want key=value"}},
		{"unknown buggify site", []string{"--scenario", "testdata/unknown-site.yaml"}, []string{"testdata/unknown-site.yaml:13:19: buggify.sites.disk-on-fire: unknown site \"disk-on-fire\" (sites: status-slow, "}},
		{"buggify probability", []string{"--scenario", "testdata/bad-fire.yaml"}, []string{"testdata/bad-fire.yaml:11:9: buggify.fire: probability 1.5 out of range [0, 1]"}},
		{"bad buggify flag", []string{"--scenario", "smoke", "--buggify", "maybe"}, []string{"want on or off"}},
		{"unknown scenario", []string{"--scenario", "no-such-scenario"}, []string{"no embedded scenario or file named \"no-such-scenario\""}},
		{"missing file", []string{"--scenario", "testdata/absent.yaml"}, []string{"absent.yaml"}},
		{"bad shard", []string{"--scenario", "smoke", "--shard", "2/2"}, []string{"want i/n with 0 <= i < n"}},
		{"bad strategy", []string{"--scenario", "smoke", "--strategy", "dfs"}, []string{"want random or pct"}},
		{"bad budget", []string{"--scenario", "smoke", "--budget", "-5"}, []string{"negative step budget"}},
		{"bad parallel", []string{"--scenario", "smoke", "--parallel", "0"}, []string{"--parallel must be at least 1"}},
		{"unknown flag", []string{"--seedz", "3"}, []string{"flag provided but not defined: -seedz"}},
		{"zero seeds", []string{"--scenario", "smoke", "--seeds", "0"}, []string{"simrun run: --seeds must be at least 1, got 0"}},
		{"negative seeds", []string{"--scenario", "smoke", "--seeds", "-3"}, []string{"simrun run: --seeds must be at least 1, got -3"}},
		{"fault at the end of the run", []string{"--scenario", "testdata/late-fault.yaml"},
			[]string{"testdata/late-fault.yaml:14:10: faults.failover.at[0]: 10m0s is not before the end of the fault window (run.duration 10m0s)"}},
		{"fault after the end of the run", []string{"--scenario", "testdata/late-step-down.yaml"},
			[]string{"testdata/late-step-down.yaml:16:9: faults.step_down.at[1]: 15m0s is not before the end of the fault window (run.duration 10m0s)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, cmd := range [][]string{{"run"}, {"replay"}} {
				if cmd[0] == "replay" && (slices.Contains(tc.args, "--shard") || slices.Contains(tc.args, "--parallel") ||
					slices.Contains(tc.args, "--seeds")) {
					continue
				}
				r := simrunExec(t, append(cmd, tc.args...)...)
				r.want(t, exitUsage)
				for _, w := range tc.want {
					if !strings.Contains(r.stderr, w) {
						t.Errorf("%s: stderr lacks %q:\n%s", cmd[0], w, r.stderr)
					}
				}
			}
		})
	}
	simrunExec(t, "nonsense").want(t, exitUsage)
	simrunExec(t, "replay").want(t, exitUsage) // no --scenario
	// an explicit --seeds below 1 is refused by every command that takes
	// it (left out, the default applies)
	for _, cmd := range []string{"compare", "shrink"} {
		r := simrunExec(t, cmd, "--scenario", "smoke", "--seeds", "0")
		r.want(t, exitUsage)
		if w := "simrun " + cmd + ": --seeds must be at least 1, got 0"; !strings.Contains(r.stderr, w) {
			t.Errorf("%s: stderr lacks %q:\n%s", cmd, w, r.stderr)
		}
	}
}

// TestPlantedBug: H4 with trigger-errors=silent fails liveness; the
// printed replay command reproduces the verdict and trace hash, and
// shrink finds a smaller scenario that still fails.
func TestPlantedBug(t *testing.T) {
	r := simrunExec(t, "run", "--scenario", "h4-trigger-silent", "--variant", "trigger-errors=silent", "--seeds", "4", "--json")
	r.want(t, exitLiveness)
	var bad *seedLine
	for _, l := range lines(t, r.stdout) {
		if l.Verdict == workloads.Liveness {
			bad = &l
			break
		}
	}
	if bad == nil || !strings.Contains(r.stderr, bad.Replay) || !strings.Contains(r.stderr, bad.Violations[0]) {
		t.Fatalf("no failing seed listed with its replay command and violation:\n%s", r.stderr)
	}
	page := filepath.Join(t.TempDir(), "timeline.html")
	rep := simrunExec(t, append(replayArgs(t, bad.Replay), "--trace=false", "--timeline", page)...)
	rep.want(t, exitLiveness)
	if v, h := field(t, rep.stdout, "verdict"), field(t, rep.stdout, "trace_hash"); v != "liveness" || h != bad.TraceHash {
		t.Fatalf("replay gives %s %s, the run gave liveness %s", v, h, bad.TraceHash)
	}
	if html, err := os.ReadFile(page); err != nil || !strings.Contains(string(html), `id="timeline-data"`) ||
		!strings.Contains(string(html), `<section class="lane failing"`) || !strings.Contains(rep.stdout, "artifact: "+page) {
		t.Errorf("replay --timeline %s: no timeline page with a failing lane listed among the artifacts (%v)", page, err)
	}

	out := filepath.Join(t.TempDir(), "shrunk.yaml")
	sh := simrunExec(t, "shrink", "--scenario", "h4-trigger-silent", "--variant", "trigger-errors=silent",
		"--seed", itoa(bad.Seed), "--out", out)
	sh.want(t, exitLiveness)
	orig, err := workloads.Lookup("h4-trigger-silent")
	if err != nil {
		t.Fatal(err)
	}
	small, err := workloads.LoadFile(out)
	if err != nil {
		t.Fatalf("shrunk scenario does not load: %v", err)
	}
	if size(small) >= size(orig) {
		t.Errorf("shrunk scenario is not smaller:\n%s", sh.stdout)
	}
	again := simrunExec(t, append(replayArgs(t, field(t, sh.stdout, "# replay")), "--trace=false")...)
	again.want(t, exitLiveness)
	if h := field(t, again.stdout, "trace_hash"); h != field(t, sh.stdout, "# trace_hash") {
		t.Errorf("replay of the shrunk scenario: hash %s, shrink printed %s", h, field(t, sh.stdout, "# trace_hash"))
	}
}

// TestShrinkCheck: with --check, a failure that carries another check is
// not the failure being shrunk (H4's seeds fail checkpoint-progress, not
// increasing-ids), and an id that is no check is a usage error.
func TestShrinkCheck(t *testing.T) {
	base := []string{"shrink", "--scenario", "h4-trigger-silent", "--variant", "trigger-errors=silent", "--seeds", "2",
		"--out", filepath.Join(t.TempDir(), "shrunk.yaml")}
	r := simrunExec(t, append(base, "--check", "increasing-ids")...)
	r.want(t, exitPass)
	if !strings.Contains(r.stderr, "fires none of increasing-ids") {
		t.Errorf("stderr does not say the named check never fired:\n%s", r.stderr)
	}
	simrunExec(t, append(base, "--check", "no-such-check")...).want(t, exitUsage)
	simrunExec(t, append(base, "--check", "checkpoint-progress", "--max-runs", "1")...).want(t, exitLiveness)
}

func itoa(v uint64) string { return strconv.FormatUint(v, 10) }

// size orders scenarios for shrinking: the member, the fault kinds, the run.
func size(s *workloads.Scenario) float64 {
	return float64(s.Cluster.Jobs*s.Cluster.Pipelines*s.Cluster.Tasks)*1e6 + float64(len(campaign.FaultKindsOn(s)))*1e4 +
		s.Run.Duration.D.Seconds()
}

// TestInterrupt: SIGINT lets running seeds finish, writes what finished
// and prints a resume command that runs exactly the rest.
func TestInterrupt(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	cmd := exec.Command(bin, "run", "--scenario", "smoke", "--seeds", "60", "--parallel", "2", "--out", out)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout strings.Builder
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	for sc.Scan() && !strings.Contains(sc.Text(), "starting") {
	}
	cmd.Process.Signal(os.Interrupt)
	for sc.Scan() {
	}
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitInterrupted {
		t.Fatalf("exit %v, want %d\n%s", err, exitInterrupted, stdout.String())
	}
	var sum report
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sum); err != nil || !sum.Interrupted || len(sum.Resume) != 1 || sum.Seeds == 60 {
		t.Fatalf("summary.json: interrupted %v, seeds %d, resume %q (%v)", sum.Interrupted, sum.Seeds, sum.Resume, err)
	}
	if !strings.Contains(stdout.String(), sum.Resume[0]) {
		t.Errorf("resume command not printed:\n%s", stdout.String())
	}
	seeds := map[uint64]bool{}
	for _, o := range sum.outcomesFrom(t, out) {
		seeds[o] = true
	}
	rest := simrunExec(t, append(replayArgs(t, sum.Resume[0]), "--json")...)
	rest.want(t, exitPass)
	for _, l := range lines(t, rest.stdout) {
		if seeds[l.Seed] {
			t.Errorf("seed %d run twice", l.Seed)
		}
		seeds[l.Seed] = true
	}
	if len(seeds) != 60 {
		t.Errorf("interrupted run and resume together ran %d seeds, want 60", len(seeds))
	}
	if got := sum.outcomesFrom(t, out); len(got) != 60 || !slices.IsSorted(got) {
		t.Errorf("after the resume results.jsonl holds %d seeds (sorted: %v), want 0..59", len(got), slices.IsSorted(got))
	}
}

// outcomesFrom reads the seeds of a results.jsonl.
func (*report) outcomesFrom(t *testing.T, dir string) []uint64 {
	b, err := os.ReadFile(filepath.Join(dir, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []uint64
	for _, l := range lines(t, string(b)) {
		out = append(out, l.Seed)
	}
	return out
}

func TestHelpListCompare(t *testing.T) {
	h := simrunExec(t, "help")
	h.want(t, exitPass)
	for _, c := range []string{"run", "replay", "shrink", "list", "compare"} {
		if !strings.Contains(h.stdout, "  "+c+" ") {
			t.Errorf("help lacks %s", c)
		}
		sub := simrunExec(t, c, "-h")
		sub.want(t, exitPass)
		if !strings.Contains(sub.stdout, "usage: simrun "+c) {
			t.Errorf("%s -h:\n%s", c, sub.stdout)
		}
	}
	if r := simrunExec(t, "run", "--help"); !strings.Contains(r.stdout, "-shard i/n") {
		t.Errorf("run --help lacks --shard:\n%s", r.stdout)
	}
	l := simrunExec(t, "list")
	l.want(t, exitPass)
	for _, s := range []string{"smoke", "h4-trigger-silent", "trigger-errors=report|silent", "design=shared|per-pipeline|shared-inline|leader-follower"} {
		if !strings.Contains(l.stdout, s) {
			t.Errorf("list lacks %q", s)
		}
	}
	c := simrunExec(t, "compare", "--scenario", "smoke", "--seeds", "2", "--with", "design=shared", "--with", "design=per-pipeline,expiry-fence=none")
	c.want(t, exitPass)
	for _, s := range []string{"t2c p50", "delay max", "failover-first p50", "design=shared ", "design=per-pipeline,expiry-fence=none"} {
		if !strings.Contains(c.stdout, s) {
			t.Errorf("compare lacks %q:\n%s", s, c.stdout)
		}
	}
}

// TestPositionalScenario: a scenario typed as an argument, before or
// after the flags, is the same as --scenario; commands without a scenario
// still refuse arguments, and replay takes one scenario only.
func TestPositionalScenario(t *testing.T) {
	for _, tc := range []struct{ positional, flagged []string }{
		{[]string{"run", "testdata/good.yaml", "--seeds", "2", "--json"}, []string{"run", "--scenario", "testdata/good.yaml", "--seeds", "2", "--json"}},
		{[]string{"run", "--seeds", "2", "smoke", "testdata/good.yaml", "--json"}, []string{"run", "--scenario", "smoke", "--scenario", "testdata/good.yaml", "--seeds", "2", "--json"}},
		{[]string{"replay", "testdata/good.yaml", "--seed", "7", "--json"}, []string{"replay", "--scenario", "testdata/good.yaml", "--seed", "7", "--json"}},
		{[]string{"replay", "--seed", "7", "smoke", "--json"}, []string{"replay", "--scenario", "smoke", "--seed", "7", "--json"}},
	} {
		a, b := simrunExec(t, tc.positional...), simrunExec(t, tc.flagged...)
		a.want(t, exitPass)
		if a.stdout != b.stdout || a.code != b.code || len(lines(t, a.stdout)) == 0 {
			t.Errorf("%q (exit %d):\n%s\n%q (exit %d):\n%s", tc.positional, a.code, a.stdout, tc.flagged, b.code, b.stdout)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"replay", "smoke", "testdata/good.yaml"}, `one scenario only, got "smoke" and "testdata/good.yaml"`},
		{[]string{"replay", "--scenario", "smoke", "tiny"}, `one scenario only, got "smoke" and "tiny"`},
		{[]string{"list", "extra"}, `unexpected argument "extra" (flags only)`},
		{[]string{"run", "testdata/wrong-type.yaml"}, "testdata/wrong-type.yaml:4:14: cluster.pipelines: wrong type"},
	} {
		r := simrunExec(t, tc.args...)
		r.want(t, exitUsage)
		if !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%q: stderr lacks %q:\n%s", tc.args, tc.want, r.stderr)
		}
	}
}

// TestSwarmChoiceInResults: each swarm seed's line in results.jsonl and
// its --json line say which fault kinds it kept, at which magnitudes, so
// that a failing swarm seed shows its configuration.
func TestSwarmChoiceInResults(t *testing.T) {
	dir := t.TempDir()
	r := simrunExec(t, "run", "--scenario", "swarm", "--seed", "5", "--seeds", "2", "--budget", "20000", "--out", dir)
	_ = r // budget verdicts are fine: the choice is made before the run
	b, err := os.ReadFile(filepath.Join(dir, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := workloads.Lookup("swarm")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var o workloads.Outcome
		if err := json.Unmarshal([]byte(l), &o); err != nil {
			t.Fatal(err)
		}
		if _, want := workloads.SwarmFaults(s.Faults, o.Seed); !maps.Equal(o.Swarm, want) || len(want) == 0 {
			t.Errorf("seed %d: results.jsonl swarm %v, want %v", o.Seed, o.Swarm, want)
		}
	}
	j := simrunExec(t, "replay", "--scenario", "swarm", "--seed", "5", "--budget", "20000", "--json")
	var line struct{ Swarm map[string]string }
	if err := json.Unmarshal([]byte(j.stdout), &line); err != nil || len(line.Swarm) == 0 {
		t.Errorf("--json line without swarm (%v): %s", err, j.stdout)
	}
}

// TestInterruptGivesUp: SIGTERM while a seed runs for minutes ends the
// campaign a grace period later, not when the seed would end, with exit
// 130 and every finished seed kept in results.jsonl; after one signal the
// summary is written and names the resume command, after two the process
// exits at once.
func TestInterruptGivesUp(t *testing.T) {
	for _, signals := range []int{1, 2} {
		t.Run(strconv.Itoa(signals), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			cmd := exec.Command(bin, "run", "--scenario", "testdata/good.yaml", "--scenario", "testdata/slow.yaml",
				"--seeds", "2", "--parallel", "1", "--out", out, "--json")
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			errPipe, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var stderr strings.Builder
			noticed := make(chan struct{}) // the first signal was handled
			errDone := make(chan struct{})
			go func() {
				defer close(errDone)
				es := bufio.NewScanner(errPipe)
				for es.Scan() {
					stderr.WriteString(es.Text() + "\n")
					if strings.HasPrefix(es.Text(), "simrun: interrupted: ") {
						close(noticed)
					}
				}
			}()
			sc := bufio.NewScanner(stdout)
			for range 2 { // good.yaml's seeds: recorded before their lines print
				if !sc.Scan() {
					t.Fatalf("the campaign ended early:\n%s", stderr.String())
				}
			}
			cmd.Process.Signal(syscall.SIGTERM)
			if signals == 2 {
				select { // two at once would be one pending signal
				case <-noticed:
				case <-time.After(30 * time.Second):
					cmd.Process.Kill()
					t.Fatal("the first SIGTERM was not noticed")
				}
				cmd.Process.Signal(syscall.SIGTERM)
			}
			done := make(chan error, 1)
			go func() {
				for sc.Scan() {
				}
				<-errDone
				done <- cmd.Wait()
			}()
			select {
			case err = <-done:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				t.Fatal("still running 30s after SIGTERM (a slow seed takes minutes)")
			}
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitInterrupted {
				t.Fatalf("exit %v, want %d\n%s", err, exitInterrupted, stderr.String())
			}
			if got := (*report)(nil).outcomesFrom(t, out); !slices.Equal(got, []uint64{0, 1}) {
				t.Errorf("results.jsonl holds seeds %v, want good.yaml's 0 and 1", got)
			}
			if signals == 2 {
				if !strings.Contains(stderr.String(), "interrupted again: exiting at once; every finished seed is in") {
					t.Errorf("stderr:\n%s", stderr.String())
				}
				return
			}
			var sum report
			b, err := os.ReadFile(filepath.Join(out, "summary.json"))
			if err == nil {
				err = json.Unmarshal(b, &sum)
			}
			if err != nil || !sum.Interrupted || sum.Seeds != 2 || !slices.Equal(sum.Resume, []string{binary + " run --resume " + out}) {
				t.Errorf("summary.json: interrupted %v, %d seeds, resume %q (%v)", sum.Interrupted, sum.Seeds, sum.Resume, err)
			}
		})
	}
}

// TestInterruptAgainWhileWriting: a second SIGTERM that lands while the
// campaign writes its results (the first one's grace over: results.jsonl
// sorted, the summary written) exits 130 at once, as a second signal does
// anywhere, and leaves in the folder only the documented files, never a
// temporary file of the atomic writer; results.jsonl keeps every finished
// seed. A binary built with the ckptsim_testhooks tag pauses the write of
// $CKPTSIM_PAUSE_WRITE with its temporary file written
// (workloads/campaign/testhook.go).
func TestInterruptAgainWhileWriting(t *testing.T) {
	hooked := filepath.Join(t.TempDir(), "simrun-hooks")
	if out, err := exec.Command("go", "build", "-tags", "ckptsim_testhooks", "-o", hooked, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build -tags ckptsim_testhooks: %v\n%s", err, out)
	}
	documented := map[string]bool{resultsFile: true, manifestFile: true, "summary.json": true, "summary.txt": true}
	for _, file := range []string{resultsFile, "summary.json"} {
		t.Run(file, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			cmd := exec.Command(hooked, "run", "--scenario", "testdata/good.yaml", "--scenario", "testdata/slow.yaml",
				"--seeds", "2", "--parallel", "1", "--out", out, "--json")
			cmd.Env = append(os.Environ(), "CKPTSIM_PAUSE_WRITE="+file)
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			errPipe, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			var mu sync.Mutex
			var stderr strings.Builder
			noticed, paused := make(chan struct{}), make(chan struct{})
			errDone := make(chan struct{})
			go func() {
				defer close(errDone)
				es := bufio.NewScanner(errPipe)
				for es.Scan() {
					mu.Lock()
					stderr.WriteString(es.Text() + "\n")
					mu.Unlock()
					switch {
					case strings.HasPrefix(es.Text(), "simrun: interrupted: "):
						close(noticed)
					case strings.HasPrefix(es.Text(), "campaign: paused writing "+filepath.Join(out, file)):
						close(paused)
					}
				}
			}()
			logs := func() string { mu.Lock(); defer mu.Unlock(); return stderr.String() }
			wait := func(ch chan struct{}, what string) {
				t.Helper()
				select {
				case <-ch:
				case <-time.After(30 * time.Second):
					t.Fatalf("%s: not within 30s\n%s", what, logs())
				}
			}
			sc := bufio.NewScanner(stdout)
			for range 2 { // good.yaml's seeds
				if !sc.Scan() {
					t.Fatalf("the campaign ended early:\n%s", logs())
				}
			}
			cmd.Process.Signal(syscall.SIGTERM)
			wait(noticed, "the first SIGTERM noticed")
			wait(paused, "the write of "+file+" paused") // after the 3 s grace
			cmd.Process.Signal(syscall.SIGTERM)
			done := make(chan error, 1)
			go func() {
				for sc.Scan() {
				}
				<-errDone
				done <- cmd.Wait()
			}()
			select {
			case err = <-done:
			case <-time.After(30 * time.Second):
				t.Fatalf("still running 30s after the second SIGTERM (the paused write waits a minute)\n%s", logs())
			}
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitInterrupted {
				t.Errorf("exit %v, want %d\n%s", err, exitInterrupted, logs())
			}
			if !strings.Contains(logs(), "interrupted again: exiting at once; every finished seed is in") {
				t.Errorf("stderr:\n%s", logs())
			}
			ents, err := os.ReadDir(out)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range ents {
				if !documented[e.Name()] {
					t.Errorf("%s holds %s, not a file of a results folder (a temporary file left behind?)", out, e.Name())
				}
			}
			if got := (*report)(nil).outcomesFrom(t, out); !slices.Equal(got, []uint64{0, 1}) {
				t.Errorf("results.jsonl holds seeds %v, want good.yaml's 0 and 1", got)
			}
		})
	}
}
