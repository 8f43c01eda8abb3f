package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/ckptsim/ckptsim/core/variant"
	"github.com/ckptsim/ckptsim/workloads"
)

// Exit codes. A campaign exits with the worst of its seeds by exitRank.
const (
	exitPass        = 0
	exitSafety      = 1
	exitLiveness    = 2
	exitCrash       = 3
	exitBudget      = 4
	exitUsage       = 64
	exitInterrupted = 130
)

// verdictExit maps a verdict to its exit code.
func verdictExit(v workloads.Verdict) int {
	switch v {
	case workloads.Pass:
		return exitPass
	case workloads.Safety:
		return exitSafety
	case workloads.Liveness:
		return exitLiveness
	case workloads.Budget, workloads.Unknown: // a step budget ran out: the simulator's or the checker's
		return exitBudget
	}
	return exitCrash // crash, and anything unknown
}

// exitRank orders exit codes, worst first: 1, 2, 3, 4, 130, 0.
func exitRank(code int) int {
	switch code {
	case exitSafety, exitLiveness, exitCrash, exitBudget:
		return code
	case exitInterrupted:
		return 5
	}
	return 6
}

// worse returns the worse of two exit codes.
func worse(a, b int) int {
	if exitRank(b) < exitRank(a) {
		return b
	}
	return a
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(s string) error { *l = append(*l, s); return nil }

// variantFlag is a repeatable key=value flag checked with CheckVariant.
type variantFlag map[string]string

func (v variantFlag) String() string { return workloads.VariantString(v) }

func (v variantFlag) Set(s string) error {
	m, err := parseVariants(s)
	if err != nil {
		return err
	}
	maps.Copy(v, m)
	return nil
}

// parseVariants reads "k=v[,k=v...]" and checks every pair.
func parseVariants(s string) (map[string]string, error) { return variant.ParsePairs(s) }

// shard is --shard i/n: the seeds s with (s - first) % n == i.
type shard struct{ i, n uint64 }

func (s *shard) String() string {
	if s.n == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.i, s.n)
}

func (s *shard) Set(v string) error {
	a, b, ok := strings.Cut(v, "/")
	i, err1 := strconv.ParseUint(a, 10, 64)
	n, err2 := strconv.ParseUint(b, 10, 64)
	if !ok || err1 != nil || err2 != nil || n == 0 || i >= n {
		return fmt.Errorf("want i/n with 0 <= i < n, got %q", v)
	}
	s.i, s.n = i, n
	return nil
}

// has reports whether seed belongs to the shard of a range starting at first.
func (s shard) has(seed, first uint64) bool { return s.n == 0 || (seed-first)%s.n == s.i }

// budget is --budget: a step budget, a plain integer (1_000_000, 2e6 and
// the suffixes k, M, G are accepted too).
type budget int64

func (b *budget) String() string { return strconv.FormatInt(int64(*b), 10) }

func (b *budget) Set(s string) error {
	mult := int64(1)
	t := strings.ReplaceAll(s, "_", "")
	if n := len(t); n > 0 {
		if m, ok := map[byte]int64{'k': 1e3, 'K': 1e3, 'M': 1e6, 'G': 1e9}[t[n-1]]; ok {
			mult, t = m, t[:n-1]
		}
	}
	v, err := strconv.ParseInt(t, 10, 64)
	if err != nil {
		f, ferr := strconv.ParseFloat(t, 64)
		if ferr != nil || f != float64(int64(f)) {
			return fmt.Errorf("want a step count, got %q", s)
		}
		v = int64(f)
	}
	if v < 0 {
		return fmt.Errorf("negative step budget %q", s)
	}
	*b = budget(v * mult)
	return nil
}

// strategy is --strategy random|pct.
type strategy string

func (s *strategy) String() string { return string(*s) }

func (s *strategy) Set(v string) error {
	if v != "random" && v != "pct" {
		return fmt.Errorf("want random or pct, got %q", v)
	}
	*s = strategy(v)
	return nil
}

// runFlags are the options shared by run, replay, shrink and compare.
type runFlags struct {
	scenarios stringList
	seed      uint64
	seeds     int
	parallel  int
	variants  variantFlag
	profile   string // --profile: a core/variant profile, expanded under variants
	strategy  strategy
	budget    budget
	buggify   buggifyFlag
	out       string
	json      bool
	verbose   bool
}

func (f *runFlags) addScenario(fs *flag.FlagSet, help string) { fs.Var(&f.scenarios, "scenario", help) }
func (f *runFlags) addSeed(fs *flag.FlagSet, help string)     { fs.Uint64Var(&f.seed, "seed", 0, help) }
func (f *runFlags) addSeeds(fs *flag.FlagSet, help string)    { fs.IntVar(&f.seeds, "seeds", 0, help) }
func (f *runFlags) addOut(fs *flag.FlagSet, help string)      { fs.StringVar(&f.out, "out", "", help) }
func (f *runFlags) addJSON(fs *flag.FlagSet, help string)     { fs.BoolVar(&f.json, "json", false, help) }

func (f *runFlags) addVerbose(fs *flag.FlagSet) {
	fs.BoolVar(&f.verbose, "verbose", false, "add each scenario's latency rows and its slowest seeds to the summary (summary.txt always has them)")
}

func (f *runFlags) addParallel(fs *flag.FlagSet) {
	fs.IntVar(&f.parallel, "parallel", runtime.NumCPU(), "seeds run at once")
}

// addRunOptions registers --variant, --strategy and --budget.
func (f *runFlags) addRunOptions(fs *flag.FlagSet) {
	f.variants = variantFlag{}
	fs.Var(f.variants, "variant", "`key=value` overriding the scenario's variants (repeatable; see simrun list)")
	fs.Func("profile", "variant profile `name` (see simrun list): its key=value pairs override the scenario's; --variant wins over it", func(s string) error {
		if _, err := variant.LookupProfile(s); err != nil {
			return err
		}
		f.profile = s
		return nil
	})
	fs.Var(&f.strategy, "strategy", "scheduling `strategy`: random or pct (default: the scenario's)")
	fs.Var(&f.budget, "budget", "step budget `N` per seed (default: the scenario's run.max_steps)")
	fs.Var(&f.buggify, "buggify", "BUGGIFY sites `on` or off in core (default: the scenario's buggify.enabled)")
}

// heapShare is the heap each of parallel seeds may reach before it ends
// with a budget verdict: three quarters of the memory a seed may use on
// this machine (workloads.MachineMemory), split between them; 0 (no
// budget) when the machine's memory is unknown.
func heapShare(parallel int) int64 {
	if workloads.MachineMemory <= 0 {
		return 0
	}
	return workloads.MachineMemory / 4 * 3 / int64(max(parallel, 1))
}

// options builds the workloads options of one seed.
func (f *runFlags) options(seed uint64) workloads.Options {
	opt := workloads.Options{Seed: seed, Variants: f.expanded(f.profile), Profile: f.profile,
		Strategy: string(f.strategy), MaxSteps: int64(f.budget), Buggify: string(f.buggify),
		MaxHeap: heapShare(f.parallel)}
	if f.out != "" && filepath.Ext(f.out) == "" {
		// porcupine's visualisation of a failing check goes next to the results
		opt.ArtifactDir = filepath.Join(f.out, "artifacts")
	}
	return opt
}

// expanded returns the variants of a seed under profile ("": none): the
// profile's pairs with --variant on top.
func (f *runFlags) expanded(profile string) map[string]string {
	if profile == "" {
		return maps.Clone(map[string]string(f.variants))
	}
	p, err := variant.LookupProfile(profile) // checked by the flag
	if err != nil {
		panic(err)
	}
	return p.Expand(f.variants)
}

// replayFlags are the flags a replay command needs beyond the scenario,
// seed, variants and BUGGIFY that workloads.Run's replay command already
// names: the seed's strategy override ("": none) and the budget.
func (f *runFlags) replayFlags(strategy string) string {
	var b strings.Builder
	if strategy != "" {
		fmt.Fprintf(&b, " --strategy %s", strategy)
	}
	if f.budget > 0 {
		fmt.Fprintf(&b, " --budget %d", f.budget)
	}
	return b.String()
}

// newFlagSet makes a FlagSet whose errors print one line and a hint; -h
// prints the full usage on stdout.
func newFlagSet(name, synopsis, about string, stdout, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stdout, "usage: simrun %s %s\n\n%s\n\nflags:\n", name, synopsis, about)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		fs.SetOutput(stderr)
	}
	return fs
}

// parse parses args and returns -1 to go on or the exit code to return.
// Flags and arguments may be interleaved, as users type them: in a command
// with a --scenario flag each argument is a scenario (simrun replay my.yaml
// --seed 7 is simrun replay --scenario my.yaml --seed 7); elsewhere an
// argument is an error.
func parse(fs *flag.FlagSet, args []string, stderr io.Writer) int {
	usage := fs.Usage
	fs.Usage = func() {}
	defer func() { fs.Usage = usage }()
	var pos []string
	for {
		err := fs.Parse(args)
		switch {
		case errors.Is(err, flag.ErrHelp):
			usage()
			return exitPass
		case err != nil:
			fmt.Fprintf(stderr, "simrun %s: see simrun %s -h\n", fs.Name(), fs.Name())
			return exitUsage
		}
		if fs.NArg() == 0 {
			break
		}
		pos, args = append(pos, fs.Arg(0)), fs.Args()[1:]
	}
	if err := positionalScenarios(fs, pos); err != nil {
		fmt.Fprintf(stderr, "simrun %s: %v (see simrun %s -h)\n", fs.Name(), err, fs.Name())
		return exitUsage
	}
	return -1
}

// positionalScenarios feeds arguments to the --scenario flag: appended
// where it repeats, refused where it takes one scenario and has one.
func positionalScenarios(fs *flag.FlagSet, pos []string) error {
	if len(pos) == 0 {
		return nil
	}
	sf := fs.Lookup("scenario")
	if sf == nil {
		return fmt.Errorf("unexpected argument %q (flags only)", pos[0])
	}
	_, repeats := sf.Value.(*stringList)
	for _, p := range pos {
		if !repeats && sf.Value.String() != "" {
			return fmt.Errorf("one scenario only, got %q and %q", sf.Value.String(), p)
		}
		if err := sf.Value.Set(p); err != nil {
			return err
		}
	}
	return nil
}

// checkSeeds refuses a --seeds given below 1 (left out, each command's
// default applies); it returns -1 to go on or exitUsage.
func (f *runFlags) checkSeeds(fs *flag.FlagSet, stderr io.Writer) int {
	if flagsSet(fs)["seeds"] && f.seeds < 1 {
		return usagef(stderr, fs.Name(), "--seeds must be at least 1, got %d (leave it out for the default)", f.seeds)
	}
	return -1
}

// usagef prints a usage error and returns exitUsage.
func usagef(stderr io.Writer, cmd, format string, args ...any) int {
	fmt.Fprintf(stderr, "simrun %s: %s\n", cmd, fmt.Sprintf(format, args...))
	return exitUsage
}

// seedsFor is how many seeds a scenario gets without --seeds: its share
// of the default campaign (its entry without variants), or 10.
func seedsFor(name string) int {
	for _, c := range workloads.DefaultCampaign {
		if c.Name == name && len(c.Variants) == 0 && c.Strategy == "" && c.Buggify == "" {
			return c.Seeds
		}
	}
	return 10
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
