package main

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// lines is a fake default campaign: each seed line in order, with the
// CPU seconds the process has taken when it arrives.
func fakeCampaign(lines []seedLine, cpu []float64) campaignFunc {
	return func(_ context.Context, each func(seedLine, func() float64) bool) (float64, error) {
		for i, l := range lines {
			if !each(l, func() float64 { return cpu[i] }) {
				return cpu[i], nil
			}
		}
		return cpu[len(cpu)-1], nil
	}
}

func TestRunDefaultStopsAtFirstControlledDetection(t *testing.T) {
	m := &Mutant{Name: "m", Check: "calls-answered"}
	lines := []seedLine{
		{Seed: 0, Verdict: "pass", Replay: "go run ./cmd/simrun replay --scenario smoke --seed 0"},
		{Seed: 1, Verdict: "safety", Checks: []string{"retention"}, Replay: "go run ./cmd/simrun replay --scenario smoke --seed 1"},
		{Seed: 2, Verdict: "liveness", Checks: []string{"calls-answered"}, Replay: "go run ./cmd/simrun replay --scenario windows --seed 2"},
		{Seed: 3, Verdict: "liveness", Checks: []string{"calls-answered"}, Replay: "go run ./cmd/simrun replay --scenario windows --seed 3"},
		{Seed: 4, Verdict: "liveness", Checks: []string{"calls-answered"}, Replay: "go run ./cmd/simrun replay --scenario windows --seed 4"},
	}
	cpu := []float64{1, 2, 3, 4, 5}
	var asked []string
	control := func(_ context.Context, replay string) Control {
		asked = append(asked, replay)
		if strings.HasSuffix(replay, "--seed 2") { // the unpatched tree fails seed 2 too: not a detection
			return Control{Seed: 2, Verdict: "liveness", Checks: []string{"calls-answered"}}
		}
		return Control{Seed: 3, Verdict: "pass"}
	}
	c := runDefault(context.Background(), m, 3, fakeCampaign(lines, cpu), control)
	if c.Found != 4 || c.Seed != 3 || c.CPUS != 4 {
		t.Fatalf("found at %d seeds (seed %d, %.0f CPU-s); want 4 seeds, seed 3, 4 CPU-s: %+v", c.Found, c.Seed, c.CPUS, c)
	}
	if c.FirstFailRan != 2 || c.FirstFailCPUS != 2 || !slices.Equal(c.FirstFailChecks, []string{"retention"}) {
		t.Errorf("first failure %d seeds, %.0f CPU-s, %v; want 2, 2, [retention]", c.FirstFailRan, c.FirstFailCPUS, c.FirstFailChecks)
	}
	if len(asked) != 2 || len(c.Controls) != 2 || c.Controls[0].Passes() || !c.Controls[1].Passes() {
		t.Errorf("controls asked %v, kept %+v; want seed 2 (failing) then seed 3 (passing)", asked, c.Controls)
	}
	if !slices.Equal(c.Fired, []string{"calls-answered", "retention"}) {
		t.Errorf("fired %v", c.Fired)
	}
}

func TestRunDefaultNotFoundCostsTheWholeCampaign(t *testing.T) {
	m := &Mutant{Name: "m", Check: "calls-answered"}
	lines := []seedLine{{Seed: 0, Verdict: "pass"}, {Seed: 1, Verdict: "crash"}, {Seed: 2, Verdict: "pass"}}
	c := runDefault(context.Background(), m, 3, fakeCampaign(lines, []float64{1, 2, 7}),
		func(context.Context, string) Control { t.Fatal("no control without the named check"); return Control{} })
	if c.Found != 0 || c.Seed != -1 || c.Ran != 3 || c.CPUS != 7 {
		t.Fatalf("%+v; want not found after 3 seeds and 7 CPU-s", c)
	}
	if !slices.Equal(c.Other, []string{"crash"}) || !slices.Equal(c.FirstFailChecks, []string{"crash"}) {
		t.Errorf("other %v, first failure %v; want the crash verdict in both", c.Other, c.FirstFailChecks)
	}
}

func TestReplayArgs(t *testing.T) {
	got, err := replayArgs("go run ./cmd/simrun replay --scenario smoke --seed 7 --variant design=per-pipeline")
	want := []string{"run", "--scenario", "smoke", "--seed", "7", "--variant", "design=per-pipeline", "--seeds", "1", "--json", "--parallel", "1"}
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("replayArgs = %v, %v; want %v", got, err, want)
	}
	if _, err := replayArgs("simrun run --seed 1"); err == nil {
		t.Error("a command that is not a replay was accepted")
	}
}

func TestSummarizeDefault(t *testing.T) {
	row := func(name string, found int, cpu float64) *Result {
		r := &Result{Mutant: &Mutant{Name: name}, Campaigns: []Campaign{{Strategy: defaultStrategy, Found: found, Ran: max(found, 788), CPUS: cpu}}}
		if found > 0 {
			r.Detected, r.Control = true, "passes"
		}
		return r
	}
	rep := &Report{Results: []*Result{row("a", 1, 0.5), row("b", 10, 2), row("c", 300, 30), row("d", 0, 70), row("e", 40, 4)}}
	s := summarizeDefault(rep)
	if s.Found != 4 || s.Rows != 5 || !slices.Equal(s.NotFound, []string{"d"}) {
		t.Fatalf("%+v", s)
	}
	if s.MedianCPUS != 2 || s.P90CPUS != 30 || s.WorstCPUS != 30 || s.Worst != "c" || s.WholeCPUS != 70 || s.WholeSeeds != 788 {
		t.Errorf("median %.1f p90 %.1f worst %.1f (%s) whole %.1f/%d; want 2, 30, 30 (c), 70/788", s.MedianCPUS, s.P90CPUS, s.WorstCPUS, s.Worst, s.WholeCPUS, s.WholeSeeds)
	}
	md := renderDefault(rep, "..")
	if !strings.Contains(md, "**4 of 5 planted bugs found by the default campaign.**") {
		t.Errorf("report head:\n%s", md)
	}
}
