// Command mutants measures the harness's own mutation score: each planted
// bug of testdata/mutants (a small patch to core/ or sim/ whose header names
// the check that must find it) is applied to a copy of the repository,
// simrun is built from that copy, and campaigns of the mutant's scenario
// run with each strategy until the named check fires (or the seed cap is
// reached).
//
// A seed on which the named check fires is a detection only when the
// control passes: the unpatched tree, run on the same seed, scenario,
// strategy, variants and BUGGIFY setting, gives a pass. A seed whose
// control fails (the variants alone fire the check, say) is recorded and
// the campaign goes on, up to -control-tries such seeds; a mutant found only
// on such seeds is reported as "control fails", never counted. Detection
// reads the check ids of a seed's verdict (campaign.Found over the
// `checks` of simrun's --json line), never violation text; an unknown,
// crash or budget verdict is never a find.
//
// Every invocation copies the tracked tree once (the snapshot: results/
// and the patches aside, what every row of the run is measured on), builds
// the control simrun from it, and appends each finished mutant's row to a
// journal (-journal, default <out>/mutants.journal.jsonl). A run that is
// killed resumes where it stopped: rows of the journal measured on the same
// commit, tree and settings are kept, the others run. A journal of another
// commit, tree or settings is moved aside to .old first. At the end it
// writes mutants.md and mutants.json from the journal's rows: per mutant,
// the checks that fired, the control, whether the named check found it, the
// seeds to first detection per strategy, the commit (and whether the tree
// was dirty) it was measured at, and whether the targeted tests fail on the
// mutant (`go test -short -count=1` of the packages the patch touches and
// ./workloads: the affordable stand-in for `make test`, see -tests); with
// -make-test, also whether `make test` itself fails.
//
//	go run ./cmd/mutants [-seeds 1000] [-only a,b] [-fresh] [-parallel 1] [-tests=false] [-make-test]
//
// A patch that no longer applies to the tree is an error naming its file;
// nothing runs until every patch applies.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/ckptsim/ckptsim/workloads/campaign"
)

type config struct {
	dir          string // the mutants folder
	out          string // the results folder
	journal      string // the journal ("": <out>/mutants.journal.jsonl)
	seeds        int    // seed cap per campaign
	pendingSeeds int    // seed cap for a mutant whose check is pending
	first        uint64 // first seed
	controlTries int    // detecting seeds whose control fails before a campaign gives up
	parallel     int    // mutants at once
	seedParallel int    // simrun --parallel
	timeout      time.Duration
	only         map[string]bool
	fresh        bool
	makeTest     bool
	tests        bool
	testsOnly    bool
	testsTimeout time.Duration
	keep         bool
	cmdline      string
	// defaultCampaign: measure each mutant over the default campaign
	// (default.go) instead of its own scenario's campaigns.
	defaultCampaign bool
}

// reportName is the base name of the report and journal files.
func (c config) reportName() string {
	if c.defaultCampaign {
		return "default-campaign"
	}
	return "mutants"
}

// settings is the part of the configuration a row's measurement depends
// on: a journal row is kept only under the same settings.
func (c config) settings() string {
	if c.defaultCampaign {
		return fmt.Sprintf("default-campaign control-tries=%d", c.controlTries)
	}
	return fmt.Sprintf("seeds=%d pending-seeds=%d seed=%d control-tries=%d tests=%v make-test=%v",
		c.seeds, c.pendingSeeds, c.first, c.controlTries, c.tests, c.makeTest)
}

// Control is the unpatched tree's run of a seed on which the mutant fired
// its named check: same seed, scenario, strategy, variants and BUGGIFY.
type Control struct {
	Seed    uint64   `json:"seed"`
	Verdict string   `json:"verdict"`
	Checks  []string `json:"checks,omitempty"`
	First   string   `json:"first_violation,omitempty"`
}

// Passes reports whether the control is a pass.
func (c Control) Passes() bool { return c.Verdict == "pass" }

// Campaign is one strategy's stop-at-first-detection campaign.
type Campaign struct {
	Strategy string `json:"strategy"`
	Ran      int    `json:"seeds_ran"`          // seeds judged before it stopped
	Found    int    `json:"seeds_to_detection"` // 0: not found (with a passing control)
	Seed     int64  `json:"detecting_seed"`     // -1 when not found
	// Controls are the unpatched tree's runs of every seed the named
	// check fired on, in seed order; the last passes when Found > 0.
	Controls []Control `json:"controls"`
	Fired    []string  `json:"fired"`           // every check id seen on a failing seed
	Other    []string  `json:"other,omitempty"` // verdicts without a check seen (crash, unknown, budget)
	First    string    `json:"first_failure,omitempty"`
	Replay   string    `json:"replay,omitempty"`
	TimedOut bool      `json:"timed_out,omitempty"`
	// ControlStop: it stopped after -control-tries detecting seeds whose
	// control failed.
	ControlStop bool    `json:"control_stop,omitempty"`
	WallS       float64 `json:"wall_s"`
	// CPUS: CPU seconds (user + system) of the mutant's simrun process
	// over the campaign, up to the detecting seed when found (the seeds
	// running beside it under -seed-parallel included); the controls'
	// runs are not counted. Absent in rows measured before it was kept.
	CPUS float64 `json:"cpu_s,omitempty"`
	// FirstFail*: the first failing seed of any verdict (what a user sees
	// first), kept by the default-campaign mode: seeds run up to it, the
	// process's CPU seconds then (from /proc, in 10 ms ticks), its replay
	// command and its check ids (its verdict when it carries none).
	FirstFailRan    int      `json:"first_fail_seeds,omitempty"`
	FirstFailCPUS   float64  `json:"first_fail_cpu_s,omitempty"`
	FirstFailReplay string   `json:"first_fail_replay,omitempty"`
	FirstFailChecks []string `json:"first_fail_checks,omitempty"`
}

// Result is one mutant's row.
type Result struct {
	Mutant    *Mutant `json:"mutant"`
	PatchHash string  `json:"patch_sha256"`
	// Commit is the commit the row was measured at, Dirty whether the
	// tree under test (results/ and the patches aside) differed from it,
	// Tree the hash of that tree, Settings the measuring settings and
	// Command the invocation that measured it.
	Commit    string     `json:"commit"`
	Dirty     bool       `json:"dirty"`
	Tree      string     `json:"tree_sha256"`
	Settings  string     `json:"settings"`
	Command   string     `json:"command"`
	Pending   bool       `json:"pending,omitempty"` // the named check has not landed here yet
	Error     string     `json:"error,omitempty"`
	Campaigns []Campaign `json:"campaigns"`
	Fired     []string   `json:"fired"`
	// Detected: the named check fired on a seed whose control passed, in
	// some campaign. Control is "passes" then, "fails" when the check
	// fired only on seeds whose control failed, "" when it never fired.
	Detected bool   `json:"detected"`
	Control  string `json:"control,omitempty"`
	MakeTest string `json:"make_test,omitempty"` // "fails", "passes" or "" (not run)
	// Tests is the targeted test run's outcome ("fails", "passes", "" not
	// run), TestsCommand what ran in the mutant's copy, TestsFailed the
	// first failing tests or packages it reported.
	Tests        string   `json:"tests,omitempty"`
	TestsCommand string   `json:"tests_command,omitempty"`
	TestsFailed  []string `json:"tests_failed,omitempty"`
	Cap          int      `json:"seed_cap"`
	WallS        float64  `json:"wall_s"`
}

// Status is the row's verdict as the report counts it.
func (r *Result) Status() string {
	switch {
	case r.Error != "":
		return "error"
	case r.Detected && r.Control == "":
		return "uncontrolled" // a row of a run before controls: not counted
	case r.Detected:
		return "found"
	case r.Control == "fails":
		return "control fails"
	case r.Mutant != nil && r.Mutant.Equivalent != "":
		return "equivalent" // its header argues no check can find it: not counted
	case r.Pending:
		return "pending"
	}
	return "not found"
}

// Report is results/mutants.json.
type Report struct {
	Command string    `json:"command"`
	Commit  string    `json:"commit"` // the rows' commit, "-dirty" when the tree differed from it
	Tree    string    `json:"tree_sha256"`
	Date    string    `json:"date"`
	Seeds   int       `json:"seed_cap"`
	Mutants int       `json:"mutants"` // patches in testdata/mutants; rows may be fewer
	Results []*Result `json:"results"`
	// Default: the default-campaign report's figures (default.go).
	Default *DefaultSummary `json:"default_campaign,omitempty"`
}

func main() {
	cfg, renderOnly := parseFlags()
	if renderOnly {
		if err := rerender(cfg.out, cfg.reportName()); err != nil {
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

func parseFlags() (config, bool) {
	var cfg config
	var only string
	flag.StringVar(&cfg.dir, "dir", "testdata/mutants", "folder of the mutant patches")
	flag.StringVar(&cfg.out, "out", "results", "folder for mutants.md and mutants.json")
	flag.StringVar(&cfg.journal, "journal", "", "journal of finished rows (default <out>/mutants.journal.jsonl); a killed run resumes from it")
	flag.IntVar(&cfg.seeds, "seeds", 1000, "seeds per campaign before a mutant counts as not found")
	flag.IntVar(&cfg.pendingSeeds, "pending-seeds", 20, "seeds per campaign for a mutant whose named check has not landed (it cannot be found)")
	flag.Uint64Var(&cfg.first, "seed", 0, "first seed of every campaign")
	flag.IntVar(&cfg.controlTries, "control-tries", 3, "detecting seeds whose control (the unpatched tree) fails before a campaign stops")
	flag.IntVar(&cfg.parallel, "parallel", 1, "mutants measured at once")
	flag.IntVar(&cfg.seedParallel, "seed-parallel", runtime.NumCPU(), "seeds run at once within a campaign (simrun --parallel)")
	flag.DurationVar(&cfg.timeout, "timeout", 20*time.Minute, "wall-clock limit of one campaign")
	flag.StringVar(&only, "only", "", "comma-separated mutant names (default: all); the report holds every row of the journal")
	flag.BoolVar(&cfg.fresh, "fresh", false, "move the journal aside and measure every selected mutant again")
	flag.Bool("resume", true, "ignored: a run always resumes from its journal (see -fresh)")
	flag.BoolVar(&cfg.makeTest, "make-test", false, "also run `make test` on each mutant (slow)")
	flag.BoolVar(&cfg.tests, "tests", true, "run `go test -short -count=1` on the packages each patch touches and ./workloads in the mutant's copy, and record whether it fails")
	flag.BoolVar(&cfg.testsOnly, "tests-only", false, "run only the targeted tests of the selected mutants and add them to their journal rows (campaigns kept as they are)")
	flag.DurationVar(&cfg.testsTimeout, "tests-timeout", 15*time.Minute, "wall-clock limit of one mutant's targeted test run (a run cut off counts as failing)")
	flag.BoolVar(&cfg.keep, "keep", false, "keep the temporary copies")
	flag.BoolVar(&cfg.defaultCampaign, "default-campaign", false,
		"measure each mutant over the default campaign (simrun with no arguments, one seed at a time) up to its first detection: "+
			"seeds and CPU seconds, to <out>/default-campaign.md and .json (journal <out>/default-campaign.journal.jsonl); -tests is off")
	renderOnly := flag.Bool("render-only", false, "rewrite mutants.md from mutants.json without running anything")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "mutants: unexpected argument %q\n", flag.Arg(0))
		os.Exit(64)
	}
	if cfg.defaultCampaign {
		cfg.tests, cfg.makeTest = false, false
	}
	if only != "" {
		cfg.only = map[string]bool{}
		for n := range strings.SplitSeq(only, ",") {
			cfg.only[strings.TrimSpace(n)] = true
		}
	}
	cfg.cmdline = strings.TrimSpace("go run ./cmd/mutants " + strings.Join(os.Args[1:], " "))
	if root, err := gitOut(".", "rev-parse", "--show-toplevel"); err == nil {
		cfg.cmdline = portable(cfg.cmdline, root)
	}
	return cfg, *renderOnly
}

// under resolves a flag's path against the repository root unless it is
// absolute.
func under(root, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(root, p)
}

// rerender rewrites NAME.md from the NAME.json in out (name: "mutants",
// or "default-campaign").
func rerender(out, name string) error {
	root, err := gitOut(".", "rev-parse", "--show-toplevel")
	if err != nil {
		return err
	}
	path := filepath.Join(under(root, out), name+".json")
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var rep Report
	if err := json.Unmarshal(b, &rep); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	moved := false // a report of an older cmd/mutants names its mutants, or its -out folder, by absolute path
	for _, r := range rep.Results {
		if r.Mutant != nil && r.Mutant.File != moduleRelative(r.Mutant.File) {
			r.Mutant.File, moved = moduleRelative(r.Mutant.File), true
		}
		if c := portable(r.Command, root); c != r.Command {
			r.Command, moved = c, true
		}
	}
	if c := portable(rep.Command, root); c != rep.Command {
		rep.Command, moved = c, true
	}
	if moved {
		return writeReport(root, under(root, out), name, &rep)
	}
	dir := under(root, out)
	return campaign.WriteFile(filepath.Join(dir, name+".md"), []byte(renderNamed(name, &rep, rootFrom(dir, root))))
}

// renderNamed renders the report NAME.md.
func renderNamed(name string, rep *Report, root string) string {
	if name == "default-campaign" {
		return renderDefault(rep, root)
	}
	return render(rep, root)
}

// writeReport writes NAME.json and NAME.md atomically to dir; root is the
// module's root.
func writeReport(root, dir, name string, rep *Report) error {
	if name == "default-campaign" {
		rep.Default = summarizeDefault(rep)
	}
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := campaign.WriteFile(filepath.Join(dir, name+".json"), append(b, '\n')); err != nil {
		return err
	}
	return campaign.WriteFile(filepath.Join(dir, name+".md"), []byte(renderNamed(name, rep, rootFrom(dir, root))))
}

// rootFrom is the module's root seen from the report's folder dir, as a
// relative link takes it ("..", "../.."): the report's links to the
// patches resolve wherever -out puts it.
func rootFrom(dir, root string) string {
	rel, err := filepath.Rel(dir, root)
	if err != nil {
		return ".."
	}
	return filepath.ToSlash(rel)
}
