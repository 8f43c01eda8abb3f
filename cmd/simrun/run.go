package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ckptsim/ckptsim/workloads"
	"github.com/ckptsim/ckptsim/workloads/campaign"
)

const runAbout = `Runs seeds of scenarios on parallel workers and judges each: pass, or a
safety violation, a liveness violation, a harness crash or an exhausted
step budget. With no --scenario it runs the default campaign (simrun list
shows it). Progress goes to stderr; a summary table with latency
distributions and every failure with its replay command follows at the
end (on stderr with --json, else on stdout); --verbose adds each
scenario's latency rows and its slowest seeds.

With --out DIR every finished seed is appended to DIR/results.jsonl at
once (fsynced at least every 2 s) and DIR/summary.json is rewritten from
the records as the campaign goes, so a killed campaign loses only the
seeds that were running. --resume DIR continues a campaign from its
results, skipping the seeds it finished, and ends with the summary an
uninterrupted run gives; run --out DIR over a folder holding the same
campaign (scenarios and their contents, seeds, variants, strategy,
budget, shard) continues it the same way, and over any other results
exits 64 naming what the folder holds. A first Ctrl-C (SIGINT) or SIGTERM starts no
new seed and gives the running ones 3 s to finish, then writes what
finished and prints the command that runs the rest; a second exits at
once, results.jsonl keeping every seed that finished. Seeds run at once
are fewer than --parallel when their estimated memory (workloads'
MemoryEstimate) would not fit the machine together.

exit: 0 pass, 1 safety, 2 liveness, 3 crash, 4 budget or unknown (the worst seed, in
that order of precedence), 64 usage or scenario error, 130 interrupted.`

const binary = "go run ./cmd/simrun"

// span is one scenario's seed range in a campaign, with the settings of
// its own (a default-campaign entry's variants, strategy and BUGGIFY;
// --variant, --strategy and --buggify override them).
type span struct {
	sc       *workloads.Scenario
	first    uint64
	n        int
	variants map[string]string
	strategy string // "": the scenario's run.strategy
	buggify  string // "": the scenario's buggify.enabled
}

// mode is the strategy and BUGGIFY override a span's seeds run with: the
// campaign's flag where given, else the span's own.
func (s span) mode(f *runFlags) (strategy, buggify string) {
	return cmp.Or(string(f.strategy), s.strategy), cmp.Or(string(f.buggify), s.buggify)
}

// options are the variants a span's seeds run with: its own, overridden
// by --variant.
func (s span) options(f *runFlags) map[string]string {
	v := maps.Clone(s.variants)
	if v == nil {
		v = map[string]string{}
	}
	maps.Copy(v, f.expanded(f.profile)) // the profile's pairs, --variant on top
	return v
}

// runFlagSet declares run's flags.
func runFlagSet(f *runFlags, sh *shard, resumeDir *string, stdout, stderr io.Writer) *flag.FlagSet {
	fs := newFlagSet("run", "[NAME|FILE ...] [flags] | --resume DIR [--parallel N] [--json]", runAbout, stdout, stderr)
	f.addScenario(fs, "scenario `name|file` to run (repeatable; default: the default campaign)")
	f.addSeeds(fs, "seeds per scenario (default: each scenario's share of the default campaign, else 10)")
	f.addSeed(fs, "first seed")
	f.addParallel(fs)
	f.addOut(fs, "write results.jsonl (as seeds finish), campaign.json, summary.json and summary.txt to `dir`")
	f.addJSON(fs, "print one JSON object per seed on stdout, in campaign order (scenario, then seed) whatever --parallel")
	f.addVerbose(fs)
	f.addRunOptions(fs)
	fs.Var(sh, "shard", "run slice `i/n` of the seed range only: the seeds s with (s - first) % n == i")
	fs.StringVar(resumeDir, "resume", "", "continue the campaign whose results are in `dir` (its flags are read from dir/campaign.json)")
	return fs
}

func runCmd(args []string, stdout, stderr io.Writer) int {
	var f runFlags
	var sh shard
	var resumeDir string
	fs := runFlagSet(&f, &sh, &resumeDir, stdout, stderr)
	if c := parse(fs, args, stderr); c >= 0 {
		return c
	}
	if c := f.checkSeeds(fs, stderr); c >= 0 {
		return c
	}
	var prior []record
	if resumeDir != "" {
		var code int
		if args, prior, code = resumeArgs(fs, resumeDir, stderr); code >= 0 {
			return code
		}
		parallel, json, verbose := f.parallel, f.json, f.verbose
		f, sh = runFlags{}, shard{}
		var ignored string
		if c := parse(runFlagSet(&f, &sh, &ignored, stdout, stderr), args, stderr); c >= 0 {
			return usagef(stderr, "run", "--resume %s: the recorded arguments do not parse", resumeDir)
		}
		if set := flagsSet(fs); set["parallel"] {
			f.parallel = parallel
		}
		f.json = f.json || json
		f.verbose = f.verbose || verbose
		f.out = resumeDir
	}
	if f.parallel < 1 || f.seeds < 0 {
		return usagef(stderr, "run", "--parallel must be at least 1 and --seeds not negative")
	}
	all, err := lookupAll(f.scenarios)
	if err != nil {
		return usagef(stderr, "run", "%v", err)
	}
	scs := make([]*workloads.Scenario, 0, len(all))
	for _, s := range all {
		scs = append(scs, s.sc)
	}
	f.parallel = fitParallel(f.parallel, scs, stderr)
	c := &runCampaign{f: &f, sh: sh, spans: distinct(&f, all), args: args, prior: prior, resumed: resumeDir != ""}
	return c.run(stdout, stderr)
}

// flagsSet returns the names of the flags given on the command line.
func flagsSet(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	return set
}

// resumeArgs checks a --resume command line and returns the campaign's
// recorded arguments and finished records; code is -1 to go on.
func resumeArgs(fs *flag.FlagSet, dir string, stderr io.Writer) (args []string, prior []record, code int) {
	for name := range flagsSet(fs) {
		if name != "resume" && name != "parallel" && name != "json" && name != "verbose" {
			return nil, nil, usagef(stderr, "run", "--resume takes only --parallel, --json and --verbose (the campaign's flags are in %s), got --%s",
				filepath.Join(dir, manifestFile), name)
		}
	}
	m, err := readManifest(dir)
	if err != nil {
		return nil, nil, usagef(stderr, "run", "--resume: %v", err)
	}
	prior, err = readRecords(filepath.Join(dir, resultsFile))
	if err != nil {
		return nil, nil, usagef(stderr, "run", "--resume: %v", err)
	}
	return m.Args, prior, -1
}

func cmpOr(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

// plan lists the jobs of the spans, keeping the shard's seeds. The
// scenarios named on the command line run span by span, in the order
// given. The default campaign runs in rounds: the first seed of every
// span, then the second, then seeds 2-3, 4-7, 8-15 and so on (each round
// as long as all before it), span by span within a round. A bug that any
// of its rows reaches in its first seeds is then found after a few seeds
// of each, not after every seed of the rows before it (its first row has
// 200 seeds): the CPU-seconds to a first detection
// (results/mutants/default-campaign.md) follow the campaign's order. Each
// seed still runs alone, so the order changes no verdict or trace hash.
func plan(f *runFlags, sh shard, spans []span) []job {
	var jobs []job
	longest := 0
	for _, s := range spans {
		longest = max(longest, s.n)
	}
	rounds := len(f.scenarios) == 0
	for lo := 0; lo < longest; lo = max(2*lo, lo+1) {
		hi := max(2*lo, lo+1)
		if !rounds {
			hi = longest
		}
		for g, s := range spans {
			strategy, buggify := s.mode(f)
			for k := uint64(lo); k < uint64(min(hi, s.n)); k++ {
				seed := s.first + k
				if !sh.has(seed, s.first) {
					continue
				}
				opt := f.options(seed)
				opt.Variants = s.options(f)
				opt.Strategy, opt.Buggify = strategy, buggify
				jobs = append(jobs, job{sc: s.sc, opt: opt, group: g, replay: f.replayFlags(strategy), own: [2]string{s.strategy, s.buggify}})
			}
		}
		if !rounds {
			break
		}
	}
	return jobs
}

// distinct gives the spans their first seed and count (--seed, --seeds)
// and keeps each set of seeds once: a flag that overrides an entry's own
// variants, strategy or BUGGIFY (--variant design=per-pipeline,
// --buggify on) makes it the same seeds as an earlier entry's, which
// then runs the longer of the two counts.
func distinct(f *runFlags, all []span) []span {
	var spans []span
	at := map[string]int{}
	for _, s := range all {
		strategy, buggify := s.mode(f)
		key := s.sc.Name + " " + workloads.VariantString(s.options(f)) + " " + strategy + " " + buggify
		s.first, s.n = f.seed, cmpOr(f.seeds, s.n)
		if i, ok := at[key]; ok {
			spans[i].n = max(spans[i].n, s.n)
			continue
		}
		at[key] = len(spans)
		spans = append(spans, s)
	}
	return spans
}

// runCampaign is one session of a run: a fresh campaign or a resumed one.
type runCampaign struct {
	f       *runFlags
	sh      shard
	spans   []span
	args    []string // the run command's arguments (recorded for --resume)
	prior   []record // seeds finished by earlier sessions
	resumed bool
}

// run runs the jobs not yet finished, reports and writes the results.
func (c *runCampaign) run(stdout, stderr io.Writer) int {
	f := c.f
	all := plan(f, c.sh, c.spans)
	if f.out != "" && !c.resumed {
		mine := c.manifest(len(all))
		var held *heldCampaign
		switch err := outFree(f.out, &mine); {
		case errors.As(err, &held):
			// the same campaign: go on with it, as --resume does
			prior, err := readRecords(filepath.Join(f.out, resultsFile))
			if err != nil {
				return usagef(stderr, "run", "--out %s: %v", f.out, err)
			}
			c.prior, c.resumed = prior, true
			fmt.Fprintf(stderr, "simrun: --out %s holds this campaign (%s): continuing it, as run --resume %s does\n", f.out, held.what, f.out)
		case err != nil:
			return usagef(stderr, "run", "--out %v", err)
		}
	}
	rep := newReport("simrun run "+strings.Join(c.args, " "), f.parallel, len(all))
	finished := map[seedKey]bool{}
	for _, rec := range c.prior {
		g := c.groupOf(rec)
		if g < 0 {
			return usagef(stderr, "run", "--resume: %s holds scenario %s, which the campaign does not run", f.out, rec.Scenario)
		}
		finished[rec.key()] = true
		rep.add(rep.group(g, rec.Scenario, rec.Variants, c.spans[g].strategy, c.spans[g].buggify), rec)
	}
	var jobs []job
	for _, j := range all {
		if !finished[seedKey{j.sc.Name, j.opt.Seed, workloads.VariantString(j.opt.Variants), j.opt.Strategy, j.opt.Buggify}] {
			jobs = append(jobs, j)
		}
	}
	var journal *campaign.Journal
	if f.out != "" {
		var err error
		if journal, rep.priorWall, err = c.openOut(len(all)); err != nil {
			flag := "--out"
			if c.resumed {
				flag = "--resume"
			}
			return usagef(stderr, "run", "%s: %v", flag, err)
		}
		if c.resumed {
			fmt.Fprintf(stderr, "simrun: resuming %s: %d of %d seeds already finished\n", f.out, len(all)-len(jobs), len(all))
		}
	}
	// a summary written while the campaign runs names the command that
	// continues it, should the campaign be killed
	rest, stop := execCampaign(f, jobs, rep, journal, c.resumeCommands(jobs), stdout, stderr)
	defer stop() // a second interrupt while the results are written exits 130 too
	rep.Resume = c.resumeCommands(jobs[rest:])
	rep.finish(rep.wall, rest < len(jobs))
	summary := stdout
	if f.json {
		summary = stderr
	}
	rep.writeText(summary, f.verbose)
	return closeOut(f.out, journal, rep, c.groupOf, stderr)
}

// freshJournal starts an empty results.jsonl in dir ("": none).
func freshJournal(dir string) (*campaign.Journal, error) {
	if dir == "" {
		return nil, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, resultsFile)
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	return campaign.OpenJournal(path)
}

// closeOut closes the journal, sorts results.jsonl into campaign order and
// writes the summary; it returns the campaign's exit code.
func closeOut(dir string, journal *campaign.Journal, rep *report, group func(record) int, stderr io.Writer) int {
	if journal == nil {
		return rep.ExitCode
	}
	err := journal.Close()
	if err == nil {
		err = sortResults(filepath.Join(dir, resultsFile), group)
	}
	if err == nil {
		err = writeSummary(dir, rep)
	}
	if err != nil {
		fmt.Fprintf(stderr, "simrun: writing results: %v\n", err)
		return worse(rep.ExitCode, exitCrash)
	}
	fmt.Fprintf(stderr, "simrun: results in %s\n", dir)
	return rep.ExitCode
}

// groupOf is the place of a record's span in the campaign (-1: none).
func (c *runCampaign) groupOf(rec record) int {
	return spanOf(len(c.spans), func(i int) spanID {
		s := c.spans[i]
		strategy, buggify := s.mode(c.f)
		return spanID{s.sc.Name, s.variants, strategy, buggify}
	}, rec)
}

// openOut prepares the results folder: a fresh campaign writes its
// manifest and starts an empty results.jsonl; a resumed one appends. It
// returns the wall time of earlier sessions.
func (c *runCampaign) openOut(planned int) (*campaign.Journal, time.Duration, error) {
	dir := c.f.out
	path := filepath.Join(dir, resultsFile)
	var prior time.Duration
	if c.resumed {
		if b, err := os.ReadFile(filepath.Join(dir, "summary.json")); err == nil {
			var s struct {
				WallNs int64 `json:"wall_ns"`
			}
			if json.Unmarshal(b, &s) == nil {
				prior = time.Duration(s.WallNs)
			}
		}
		j, err := campaign.OpenJournal(path)
		return j, prior, err
	}
	if err := writeManifest(dir, c.manifest(planned)); err != nil {
		return nil, 0, err
	}
	j, err := freshJournal(dir)
	return j, prior, err
}

// execCampaign runs jobs with progress on stderr and --json lines on
// stdout, counts them into rep, appends each to the journal (when there is
// one) as it finishes and rewrites the summary from time to time. A first
// interrupt starts no new seed and gives the running ones graceWall; a
// second exits 130 at once, the journal synced and no temporary file of
// campaign.WriteFile left. It returns the index of the first job that did
// not finish (len(jobs): all did) and stop, which ends the watch on
// interrupts: the caller calls it once the results are written (closeOut),
// so that a second interrupt while they are written exits the same way.
func execCampaign(f *runFlags, jobs []job, rep *report, journal *campaign.Journal, resume []string,
	stdout, stderr io.Writer) (int, func()) {
	prog := newProgress(stderr, len(jobs))
	ctx, abandon, stop := interrupts(func() {
		prog.note("simrun: interrupted: no new seeds start; the running ones get %v to finish (interrupt again to quit at once)", graceWall)
	}, func() {
		where := "nothing was recorded (no --out)"
		if journal != nil {
			journal.Sync()
			where = fmt.Sprintf("every finished seed is in %s; %s run --resume %s runs the rest",
				filepath.Join(f.out, resultsFile), binary, f.out)
		}
		prog.note("simrun: interrupted again: exiting at once; %s", where)
	})
	finished := make([]bool, len(jobs))
	start := wallNow()
	lastSummary := start
	prog.note("simrun: starting %d seeds on %d workers", len(jobs), f.parallel)
	stopTick := prog.tick()
	campaign.ExecuteUntil(ctx, abandon, len(jobs), f.parallel, func(i int) record { return newRecord(prog.run(i, jobs[i])) },
		func(i int, rec record) {
			finished[i] = true
			prog.seed(rec.Outcome)
			for _, e := range rec.IOErrors {
				prog.note("simrun: %s seed %d: %s", rec.Scenario, rec.Seed, e)
			}
			j := jobs[i]
			g := rep.group(j.group, j.sc.Name, workloads.VariantString(j.opt.Variants), j.own[0], j.own[1])
			g.Profile, g.Label = j.opt.Profile, j.label
			rep.add(g, rec)
			if journal == nil {
				return
			}
			if err := journal.Append(rec); err != nil {
				prog.note("simrun: %v", err)
				rep.ioError(fmt.Sprintf("%s seed %d: not recorded: %v", rec.Scenario, rec.Seed, err))
			}
			if wallSince(lastSummary) >= campaign.SyncEvery {
				lastSummary = wallNow()
				rep.wall = wallSince(start)
				rep.Resume = resume
				rep.finish(rep.wall, false)
				if err := writeSummary(f.out, rep); err != nil {
					prog.note("simrun: writing the summary: %v", err)
				}
			}
		},
		func(_ int, rec record) {
			if f.json {
				stdout.Write(jsonLine(rec.Outcome))
			}
		})
	stopTick()
	prog.end()
	rep.wall = wallSince(start)
	if rest := slices.Index(finished, false); rest >= 0 {
		if abandon.Err() != nil {
			prog.note("simrun: gave up on the seeds still running after %v", graceWall)
		}
		return rest, stop
	}
	return len(jobs), stop
}

// resumeCommands returns the commands that run the jobs that did not
// start: with --out, the --resume of the folder; without, one command for
// the scenario cut short and one for the scenarios not begun.
func (c *runCampaign) resumeCommands(rest []job) []string {
	if len(rest) == 0 {
		return nil
	}
	if c.f.out != "" {
		return []string{binary + " run --resume " + c.f.out}
	}
	return resume(c.f, c.sh, c.spans, rest)
}

// resume returns the commands that run the jobs that did not start: one
// for each span cut short (its seeds from the first not started; the
// campaign runs in rounds, so several spans may be), one for the spans
// not begun, and one more for each span not begun with settings of its
// own.
func resume(f *runFlags, sh shard, spans []span, rest []job) []string {
	if len(rest) == 0 {
		return nil
	}
	next := make([]uint64, len(spans)) // the first seed not started, per span
	left := make([]bool, len(spans))
	for _, j := range rest {
		if !left[j.group] || j.opt.Seed < next[j.group] {
			next[j.group], left[j.group] = j.opt.Seed, true
		}
	}
	var begun, own [][]string
	var plain []span
	for g, s := range spans {
		if !left[g] {
			continue
		}
		k, shardArg := next[g], sh.String()
		if k != s.first+sh.i {
			shardArg = fmt.Sprintf("0/%d", sh.n) // the shard's seeds from k on
		} else if len(s.variants) == 0 && s.strategy == "" && s.buggify == "" {
			plain = append(plain, s)
			continue
		}
		args := []string{binary, "run", "--scenario", s.sc.Ref(), "--seed", strconv.FormatUint(k, 10),
			"--seeds", strconv.FormatUint(s.first+uint64(s.n)-k, 10)}
		if sh.n > 0 {
			args = append(args, "--shard", shardArg)
		}
		if k != s.first+sh.i {
			begun = append(begun, append(args, ownFlags(s)...))
		} else {
			own = append(own, append(args, ownFlags(s)...))
		}
	}
	cmds := begun
	if len(plain) > 0 {
		args := []string{binary, "run"}
		for _, s := range plain {
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
	cmds = append(cmds, own...)
	var out []string
	for i, c := range cmds {
		out = append(out, strings.Join(append(c, f.commonArgs(i)...), " "))
	}
	return out
}

// ownFlags are the flags of a span's own settings: its variants, strategy
// and BUGGIFY (the campaign's flags follow them and win).
func ownFlags(s span) []string {
	var a []string
	for _, k := range sortedKeys(s.variants) {
		a = append(a, "--variant", k+"="+s.variants[k])
	}
	if s.strategy != "" {
		a = append(a, "--strategy", s.strategy)
	}
	if s.buggify != "" {
		a = append(a, "--buggify", s.buggify)
	}
	return a
}

// commonArgs repeats the options of a campaign for a resume command.
func (f *runFlags) commonArgs(i int) []string {
	var a []string
	if f.profile != "" {
		a = append(a, "--profile", f.profile)
	}
	for _, k := range sortedKeys(f.variants) {
		a = append(a, "--variant", k+"="+f.variants[k])
	}
	if f.strategy != "" {
		a = append(a, "--strategy", string(f.strategy))
	}
	if f.buggify != "" {
		a = append(a, "--buggify", string(f.buggify))
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
