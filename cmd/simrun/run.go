package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/ckptsim/ckptsim/workloads"
)

const runAbout = `Runs seeds of scenarios on parallel workers and judges each: pass, or a
safety violation, a liveness violation, a harness crash or an exhausted
step budget. With no --scenario it runs the default campaign (simrun list
shows it). Progress goes to stderr; a summary table with latency
distributions, the slowest seeds and every failure with its replay command
follows at the end (on stderr with --json, else on stdout). Ctrl-C stops
starting seeds, lets running ones finish, writes what finished and prints
the command that runs the rest.

exit: 0 pass, 1 safety, 2 liveness, 3 crash, 4 budget (the worst seed, in
that order of precedence), 64 usage or scenario error, 130 interrupted.`

const binary = "go run ./cmd/simrun"

// span is one scenario's seed range in a campaign.
type span struct {
	sc    *workloads.Scenario
	first uint64
	n     int
}

func runCmd(args []string, stdout, stderr io.Writer) int {
	var f runFlags
	var sh shard
	fs := newFlagSet("run", "[NAME|FILE ...] [flags]", runAbout, stdout, stderr)
	f.addScenario(fs, "scenario `name|file` to run (repeatable; default: the default campaign)")
	f.addSeeds(fs, "seeds per scenario (default: each scenario's share of the default campaign, else 10)")
	f.addSeed(fs, "first seed")
	f.addParallel(fs)
	f.addOut(fs, "write results.jsonl, summary.json and summary.txt to `dir`")
	f.addJSON(fs, "print one JSON object per seed on stdout, in campaign order (scenario, then seed) whatever --parallel")
	f.addRunOptions(fs)
	fs.Var(&sh, "shard", "run slice `i/n` of the seed range only: the seeds s with (s - first) % n == i")
	if c := parse(fs, args, stderr); c >= 0 {
		return c
	}
	if f.parallel < 1 || f.seeds < 0 {
		return usagef(stderr, "run", "--parallel must be at least 1 and --seeds not negative")
	}
	scs, err := lookupAll(f.scenarios)
	if err != nil {
		return usagef(stderr, "run", "%v", err)
	}
	spans := make([]span, len(scs))
	for i, sc := range scs {
		spans[i] = span{sc: sc, first: f.seed, n: cmpOr(f.seeds, seedsFor(sc.Name))}
	}
	return campaign(&f, sh, spans, "simrun run "+strings.Join(args, " "), stdout, stderr)
}

func cmpOr(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

// plan lists the jobs of the spans in order: scenario by scenario, seed by
// seed, keeping the shard's seeds.
func plan(f *runFlags, sh shard, spans []span) []job {
	var jobs []job
	for g, s := range spans {
		for k := range uint64(s.n) {
			seed := s.first + k
			if sh.has(seed, s.first) {
				jobs = append(jobs, job{sc: s.sc, opt: f.options(seed), group: g, replay: f.replayFlags()})
			}
		}
	}
	return jobs
}

// campaign runs the jobs of a run, reports and writes the results.
func campaign(f *runFlags, sh shard, spans []span, command string, stdout, stderr io.Writer) int {
	jobs := plan(f, sh, spans)
	rep, started := execCampaign(f, jobs, command, stdout, stderr)
	rep.Resume = resume(f, sh, spans, jobs[started:])
	rep.finish(rep.wall, started < len(jobs))
	summary := stdout
	if f.json {
		summary = stderr
	}
	rep.writeText(summary)
	return writeOut(f, rep, stderr)
}

// execCampaign runs jobs with progress on stderr and --json lines on
// stdout, and counts them into a report; it returns how many started.
func execCampaign(f *runFlags, jobs []job, command string, stdout, stderr io.Writer) (*report, int) {
	rep := newReport(command, f.parallel, len(jobs))
	prog := newProgress(stderr, len(jobs))
	ctx, stop := interrupts(func() {
		prog.note("simrun: interrupted: no new seeds start; waiting for the running ones (Ctrl-C again to quit at once)")
	})
	defer stop()
	start := time.Now()
	prog.note("simrun: starting %d seeds on %d workers", len(jobs), f.parallel)
	stopTick := prog.tick()
	started := execute(ctx, jobs, f.parallel, func(d done) { prog.seed(d.out) }, func(d done) {
		j := jobs[d.index]
		rep.add(rep.group(j.group, j.sc.Name, workloads.VariantString(j.opt.Variants)), d.out)
		if f.json {
			stdout.Write(jsonLine(d.out))
		}
	})
	stopTick()
	prog.end()
	rep.wall = time.Since(start)
	return rep, started
}

// writeOut writes the results to --out, if given.
func writeOut(f *runFlags, rep *report, stderr io.Writer) int {
	if f.out == "" {
		return rep.ExitCode
	}
	if err := writeResults(f.out, rep); err != nil {
		fmt.Fprintf(stderr, "simrun: writing results: %v\n", err)
		return worse(rep.ExitCode, exitCrash)
	}
	fmt.Fprintf(stderr, "simrun: results in %s\n", f.out)
	return rep.ExitCode
}

// resume returns the commands that run the jobs that did not start: one
// for the scenario cut short, one for the scenarios not begun.
func resume(f *runFlags, sh shard, spans []span, rest []job) []string {
	if len(rest) == 0 {
		return nil
	}
	var cmds [][]string
	g := rest[0].group
	if s := spans[g]; rest[0].opt.Seed != s.first+sh.i { // begun
		k := rest[0].opt.Seed
		args := []string{binary, "run", "--scenario", s.sc.Ref(), "--seed", strconv.FormatUint(k, 10),
			"--seeds", strconv.FormatUint(s.first+uint64(s.n)-k, 10)}
		if sh.n > 0 {
			args = append(args, "--shard", fmt.Sprintf("0/%d", sh.n))
		}
		cmds = append(cmds, args)
		g++
	}
	if g < len(spans) {
		args := []string{binary, "run"}
		for _, s := range spans[g:] {
			args = append(args, "--scenario", s.sc.Ref())
		}
		args = append(args, "--seed", strconv.FormatUint(f.seed, 10))
		if f.seeds > 0 {
			args = append(args, "--seeds", strconv.Itoa(f.seeds))
		}
		if sh.n > 0 {
			args = append(args, "--shard", sh.String())
		}
		cmds = append(cmds, args)
	}
	var out []string
	for i, c := range cmds {
		out = append(out, strings.Join(append(c, f.commonArgs(i)...), " "))
	}
	return out
}

// commonArgs repeats the options of a campaign for a resume command.
func (f *runFlags) commonArgs(i int) []string {
	var a []string
	for _, k := range sortedKeys(f.variants) {
		a = append(a, "--variant", k+"="+f.variants[k])
	}
	if f.strategy != "" {
		a = append(a, "--strategy", string(f.strategy))
	}
	if f.budget > 0 {
		a = append(a, "--budget", f.budget.String())
	}
	a = append(a, "--parallel", strconv.Itoa(f.parallel))
	if f.out != "" {
		a = append(a, "--out", fmt.Sprintf("%s-rest%d", strings.TrimRight(f.out, string(os.PathSeparator)), i+1))
	}
	if f.json {
		a = append(a, "--json")
	}
	return a
}
