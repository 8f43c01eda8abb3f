package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/workloads"
)

func TestExitPrecedence(t *testing.T) {
	for _, tc := range []struct {
		verdicts []workloads.Verdict
		want     int
	}{
		{nil, 0},
		{[]workloads.Verdict{"pass", "budget", "pass"}, 4},
		{[]workloads.Verdict{"budget", "crash"}, 3},
		{[]workloads.Verdict{"crash", "liveness", "budget"}, 2},
		{[]workloads.Verdict{"liveness", "safety", "crash"}, 1},
	} {
		code := exitPass
		for _, v := range tc.verdicts {
			code = worse(code, verdictExit(v))
		}
		if code != tc.want {
			t.Errorf("%v: exit %d, want %d", tc.verdicts, code, tc.want)
		}
	}
	if worse(exitInterrupted, exitBudget) != exitBudget || worse(exitPass, exitInterrupted) != exitInterrupted {
		t.Error("an interrupted campaign: failures first, then 130, then 0")
	}
}

func TestBudgetAndShardFlags(t *testing.T) {
	for in, want := range map[string]int64{"1000": 1000, "1_000_000": 1e6, "2e6": 2e6, "5M": 5e6, "3k": 3000} {
		var b budget
		if err := b.Set(in); err != nil || int64(b) != want {
			t.Errorf("budget %q: %d, %v; want %d", in, b, err, want)
		}
	}
	for _, in := range []string{"-1", "x", "1.5", ""} {
		var b budget
		if b.Set(in) == nil {
			t.Errorf("budget %q accepted", in)
		}
	}
	var s shard
	if err := s.Set("1/3"); err != nil {
		t.Fatal(err)
	}
	var got []uint64
	for seed := uint64(10); seed < 20; seed++ {
		if s.has(seed, 10) {
			got = append(got, seed)
		}
	}
	if len(got) != 3 || got[0] != 11 || got[2] != 17 {
		t.Errorf("shard 1/3 of 10..19: %v", got)
	}
	for _, in := range []string{"2/2", "0/0", "a/b", "1"} {
		if s.Set(in) == nil {
			t.Errorf("shard %q accepted", in)
		}
	}
}

func TestFieldAtLine(t *testing.T) {
	src := "name: x\ncluster:\n  jobs: 1\n  pipelines: many\nrun:\n  duration: 1m\n"
	for line, want := range map[int]string{1: "name", 4: "cluster.pipelines", 6: "run.duration"} {
		if got := fieldAtLine(src, line); got != want {
			t.Errorf("line %d: %q, want %q", line, got, want)
		}
	}
}

// TestShrinkRoundTrip: a scenario survives YAML() and Parse with every
// field the shrinker touches.
func TestShrinkRoundTrip(t *testing.T) {
	for _, folder := range []string{"scenarios", "hazards"} {
		all, err := workloads.Embedded(folder)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range all {
			back, err := workloads.Parse("roundtrip.yaml", s.YAML())
			if err != nil {
				t.Errorf("%s: %v\n%s", s.Name, err, s.YAML())
				continue
			}
			if string(back.YAML()) != string(s.YAML()) {
				t.Errorf("%s: YAML changes on a round trip", s.Name)
			}
			if size(back) != size(s) || back.Swarm != s.Swarm || len(back.Variants) != len(s.Variants) {
				t.Errorf("%s: round trip loses shape, faults or variants", s.Name)
			}
		}
	}
}

// TestFitParallel: seeds run at once are cut to what the machine's memory
// holds by their estimate, and say so; a scenario bigger than the machine
// (only run.max_memory lets one through) runs one seed at a time and says
// that, with the heap at which a seed ends as a budget verdict, never
// "1 seeds at once, not 1".
func TestFitParallel(t *testing.T) {
	defer func(m int64) { workloads.MachineMemory = m }(workloads.MachineMemory)
	huge, err := workloads.Parse("huge.yaml", []byte("name: huge\ncluster: {jobs: 100, pipelines: 2000, tasks: 64}\n"+
		"checkpoint: {interval: 10s}\nrun: {duration: 2m, heal: 30s, max_memory: 1TiB}\n"))
	if err != nil {
		t.Fatal(err)
	}
	smoke, err := lookup("smoke")
	if err != nil {
		t.Fatal(err)
	}
	est := smoke.MemoryEstimate()
	for _, tc := range []struct {
		machine  int64
		sc       *workloads.Scenario
		parallel int
		want     int
		says     string // "": nothing
	}{
		{2*est + 1, smoke, 2, 2, ""},
		{2*est + 1, smoke, 4, 2, "simrun: 2 seeds at once, not 4: a seed of smoke needs an estimated "},
		{est - 1, smoke, 3, 1, "seeds run one at a time"},
		{8 << 30, huge, 1, 1, "simrun: a seed of huge needs an estimated 239 GiB, more than the machine's 8.00 GiB " +
			"(run.max_memory allows it): seeds run one at a time, each ending with a budget verdict if the heap passes 6.00 GiB\n"},
		{8 << 30, huge, 4, 1, "more than the machine's 8.00 GiB"},
		{0, huge, 4, 4, ""}, // the machine's memory unknown: no cut
	} {
		workloads.MachineMemory = tc.machine
		var out strings.Builder
		got := fitParallel(tc.parallel, []*workloads.Scenario{tc.sc}, &out)
		if got != tc.want || (tc.says == "") != (out.Len() == 0) || !strings.Contains(out.String(), tc.says) ||
			strings.Contains(out.String(), "1 seeds at once, not 1") {
			t.Errorf("%s at --parallel %d on %d bytes: %d seeds at once, said %q; want %d, saying %q",
				tc.sc.Name, tc.parallel, tc.machine, got, out.String(), tc.want, tc.says)
		}
	}
}

// TestComparisonColumnsLineUp: every verdict count of simrun compare's
// table stands under its own column, unknown and budget included (the
// golden compare.txt can produce neither an unknown nor a mix of verdicts
// in one column from real seeds): each count ends where its header name
// ends, so a column that slips fails here.
func TestComparisonColumnsLineUp(t *testing.T) {
	rep := newReport("simrun compare", 1, 0)
	want := map[string][]int{ // per column, the count of each verdict of verdictOrder
		"design=shared":       {1, 2, 3, 4, 5, 6},
		"design=per-pipeline": {0, 0, 0, 0, 7, 8},
	}
	for i, label := range []string{"design=shared", "design=per-pipeline"} {
		g := rep.group(i, "smoke", label, "", "")
		for k, v := range verdictOrder {
			for range want[label][k] {
				rep.add(g, record{Outcome: workloads.Outcome{Scenario: "smoke", Verdict: v, Variants: label}})
			}
		}
	}
	rep.finish(0, false)
	var out strings.Builder
	writeComparison(&out, rep)
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("want a header and 2 rows:\n%s", out.String())
	}
	for _, row := range lines[1:] {
		label := strings.Fields(row)[0]
		for k, v := range verdictOrder {
			end := strings.Index(lines[0], " "+string(v)+" ") + 1 + len(v)
			start := strings.LastIndex(row[:end], " ") + 1
			if got := row[start:end]; got != fmt.Sprint(want[label][k]) || (end < len(row) && row[end] != ' ') {
				t.Errorf("%s: under %q reads %q, want %d\n%s", label, v, row[start:min(end+3, len(row))], want[label][k], out.String())
			}
		}
	}
}
