// Command tailattr attributes the tail samples of a trigger benchmark to
// OS scheduling: it joins the samples that BenchmarkTrigger[Precise]
// writes with -trigger.tails (CLOCK_MONOTONIC due, fired and body-start
// times, and the OS thread that ran the body) with a
// `perf sched timehist` listing of a `perf sched record -k
// CLOCK_MONOTONIC` taken over the same run.
//
// For each sample later than -min, it reports how long the thread that
// ran the body was runnable but not running (waiting for a CPU: the OS's
// doing) between -lead before the due time and the body's start, how
// long any thread of the process was (the union: the JDK peer's samples,
// written with TriggerPeer -tails, name only the process, as a negative
// tid), the thread's state at the due time, and which other processes
// ran on the CPUs meanwhile. A late sample whose lateness that runnable
// time covers was delayed by the machine; one whose thread was asleep at
// its due time was woken late (a timer or a hand-off).
//
//	perf sched record -k CLOCK_MONOTONIC -o ps.data -- bench.test -test.bench ... -trigger.tails tails.csv
//	perf sched timehist -i ps.data > timehist.txt
//	go run ./bench/cmd/tailattr -tails tails.csv -timehist timehist.txt
package main

import (
	"bufio"
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

type event struct {
	end, run, sch int64 // ns: switch-out time, run time before it, runnable delay before that
	wait          int64 // ns asleep before that (0: it was preempted, not woken)
	cpu           int
	task          string
	tid, pid      int
}

// runnable and running intervals of an event.
func (e event) running() (int64, int64)  { return e.end - e.run, e.end }
func (e event) runnable() (int64, int64) { return e.end - e.run - e.sch, e.end - e.run }

type sampleRow struct {
	cell                string
	due, fired, started int64
	tid                 int
}

var line = regexp.MustCompile(`^\s*([\d.]+)\s+\[(\d+)\]\s+(.*?)\[(\d+)(?:/(\d+))?\]\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)`)

func main() {
	tailsPath := flag.String("tails", "", "CSV written by -trigger.tails")
	thPath := flag.String("timehist", "", "perf sched timehist output")
	minLate := flag.Duration("min", 200*time.Microsecond, "report samples at least this late")
	lead := flag.Duration("lead", 200*time.Microsecond, "window start before the due time")
	verbose := flag.Bool("v", false, "one line per late sample")
	flag.Parse()
	if *tailsPath == "" || *thPath == "" {
		fmt.Fprintln(os.Stderr, "usage: tailattr -tails FILE -timehist FILE [-min 200us] [-v]")
		os.Exit(64)
	}
	if err := run(os.Stdout, *tailsPath, *thPath, *minLate, *lead, *verbose); err != nil {
		fail(err)
	}
}

// run writes the attribution of the samples in tailsPath against the
// timehist listing in thPath to w.
func run(w io.Writer, tailsPath, thPath string, minLate, lead time.Duration, verbose bool) error {
	rows, err := readTails(tailsPath)
	if err != nil {
		return err
	}
	evs, err := readTimehist(thPath)
	if err != nil {
		return err
	}
	byTid := map[int][]event{}
	byPid := map[int][]event{}
	pidOf := map[int]int{}
	for _, e := range evs {
		byTid[e.tid] = append(byTid[e.tid], e)
		pid := e.pid
		if pid == 0 {
			pid = e.tid
		}
		byPid[pid] = append(byPid[pid], e)
		pidOf[e.tid] = pid
	}
	slices.SortFunc(evs, func(a, b event) int { return cmp64(a.end, b.end) })

	type agg struct {
		n, late                  int
		lateNs, osNs, procNs     int64
		covered, asleep, running int
		others                   map[string]int64
		woke, preempted          map[string]int // by when the runnable stretch at due began
	}
	cells := map[string]*agg{}
	var order []string
	for _, r := range rows {
		a := cells[r.cell]
		if a == nil {
			a = &agg{others: map[string]int64{}, woke: map[string]int{}, preempted: map[string]int{}}
			cells[r.cell] = a
			order = append(order, r.cell)
		}
		a.n++
		late := r.started - r.due
		if late < int64(minLate) {
			continue
		}
		a.late++
		a.lateNs += late
		lo, hi := r.due-int64(lead), r.started
		pid := -r.tid
		if r.tid > 0 {
			pid = pidOf[r.tid]
		}
		var ivs [][2]int64
		for _, e := range byPid[pid] {
			if s, t := e.runnable(); overlap(s, t, lo, hi) > 0 {
				ivs = append(ivs, [2]int64{max(s, lo), min(t, hi)})
			}
		}
		procNs := union(ivs)
		a.procNs += procNs
		var osNs int64
		state := "asleep"
		if r.tid < 0 {
			state, osNs = "-", procNs
		}
		for _, e := range byTid[r.tid] {
			s, t := e.runnable()
			osNs += overlap(s, t, lo, hi)
			if s <= r.due && r.due < t {
				state = "runnable"
				b := bucket(s - r.due)
				if e.wait > 0 {
					a.woke[b]++
				} else {
					a.preempted[b]++
				}
			}
			if s, t := e.running(); s <= r.due && r.due < t {
				state = "running"
			}
		}
		a.osNs += osNs
		if float64(osNs) >= 0.5*float64(late) {
			a.covered++
		}
		switch state {
		case "asleep":
			a.asleep++
		case "running":
			a.running++
		}
		// Which other tasks held the CPUs in the window.
		oth := map[string]int64{}
		for _, e := range evs {
			if e.end < lo {
				continue
			}
			if s, _ := e.running(); s > hi {
				break
			}
			if e.tid == 0 || e.pid == pid || e.tid == pid {
				continue
			}
			s, t := e.running()
			if o := overlap(s, t, lo, hi); o > 0 {
				name := strings.TrimSpace(e.task)
				oth[name] += o
				a.others[name] += o
			}
		}
		if verbose {
			fmt.Fprintf(w, "%s late=%v os-runnable=%v process-runnable=%v state-at-due=%s fired-late=%v others=%s\n", r.cell,
				time.Duration(late), time.Duration(osNs), time.Duration(procNs), state, time.Duration(r.fired-r.due), top(oth, 3))
		}
	}
	fmt.Fprintln(w, "When the body thread's runnable stretch at the due time began (woken from a sleep, or preempted while running), for the late samples runnable at due:")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| cell | woken | preempted |\n|---|---|---|")
	for _, c := range order {
		a := cells[c]
		fmt.Fprintf(w, "| %s | %s | %s |\n", c, counts(a.woke), counts(a.preempted))
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "| cell | samples | late >= %v | their lateness | body thread runnable, not running | any thread of the process | samples >= half covered | body thread asleep at due | running at due | other processes on the CPUs meanwhile |\n|---|---|---|---|---|---|---|---|---|---|\n", minLate)
	for _, c := range order {
		a := cells[c]
		fmt.Fprintf(w, "| %s | %d | %d | %v | %v (%.0f%%) | %v (%.0f%%) | %d | %d | %d | %s |\n", c, a.n, a.late,
			time.Duration(a.lateNs).Round(time.Microsecond),
			time.Duration(a.osNs).Round(time.Microsecond), 100*float64(a.osNs)/float64(max(a.lateNs, 1)),
			time.Duration(a.procNs).Round(time.Microsecond), 100*float64(a.procNs)/float64(max(a.lateNs, 1)),
			a.covered, a.asleep, a.running, top(a.others, 3))
	}
	return nil
}

// bucket names when, relative to the due time, a runnable stretch began.
func bucket(d int64) string {
	switch {
	case d >= -50e3:
		return "due-50µs..due"
	case d >= -150e3:
		return "due-150..-50µs"
	case d >= -1e6:
		return "due-1ms..-150µs"
	case d >= -3e6:
		return "due-3..-1ms"
	}
	return "before due-3ms"
}

var buckets = []string{"before due-3ms", "due-3..-1ms", "due-1ms..-150µs", "due-150..-50µs", "due-50µs..due"}

func counts(m map[string]int) string {
	var parts []string
	for _, b := range buckets {
		if m[b] > 0 {
			parts = append(parts, fmt.Sprintf("%s: %d", b, m[b]))
		}
	}
	return strings.Join(parts, ", ")
}

func top(m map[string]int64, k int) string {
	type kv struct {
		k string
		v int64
	}
	var xs []kv
	for k, v := range m {
		xs = append(xs, kv{k, v})
	}
	slices.SortFunc(xs, func(a, b kv) int {
		if a.v != b.v {
			return cmp64(b.v, a.v)
		}
		return strings.Compare(a.k, b.k)
	})
	var parts []string
	for i, x := range xs {
		if i == k {
			break
		}
		parts = append(parts, fmt.Sprintf("%s %v", x.k, time.Duration(x.v).Round(10*time.Microsecond)))
	}
	return strings.Join(parts, ", ")
}

// union is the total length of the union of intervals.
func union(ivs [][2]int64) int64 {
	slices.SortFunc(ivs, func(a, b [2]int64) int { return cmp64(a[0], b[0]) })
	var total, end int64 = 0, -1 << 62
	for _, iv := range ivs {
		s := max(iv[0], end)
		if iv[1] > s {
			total += iv[1] - s
		}
		end = max(end, iv[1])
	}
	return total
}

func overlap(a, b, lo, hi int64) int64 { return max(0, min(b, hi)-max(a, lo)) }

func cmp64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func readTails(path string) ([]sampleRow, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	var out []sampleRow
	for n := 1; ; n++ {
		rec, err := r.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		if len(rec) != 5 {
			return nil, fmt.Errorf("%s:%d: want 5 fields (cell,due,fired,started,tid), got %d", path, n, len(rec))
		}
		var v [4]int64
		for i := range 4 {
			if v[i], err = strconv.ParseInt(rec[i+1], 10, 64); err != nil {
				return nil, fmt.Errorf("%s:%d: field %d: %w", path, n, i+2, err)
			}
		}
		out = append(out, sampleRow{cell: rec[0], due: v[0], fired: v[1], started: v[2], tid: int(v[3])})
	}
}

func readTimehist(path string) ([]event, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []event
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		m := line.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		e := event{end: secNs(m[1]), task: m[3], run: msNs(m[8]), sch: msNs(m[7]), wait: msNs(m[6])}
		e.cpu, _ = strconv.Atoi(m[2])
		e.tid, _ = strconv.Atoi(m[4])
		e.pid, _ = strconv.Atoi(m[5])
		out = append(out, e)
	}
	return out, sc.Err()
}

func secNs(s string) int64 {
	f, _ := strconv.ParseFloat(s, 64)
	return int64(f * 1e9)
}

func msNs(s string) int64 {
	f, _ := strconv.ParseFloat(s, 64)
	return int64(f * 1e6)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "tailattr:", err)
	os.Exit(1)
}
