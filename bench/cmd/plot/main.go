// Command plot reads the committed benchmark results (results/bench/*.txt,
// Go benchmark format) and writes the SVG plots beside them and the
// Markdown tables that results/README.md shows.
//
//	go run ./bench/cmd/plot [-dir results/bench] > results/bench/tables.md
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// row is one benchmark result: its base name, peer, sub-name keys and
// the median of each unit over repeated runs.
type row struct {
	base, peer string
	keys       map[string]string
	vals       map[string][]float64
}

func (r *row) get(unit string) float64 {
	v := slices.Clone(r.vals[unit])
	if len(v) == 0 {
		return math.NaN()
	}
	slices.Sort(v)
	return v[len(v)/2]
}

func (r *row) num(k string) float64 {
	f, _ := strconv.ParseFloat(r.keys[k], 64)
	return f
}

func main() {
	dir := flag.String("dir", "results/bench", "directory of result files")
	flag.Parse()
	rows, err := load(*dir)
	if err != nil {
		log.Fatal(err)
	}
	if err := plotTrigger(rows, filepath.Join(*dir, "trigger-delay.svg")); err != nil {
		log.Fatal(err)
	}
	if err := plotSaturation(rows, filepath.Join(*dir, "saturation.svg")); err != nil {
		log.Fatal(err)
	}
	tables(os.Stdout, rows)
}

func load(dir string) ([]*row, error) {
	paths, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	index := map[string]*row{}
	var rows []*row
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		r := benchfmt.NewReader(f, p)
		for r.Scan() {
			res, ok := r.Result().(*benchfmt.Result)
			if !ok {
				continue
			}
			peer := res.GetConfig("peer")
			full := string(res.Name.Full())
			id := peer + " " + full
			x := index[id]
			if x == nil {
				x = parse(res, peer)
				index[id] = x
				rows = append(rows, x)
			}
			for _, v := range res.Values {
				u := v.OrigUnit
				if u == "" {
					u = v.Unit
				}
				x.vals[u] = append(x.vals[u], v.OrigValue)
				if v.OrigUnit == "" {
					x.vals[u][len(x.vals[u])-1] = v.Value
				}
			}
		}
		f.Close()
		if err := r.Err(); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

func parse(res *benchfmt.Result, peer string) *row {
	base, parts := res.Name.Parts()
	x := &row{base: string(base), peer: peer, keys: map[string]string{}, vals: map[string][]float64{}}
	for _, p := range parts {
		if k, v, ok := strings.Cut(strings.TrimPrefix(string(p), "/"), "="); ok {
			x.keys[k] = v
		}
	}
	return x
}

// series is the label of a trigger row: benchmark, peer and design.
func series(r *row) string {
	name := r.base
	if r.peer == "jdk" {
		name = "JDK"
	}
	return name + " " + r.keys["design"]
}

func pick(rows []*row, keep func(*row) bool) []*row {
	var out []*row
	for _, r := range rows {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}

func isTrigger(r *row) bool {
	return (r.base == "Trigger" || r.base == "TriggerPrecise") && r.keys["pipelines"] != ""
}

func plotTrigger(rows []*row, out string) error {
	p := plot.New()
	p.Title.Text = "Trigger delay p50 (due to body start), 1 trigger / 20 ms"
	p.X.Label.Text = "pipelines"
	p.Y.Label.Text = "p50 delay (µs, log)"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	p.Legend.Top, p.Legend.Left = true, true
	by := map[string]plotter.XYs{}
	var names []string
	for _, r := range pick(rows, isTrigger) {
		s := series(r)
		if _, ok := by[s]; !ok {
			names = append(names, s)
		}
		by[s] = append(by[s], plotter.XY{X: r.num("pipelines"), Y: r.get("p50-ns") / 1e3})
	}
	slices.Sort(names)
	var args []any
	for _, n := range names {
		xy := by[n]
		slices.SortFunc(xy, func(a, b plotter.XY) int { return int(a.X - b.X) })
		args = append(args, n, xy)
	}
	if err := plotutil.AddLinePoints(p, args...); err != nil {
		return err
	}
	return p.Save(7*vg.Inch, 5*vg.Inch, out)
}

func plotSaturation(rows []*row, out string) error {
	p := plot.New()
	p.Title.Text = "Dispatch pool saturation: delay p50 against utilisation"
	p.X.Label.Text = "nominal utilisation (%)"
	p.Y.Label.Text = "p50 delay (ms, log)"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Legend.Top, p.Legend.Left = true, true
	var args []any
	for _, b := range []string{"Saturation", "SaturationSim"} {
		var xy plotter.XYs
		for _, r := range pick(rows, func(r *row) bool { return r.base == b }) {
			xy = append(xy, plotter.XY{X: r.num("util"), Y: max(r.get("p50-ns"), 1e3) / 1e6})
		}
		if len(xy) > 0 {
			label := map[string]string{"Saturation": "measured (wall)", "SaturationSim": "predicted (sim CPU model)"}[b]
			args = append(args, label, xy)
		}
	}
	if err := plotutil.AddLinePoints(p, args...); err != nil {
		return err
	}
	return p.Save(7*vg.Inch, 5*vg.Inch, out)
}

func us(ns float64) string {
	if math.IsNaN(ns) {
		return "–"
	}
	switch {
	case ns >= 1e6:
		return fmt.Sprintf("%.1f ms", ns/1e6)
	case ns >= 1e4:
		return fmt.Sprintf("%.0f µs", ns/1e3)
	}
	return fmt.Sprintf("%.1f µs", ns/1e3)
}

func tables(w io.Writer, rows []*row) {
	fmt.Fprintln(w, "### Trigger delay, design x pipelines (medians over runs)")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| benchmark | design | pipelines | p50 | p99 | p99.9 | timer late p50 | hop p50 | threads | CPU/firing |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
	trig := pick(rows, func(r *row) bool {
		return strings.HasPrefix(r.base, "Trigger") && r.keys["pipelines"] != ""
	})
	slices.SortStableFunc(trig, func(a, b *row) int {
		return strings.Compare(a.base+a.peer+a.keys["design"], b.base+b.peer+b.keys["design"])
	})
	for _, r := range trig {
		name := r.base
		if r.peer == "jdk" {
			name = "JDK peer"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %.0f | %s |\n", name, r.keys["design"], r.keys["pipelines"],
			us(r.get("p50-ns")), us(r.get("p99-ns")), us(r.get("p999-ns")), us(r.get("timer-late-p50-ns")),
			us(r.get("hop-p50-ns")), r.get("goroutines"), us(r.get("cpu-ns/op")))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "### Saturation: measured (wall) and predicted (sim)")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| util (nominal) | wall p50 | wall p99 | wall util | wall queue p50 | sim p50 | sim p99 | sim queue p50 |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	sat := map[string]*row{}
	var us_ []string
	for _, r := range rows {
		if r.base == "Saturation" || r.base == "SaturationSim" {
			sat[r.base+r.keys["util"]] = r
			if !slices.Contains(us_, r.keys["util"]) {
				us_ = append(us_, r.keys["util"])
			}
		}
	}
	slices.SortFunc(us_, func(a, b string) int { x, _ := strconv.Atoi(a); y, _ := strconv.Atoi(b); return x - y })
	for _, u := range us_ {
		m, s := sat["Saturation"+u], sat["SaturationSim"+u]
		get := func(r *row, unit string) float64 {
			if r == nil {
				return math.NaN()
			}
			return r.get(unit)
		}
		fmt.Fprintf(w, "| %s%% | %s | %s | %.0f%% | %.0f | %s | %s | %.0f |\n", u, us(get(m, "p50-ns")), us(get(m, "p99-ns")),
			get(m, "util-%"), get(m, "queue-p50"), us(get(s, "p50-ns")), us(get(s, "p99-ns")), get(s, "queue-p50"))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "### Simulator speed (failover + savepoint scenario, 2 virtual minutes)")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| pipelines | sim-s/s (x real time) | steps/s | steps/op | allocs/step |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, r := range pick(rows, func(r *row) bool { return r.base == "Sim" }) {
		fmt.Fprintf(w, "| %s | %.0f | %.3g | %.0f | %.3f |\n", r.keys["pipelines"], r.get("sim-s/s"), r.get("steps/s"), r.get("steps/op"), r.get("allocs/step"))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "### Timer floor and scheduling-point cost")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| benchmark | late p50 | late p99 | ns/op | CPU/op |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, r := range pick(rows, func(r *row) bool {
		return r.base == "TimerFloor" || r.base == "SchedPoint" || r.base == "Switch"
	}) {
		name := r.base
		for _, k := range []string{"sleep", "impl"} {
			if v := r.keys[k]; v != "" {
				name += " " + k + "=" + v
			}
		}
		fmt.Fprintf(w, "| %s | %s | %s | %.4g | %s |\n", name, us(r.get("late-p50-ns")), us(r.get("late-p99-ns")), r.get("ns/op"), us(r.get("cpu-ns/op")))
	}
}
