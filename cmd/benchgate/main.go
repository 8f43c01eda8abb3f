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
	"strconv"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
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
			return compare(base, head, units, *maxPct, *quiet, stdout)
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
func compare(base, head *file, units benchfmt.UnitMetadataMap, maxPct float64, quiet bool, w io.Writer) int {
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
