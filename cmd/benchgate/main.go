// Command benchgate compares a head benchmark file with a baseline and
// fails CI on a regression of a deterministic figure.
//
//	benchgate [-max 10] base.txt head.txt
//
// Both files are in the Go benchmark format. Benchmarks are matched by
// name without the -N GOMAXPROCS suffix, so a baseline taken on another
// core count still gates. Units are declared by "Unit" metadata lines
// (better=higher|lower, assume=exact|nothing, gate=PCT), which bench/
// prints. A unit with assume=exact (simulator scheduling points per
// scenario, allocations per scheduling point, the simulated saturation
// latencies) is deterministic: its median may not move in the worse
// direction by more than -max percent. A unit with gate=PCT is a
// wall-clock figure steady enough to gate all the same (a ratio of two
// implementations measured back to back in one process): its median may
// not move in the worse direction by more than PCT percent. A unit with
// floor=X is a ratio whose size moves from run to run and machine to
// machine (the same build gave synctest/sim 2.55 where baseline-ci.txt was
// taken and 1.27 on the CI machine, a virtual machine of the same CPU
// model; 3.93 in the next baseline) but whose side of X does not: head's median may not fall below X,
// whatever the baseline says. A gated figure of the baseline that head
// lacks is a failure. Every other figure
// (wall-clock times on noisy machines) is printed with benchmath's
// comparison but never fails the gate.
//
// A relative gate (-rel, repeatable) compares figures within head: each
// head benchmark whose name matches a pattern against a reference
// benchmark of the same run, on one unit, by ratio or difference of their
// medians, whatever the baseline says:
//
//	-rel 'cpu-ns/op ^BenchmarkTriggerPrecise/ BenchmarkWakeFloor x3'
//	-rel 'cpu-ns/op ^BenchmarkTriggerPrecise/ BenchmarkWakeFloor +50000'
//
// (x3: at most 3 times the reference's median; +50000: at most 50 000
// more). A figure measured beside its floor in one process moves with the
// machine as the floor does, so the gate holds across machines where an
// absolute would not (issue 46: a design's CPU per firing against the bare
// Go runtime's timed wake). A rule with no reference or no match in head
// is a failure.
//
// Exit status: 0 pass, 1 a deterministic figure regressed, 2 a usage
// error or a missing, unreadable or empty input (benchstat would have
// exited 0).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchunit"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// key is one figure: a benchmark (full name) and a tidied unit.
type key struct{ name, unit string }

// file is one input's samples, in first-seen order.
type file struct {
	samples map[key][]float64
	order   []key
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("benchgate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	maxPct := fs.Float64("max", 10, "largest tolerated regression of a deterministic figure, in percent")
	quiet := fs.Bool("quiet", false, "print only the regressions and missing figures, then one line of counts")
	var rels []rel
	fs.Func("rel", "a relative gate within head: 'UNIT PATTERN REFERENCE xRATIO' or 'UNIT PATTERN REFERENCE +DIFF' (repeatable)", func(v string) error {
		r, err := parseRel(v)
		if err == nil {
			rels = append(rels, r)
		}
		return err
	})
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 2 {
		fmt.Fprintln(stderr, "usage: benchgate [-max pct] [-quiet] base.txt head.txt")
		return 2
	}
	units := benchfmt.UnitMetadataMap{}
	base, err := load(fs.Arg(0), units)
	if err == nil {
		var head *file
		if head, err = load(fs.Arg(1), units); err == nil {
			return compare(base, head, units, *maxPct, *quiet, rels, stdout)
		}
	}
	fmt.Fprintln(stderr, "benchgate:", err)
	return 2
}

// procs is the -N GOMAXPROCS suffix of a benchmark name.
var procs = regexp.MustCompile(`-[0-9]+$`)

func load(path string, units benchfmt.UnitMetadataMap) (*file, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := &file{samples: map[key][]float64{}}
	r := benchfmt.NewReader(f, path)
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.UnitMetadata:
			if _, ok := units[rec.UnitMetadataKey]; !ok {
				units[rec.UnitMetadataKey] = rec
			}
		case *benchfmt.Result:
			for _, v := range rec.Values {
				k := key{"Benchmark" + procs.ReplaceAllString(string(rec.Name.Full()), ""), v.Unit}
				if _, seen := out.samples[k]; !seen {
					out.order = append(out.order, k)
				}
				out.samples[k] = append(out.samples[k], v.Value)
			}
		}
	}
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(out.order) == 0 {
		return nil, errors.New(path + ": no benchmark results")
	}
	return out, nil
}

// compare prints one line per figure of head (quiet: only the failing
// ones, then a line of counts) and returns the exit status.
func compare(base, head *file, units benchfmt.UnitMetadataMap, maxPct float64, quiet bool, rels []rel, w io.Writer) int {
	failed, passed, info, fresh := 0, 0, 0, 0
	for _, k := range head.order {
		old, ok := base.samples[k]
		if !ok {
			fresh++
			if !quiet {
				fmt.Fprintf(w, "new   %s %s\n", k.name, k.unit)
			}
			continue
		}
		limit, gated := gateOf(units, k.unit, maxPct)
		floor, floored := floorOf(units, k.unit)
		better := units.GetBetter(k.unit)
		a := units.GetAssumption(k.unit)
		sb := benchmath.NewSample(old, &benchmath.DefaultThresholds)
		sh := benchmath.NewSample(head.samples[k], &benchmath.DefaultThresholds)
		cb, ch := a.Summary(sb, 0.95), a.Summary(sh, 0.95)
		pct := delta(cb.Center, ch.Center)
		verdict := "info "
		switch {
		case floored && ch.Center < floor:
			verdict = "FAIL "
			failed++
		case floored:
			verdict = "ok   "
			passed++
		case gated && better == 0:
			verdict = "undir"
		case gated && worse(better, pct, limit):
			verdict = "FAIL "
			failed++
		case gated:
			verdict = "ok   "
			passed++
		default:
			info++
		}
		if quiet && verdict != "FAIL " {
			continue
		}
		cmp := a.Compare(sb, sh)
		fmt.Fprintf(w, "%s %s %s: %.4g -> %.4g (%s)", verdict, k.name, k.unit, cb.Center, ch.Center, cmp.FormatDelta(cb.Center, ch.Center))
		if floored {
			fmt.Fprintf(w, " floor %g", floor)
		}
		fmt.Fprintln(w)
	}
	for _, k := range base.order {
		_, gated := gateOf(units, k.unit, maxPct)
		if _, floored := floorOf(units, k.unit); !gated && !floored {
			continue
		}
		if _, ok := head.samples[k]; !ok {
			fmt.Fprintf(w, "GONE  %s %s: gated in the baseline, missing from head\n", k.name, k.unit)
			failed++
		}
	}
	for _, r := range rels {
		p, f := r.check(head, quiet, w)
		passed += p
		failed += f
	}
	if quiet {
		fmt.Fprintf(w, "benchgate: %d gated figures within their limit, %d regressed or missing; %d figures not gated, %d new\n", passed, failed, info, fresh)
	}
	if failed > 0 {
		fmt.Fprintf(w, "benchgate: %d gated figure(s) regressed by more than their limit (-max %g%% for deterministic ones) or missing from head\n", failed, maxPct)
		return 1
	}
	return 0
}

// gateOf returns the largest tolerated regression of unit, in percent, and
// whether it is gated at all: maxPct for assume=exact, PCT for gate=PCT.
func gateOf(units benchfmt.UnitMetadataMap, unit string, maxPct float64) (float64, bool) {
	if m := units.Get(unit, "gate"); m != nil {
		if pct, err := strconv.ParseFloat(m.Value, 64); err == nil && pct >= 0 {
			return pct, true
		}
	}
	return maxPct, units.GetAssumption(unit) == benchmath.AssumeExact
}

// floorOf returns the least median head may have for unit (its floor=X),
// and whether it has one.
func floorOf(units benchfmt.UnitMetadataMap, unit string) (float64, bool) {
	if m := units.Get(unit, "floor"); m != nil {
		if x, err := strconv.ParseFloat(m.Value, 64); err == nil {
			return x, true
		}
	}
	return 0, false
}

func delta(old, cur float64) float64 {
	if old == 0 {
		if cur == 0 {
			return 0
		}
		return 100 // from zero to anything is a full regression of a lower-is-better count
	}
	return (cur/old - 1) * 100
}

// worse reports whether pct moves in the bad direction by more than max.
func worse(better int, pct, max float64) bool {
	return better < 0 && pct > max || better > 0 && pct < -max
}

// rel is one relative gate (-rel): every head figure of unit whose
// benchmark matches pattern against the head figure of ref on the same
// unit, by ratio (ratio true: median <= limit x ref's) or by difference
// (median <= ref's + limit).
type rel struct {
	unit    string  // as benchfmt tidies it (cpu-ns/op: cpu-sec/op)
	orig    string  // as given
	scale   float64 // a value in unit is scale x the value in orig
	pattern *regexp.Regexp
	ref     string
	ratio   bool
	limit   float64
	text    string
}

func parseRel(v string) (rel, error) {
	f := strings.Fields(v)
	if len(f) != 4 || len(f[3]) < 2 || (f[3][0] != 'x' && f[3][0] != '+') {
		return rel{}, fmt.Errorf("-rel %q: want 'UNIT PATTERN REFERENCE xRATIO' or 'UNIT PATTERN REFERENCE +DIFF'", v)
	}
	re, err := regexp.Compile(f[1])
	if err != nil {
		return rel{}, fmt.Errorf("-rel %q: %w", v, err)
	}
	limit, err := strconv.ParseFloat(f[3][1:], 64)
	if err != nil || limit < 0 {
		return rel{}, fmt.Errorf("-rel %q: bad limit %q", v, f[3])
	}
	scale, unit := benchunit.Tidy(1, f[0])
	if !(f[3][0] == 'x') {
		limit *= scale
	}
	return rel{unit: unit, orig: f[0], scale: scale, pattern: re, ref: procs.ReplaceAllString(f[2], ""), ratio: f[3][0] == 'x', limit: limit, text: f[3]}, nil
}

// check prints one line per figure the rule gates (quiet: only the
// failing ones) and returns how many passed and failed.
func (r rel) check(head *file, quiet bool, w io.Writer) (passed, failed int) {
	ref, ok := head.samples[key{r.ref, r.unit}]
	if !ok {
		fmt.Fprintf(w, "GONE  %s %s: the reference of -rel %s, missing from head\n", r.ref, r.orig, r.pattern)
		return 0, 1
	}
	rm := median(ref)
	for _, k := range head.order {
		if k.unit != r.unit || k.name == r.ref || !r.pattern.MatchString(k.name) {
			continue
		}
		m := median(head.samples[k])
		var fig string
		var bad bool
		if r.ratio {
			fig = fmt.Sprintf("%.4g = %.2fx %s's %.4g (limit %s)", m/r.scale, m/rm, r.ref, rm/r.scale, r.text)
			bad = !(m <= r.limit*rm)
		} else {
			fig = fmt.Sprintf("%.4g = %s's %.4g %+.4g (limit %s)", m/r.scale, r.ref, rm/r.scale, (m-rm)/r.scale, r.text)
			bad = !(m <= rm+r.limit)
		}
		verdict := "ok   "
		if bad {
			verdict = "FAIL "
			failed++
		} else {
			passed++
		}
		if !quiet || bad {
			fmt.Fprintf(w, "%s %s %s: %s\n", verdict, k.name, r.orig, fig)
		}
	}
	if passed+failed == 0 {
		fmt.Fprintf(w, "GONE  %s %s: no head figure matches -rel %s\n", r.pattern, r.orig, r.pattern)
		failed++
	}
	return passed, failed
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
