package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/workloads"
)

func mustCatalog(t *testing.T) []workloads.Hazard {
	t.Helper()
	c, err := workloads.HazardCatalog()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestRenderMarksGapsAndMisses(t *testing.T) {
	cfg := config{campaigns: 2, cap: 5, fixed: 3}
	rs := []result{{
		Hazard:     workloads.Hazard{ID: "H6", Title: "t", Scenario: "s", Bug: map[string]string{"k": "v"}, Window: "continuation-on-trigger-thread"},
		Detect:     map[string][]int{"random": {0, 0}, "pct": {1, 2}},
		FirstSeed:  map[string]int64{"pct": 500000},
		FixedSeeds: 3, FixedPass: 3, Fixed: map[string][2]int{"pct": {3, 3}},
		Runs: map[string]int{"random": 10, "pct": 3}, Fired: map[string]int{"barrier-in-lease-body": 2},
		Windows: map[string]int{}, BugWindows: map[string]int{},
	}}
	md := render(cfg, rs)
	for _, want := range []string{"not found (0/2 campaigns, 5 seeds each)", "| 2 / 2; rate 2/3 = 0.67 [0.21, 0.94] |", "pct 3 / 3",
		"**gap**", "`barrier-in-lease-body` (2)"} {
		if !strings.Contains(md, want) {
			t.Errorf("render lacks %q:\n%s", want, md)
		}
	}
}

func TestWilson(t *testing.T) {
	for _, c := range []struct {
		k, n   int
		lo, hi float64
	}{{0, 10, 0, 0.2775}, {5, 10, 0.2366, 0.7634}, {10, 10, 0.7225, 1}, {1, 100, 0.0018, 0.0545}} {
		lo, hi := wilson(c.k, c.n)
		if math.Abs(lo-c.lo) > 5e-4 || math.Abs(hi-c.hi) > 5e-4 {
			t.Errorf("wilson(%d, %d) = [%.4f, %.4f], want [%.4f, %.4f]", c.k, c.n, lo, hi, c.lo, c.hi)
		}
	}
}

// TestQuickCatalog runs the quick mode on one hazard end to end: the row
// names the check that fired, its rate, and the fixed design's passes per
// detecting strategy.
func TestQuickCatalog(t *testing.T) {
	if testing.Short() {
		t.Skip("runs seeds")
	}
	dir := t.TempDir()
	cfg := config{campaigns: 2, cap: 8, fixed: 8, parallel: 2, out: dir, only: map[string]bool{"H10": true}, catalog: mustCatalog(t), commit: "abc123-dirty"}
	if err := run(cfg); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "hazards.md"))
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	for _, want := range []string{"| H10 retention desync", "`retention` (", "rate ", "random 8 / 8", "-shrink=false",
		"measured at `abc123-dirty`", "- measured at commit `abc123-dirty` in "} {
		if !strings.Contains(md, want) {
			t.Errorf("quick catalog lacks %q:\n%s", want, md)
		}
	}
}

// TestAmendedNotesInCatalog: a catalog entry's Amended note is rendered
// under its heading, and the committed results/hazards.md carries each one
// as rendered (so the note is changed here, at the generator, not in the
// generated file alone).
func TestAmendedNotesInCatalog(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "results", "hazards.md"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, h := range mustCatalog(t) {
		if h.Amended == "" {
			continue
		}
		n++
		var sb strings.Builder
		details(&sb, result{Hazard: workloads.Hazard{ID: h.ID, Title: h.Title, Note: h.Note, Amended: h.Amended}})
		want := "### " + h.ID + " — " + h.Title + "\n\n(Amended " + strings.TrimSuffix(h.Amended, ".") + ".)\n\n"
		if !strings.HasPrefix(sb.String(), want) {
			t.Errorf("%s: details render\n%q\nwant prefix\n%q", h.ID, sb.String(), want)
		}
		if !strings.Contains(string(b), want) {
			t.Errorf("results/hazards.md lacks %s's amended note as rendered:\n%s", h.ID, want)
		}
	}
	if n == 0 {
		t.Skip("no amended entries")
	}
}
