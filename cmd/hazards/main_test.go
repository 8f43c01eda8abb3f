package main

import (
	"strings"
	"testing"
)

func TestStats(t *testing.T) {
	for _, c := range []struct {
		found               []int
		median, worst, hits int
	}{
		{[]int{0, 0}, 0, 0, 0},
		{[]int{3, 1, 2}, 2, 3, 3},
		{[]int{0, 5, 1, 0}, 5, 5, 2},
	} {
		m, w, h := stats(c.found)
		if m != c.median || w != c.worst || h != c.hits {
			t.Errorf("stats(%v) = %d, %d, %d; want %d, %d, %d", c.found, m, w, h, c.median, c.worst, c.hits)
		}
	}
}

func TestRenderMarksGapsAndMisses(t *testing.T) {
	cfg := config{campaigns: 2, cap: 5, fixed: 3}
	rs := []result{{
		Hazard:     hazard{ID: "H6", Title: "t", Scenario: "s", Bug: map[string]string{"k": "v"}, Window: "continuation-on-trigger-thread"},
		Detect:     map[string][]int{"random": {0, 0}, "pct": {1, 2}},
		FirstSeed:  map[string]int64{"pct": 500000},
		FixedSeeds: 3, FixedPass: 3,
		Windows: map[string]int{}, BugWindows: map[string]int{},
	}}
	md := render(cfg, rs)
	for _, want := range []string{"not found (0/2 campaigns, 5 seeds each)", "| 2 / 2 |", "3 / 3", "**gap**"} {
		if !strings.Contains(md, want) {
			t.Errorf("render lacks %q:\n%s", want, md)
		}
	}
}
