package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func demo(t *testing.T) *report {
	t.Helper()
	r, err := build([]profile{{"off", "testdata/off.txt"}, {"on", "testdata/on.txt"}}, nil, "example.com/m", "testdata", "core/", nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestPackageFigures(t *testing.T) {
	r := demo(t)
	if len(r.pkgs) != 1 || r.pkgs[0] != "core/demo" {
		t.Fatalf("packages %v, want [core/demo] (cmd/x is outside the prefix)", r.pkgs)
	}
	stmts, hit, union := r.packageStats("core/demo")
	// off: Used's entry and branch, Rare's entry and tail; on: Used's
	// entry, Rare's entry, branch (one of its two counter lines) and tail.
	if stmts != 8 || hit[0] != 4 || hit[1] != 4 || union != 5 {
		t.Fatalf("statements %d, reached %v, any %d; want 8, [4 4], 5", stmts, hit, union)
	}
}

func TestReadme(t *testing.T) {
	var b strings.Builder
	demo(t).writeReadme(&b, "HEADER")
	got := b.String()
	for _, want := range []string{
		"HEADER",
		"| `core/demo` | 8 | 4 (50.0%) | 4 (50.0%) | 5 (62.5%) | 1 |",
		"## Functions never entered (2 of 4)",
		"`func@4` ([demo.go:4](../../core/demo/demo.go#L4), 1)",
		"`Never` ([demo.go:21](../../core/demo/demo.go#L21), 1)",
		"## Blocks reached only beyond `off` (1 blocks, 1 statements)",
		"[core/demo/demo.go:15-17](../../core/demo/demo.go#L15) `Rare` (1 statements; on)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("README lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "`Used` ([") {
		t.Errorf("Used was entered, yet listed as never entered:\n%s", got)
	}
}

func TestUncovered(t *testing.T) {
	var b strings.Builder
	demo(t).writeUncovered(&b, "testdata")
	got := b.String()
	for _, want := range []string{
		"- [4-4](../../core/demo/demo.go#L4) `func@4` (1): `func() int { return 1 },`",
		"- [11-11](../../core/demo/demo.go#L11) `Used` (1): `return -x`",
		"- [21-23](../../core/demo/demo.go#L21) `Never` (1): `func Never() int {`",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("uncovered.md lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "#L15)") {
		t.Errorf("Rare's branch was reached with the sites on, yet listed:\n%s", got)
	}
}

func TestSkip(t *testing.T) {
	r, err := build([]profile{{"off", "testdata/off.txt"}}, nil, "example.com/m", "testdata", "core/", []string{"core/demo/demo.go"})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.blocks) != 0 {
		t.Fatalf("%d blocks of a skipped file counted", len(r.blocks))
	}
}

func TestBadProfileNamesLine(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.txt")
	if err := os.WriteFile(bad, []byte("mode: set\nexample.com/m/core/demo/demo.go:7.22,8.11 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := build([]profile{{"off", bad}}, nil, "example.com/m", "testdata", "core/", nil)
	if err == nil || !strings.Contains(err.Error(), "bad.txt:2:") {
		t.Fatalf("error %v, want one naming bad.txt:2", err)
	}
	if err := os.WriteFile(bad, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := build([]profile{{"off", bad}}, nil, "example.com/m", "testdata", "core/", nil); err == nil || !strings.Contains(err.Error(), "bad.txt:1: not a text coverage profile") {
		t.Fatalf("error %v, want the missing mode line named", err)
	}
}

func TestReasons(t *testing.T) {
	r := demo(t)
	path := filepath.Join(t.TempDir(), "reasons.txt")
	reasons := "# comment\n\ncore/demo/demo.go:21-23 defensive never called by design\ncore/demo/demo.go:4 wall-only a registry entry only tools read\ncore/demo/demo.go:30-31 gap nothing there\n"
	if err := os.WriteFile(path, []byte(reasons), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := r.annotate(path); err != nil {
		t.Fatal(err)
	}
	var u, readme strings.Builder
	r.writeUncovered(&u, "testdata")
	r.writeReadme(&readme, "")
	for _, want := range []string{
		"`Never` (1): `func Never() int {` — defensive: never called by design",
		"`func@4` (1): `func() int { return 1 },` — wall-only: a registry entry only tools read",
		"`Used` (1): `return -x` — gap (no reason yet)",
		"## Reasons that hold no block never run (stale",
		"reasons.txt:5: `core/demo/demo.go:30-31 gap` nothing there",
	} {
		if !strings.Contains(u.String(), want) {
			t.Errorf("uncovered.md lacks %q:\n%s", want, u.String())
		}
	}
	for _, want := range []string{"| wall-only | 1 | 1 |", "| defensive | 1 | 1 |", "| gap | 0 | 0 |", "| gap (no reason yet) | 1 | 1 |"} {
		if !strings.Contains(readme.String(), want) {
			t.Errorf("README lacks %q:\n%s", want, readme.String())
		}
	}
}

func TestBadReasonNamesLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "reasons.txt")
	for text, want := range map[string]string{
		"core/demo/demo.go:4 maybe why not\n":         "reasons.txt:1: kind \"maybe\"",
		"\ncore/demo/demo.go:9-4 gap backwards\n":     "reasons.txt:2: bad line range",
		"core/demo/demo.go gap no range\n":            "reasons.txt:1: no line range",
		"core/demo/demo.go:4 gap\n":                   "reasons.txt:1: want PATH:FIRST-LAST KIND REASON",
		"core/demo/demo.go:x-4 defensive not a num\n": "reasons.txt:1: bad line range",
	} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := demo(t).annotate(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", text, err, want)
		}
	}
	if err := demo(t).annotate(filepath.Join(t.TempDir(), "missing.txt")); err != nil {
		t.Errorf("a missing reasons file: %v", err)
	}
}

// A variant reason holds only for a block the -aside runs reach: the one
// they miss counts as unverified, not as variant, and the headline's
// runnable statements leave out only the verified ones.
func TestVariantReasonsAreVerified(t *testing.T) {
	dir := t.TempDir()
	aside := filepath.Join(dir, "variants.txt")
	if err := os.WriteFile(aside, []byte("mode: set\nexample.com/m/core/demo/demo.go:11.2,11.11 1 1\nexample.com/m/core/demo/demo.go:15.13,17.3 1 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := build([]profile{{"off", "testdata/off.txt"}}, []profile{{"variants", aside}}, "example.com/m", "testdata", "core/", nil)
	if err != nil {
		t.Fatal(err)
	}
	reasons := filepath.Join(dir, "reasons.txt")
	if err := os.WriteFile(reasons, []byte("core/demo/demo.go:11 variant only under x=y\ncore/demo/demo.go:15-17 variant only under z=w\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := r.annotate(reasons); err != nil {
		t.Fatal(err)
	}
	var u, readme strings.Builder
	r.writeUncovered(&u, "testdata")
	r.writeReadme(&readme, "")
	for _, want := range []string{
		"— variant: only under x=y",
		"— variant (not reached by the variant runs): only under z=w",
	} {
		if !strings.Contains(u.String(), want) {
			t.Errorf("uncovered.md lacks %q:\n%s", want, u.String())
		}
	}
	for _, want := range []string{
		"| variant | 1 | 1 |",
		"| variant (not reached by the variant runs) | 1 | 1 |",
		"reached by the variants run, else it counts as",
		// 8 statements under core/, 4 reached, one variant-only verified.
		"Of the **7** statements a simulation of the shipped defaults can run (all 8 but the wall-only 0 and the variant-only 1), the campaign reached **4 (57.1%)**",
	} {
		if !strings.Contains(readme.String(), want) {
			t.Errorf("README lacks %q:\n%s", want, readme.String())
		}
	}
}
