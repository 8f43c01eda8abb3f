package main

import (
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
