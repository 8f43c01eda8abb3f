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

// demoRules are rules over the demo: Never is not linked, the variants
// run reaches the registry entry, Used's tail is defensive with a test
// that runs it, Rare's branch is listed with a test that does not exist.
func demoRules(t *testing.T, dir string) (*report, *rules) {
	t.Helper()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	variants := write("variants.txt", "mode: set\nexample.com/m/core/demo/demo.go:4.13,4.25 1 1\nexample.com/m/core/demo/demo.go:11.2,11.11 1 0\n")
	unit := write("unit.txt", "mode: set\nexample.com/m/core/demo/demo.go:11.2,11.11 1 1\nexample.com/m/core/demo/demo.go:15.13,17.3 1 1\n")
	nm := write("nm.txt", "  4a1000 T example.com/m/core/demo.Used\n  4a1100 T example.com/m/core/demo.Rare[go.shape.int]\n  4a1200 T example.com/m/core/demo.init.func1\n")
	def := write("defensive.txt", "# PATH | FUNCTION | FIRST LINE | TEST | WHY\n\n"+
		"core/demo/demo.go | Used | return -x | TestUsedNegative | no caller passes a negative x\n"+
		"core/demo/demo.go | Rare | if x == 42 { | TestRare42 | 42 never comes\n"+
		"core/demo/demo.go | Used | if x < 0 { | TestUsedNegative | moved away\n")
	r, err := build([]profile{{"off", "testdata/off.txt"}}, []profile{{"variants", variants}, {"unit", unit}}, "example.com/m", "testdata", "core/", nil)
	if err != nil {
		t.Fatal(err)
	}
	rs := &rules{wall: []string{"core/other/wall.go"}, unit: 1, control: -1, module: "example.com/m", dfile: def,
		tests: map[string]bool{"TestUsedNegative": true}}
	if rs.linked, err = linkedSymbols(nm); err != nil {
		t.Fatal(err)
	}
	if rs.defensive, err = readDefensive(def); err != nil {
		t.Fatal(err)
	}
	r.annotate(rs, "testdata")
	return r, rs
}

func TestRules(t *testing.T) {
	r, _ := demoRules(t, t.TempDir())
	var u, readme strings.Builder
	r.writeUncovered(&u, "testdata")
	r.writeReadme(&readme, "")
	for _, want := range []string{
		"`Never` (1): `func Never() int {` — wall-only: not linked into simrun",
		"`func@4` (1): `func() int { return 1 },` — variant: reached by the variants run",
		"`Used` (1): `return -x` — defensive: no caller passes a negative x (TestUsedNegative)",
		"`Rare` (1): `if x == 42 {` — defensive (not run by a test): 42 never comes (TestRare42: no such test)",
		"## Defensive entries that hold no block never run (stale",
		"defensive.txt:5: `core/demo/demo.go` `Used` `if x < 0 {`",
	} {
		if !strings.Contains(u.String(), want) {
			t.Errorf("uncovered.md lacks %q:\n%s", want, u.String())
		}
	}
	for _, want := range []string{
		"| wall-only | 1 | 1 |", "| variant | 1 | 1 |", "| defensive | 1 | 1 |", "| gap | 0 | 0 |", "| defensive (not run by a test) | 1 | 1 |",
		"1. **wall-only**: a block of a wall-mode file (`-wall`: `core/other/wall.go`), or of a function the Go linker leaves out",
		"2. **variant**: a block the variants run reached",
		"`go test -coverpkg=./core/... ./core/...` (`-unit`) must run the block",
		// 8 statements, 4 reached, one wall-only, one variant-only.
		"Of the **6** statements a simulation of the shipped defaults can run (all 8 but the wall-only 1 and the variant-only 1), the campaign reached **4 (66.7%)**; of the rest, 1 are defensive (a test runs each and says why no simulation does) and **1** a gap",
	} {
		if !strings.Contains(readme.String(), want) {
			t.Errorf("README lacks %q:\n%s", want, readme.String())
		}
	}
}

// A defensive entry whose test exists but never runs the block is not
// enough: the unit tests' profile must reach it.
func TestDefensiveNeedsTheUnitTestsToRunIt(t *testing.T) {
	r, rs := demoRules(t, t.TempDir())
	rs.tests["TestRare42"] = true
	for _, b := range r.blocks {
		if b.fn.name == "Rare" && !b.covered {
			b.aside[rs.unit] = false
		}
	}
	r.annotate(rs, "testdata")
	for _, b := range r.blocks {
		if b.fn.name == "Rare" && !b.covered {
			if b.kindOf() != kindUntested || !strings.Contains(b.class.why, "the unit tests never run it") {
				t.Errorf("Rare's branch: %s (%s), want %s for want of a unit test run", b.kindOf(), b.class.why, kindUntested)
			}
		}
	}
}

// With no rules applied, every block never run is a gap; a wall-mode
// file makes all of its blocks wall-only.
func TestWallFiles(t *testing.T) {
	r := demo(t)
	r.annotate(&rules{unit: -1, control: -1}, "testdata")
	for _, b := range r.blocks {
		if !b.covered && b.kindOf() != kindGap {
			t.Errorf("%s:%d: %s with no rules, want gap", b.file, b.startLine, b.kindOf())
		}
	}
	r.annotate(&rules{unit: -1, control: -1, wall: []string{"core/demo/demo.go"}}, "testdata")
	for _, b := range r.blocks {
		if !b.covered && (b.kindOf() != kindWall || !strings.Contains(b.class.why, "wall-mode file")) {
			t.Errorf("%s:%d: %s, want wall-only", b.file, b.startLine, b.kindOf())
		}
	}
}

func TestBadDefensiveNamesLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "defensive.txt")
	for text, want := range map[string]string{
		"core/demo/demo.go | Used | return -x | TestX\n":              "defensive.txt:1: want PATH | FUNCTION",
		"\ncore/demo/demo.go | Used | return -x | CheckX | why\n":     "defensive.txt:2: \"CheckX\" is not a Test or Fuzz function",
		"core/demo/demo.go | Used |  | TestX | why\n":                 "defensive.txt:1: want PATH",
		"core/demo/demo.go | Used | return -x | TestX | why | more\n": "defensive.txt:1: want PATH",
	} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := readDefensive(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", text, err, want)
		}
	}
	if ds, err := readDefensive(filepath.Join(t.TempDir(), "missing.txt")); err != nil || ds != nil {
		t.Errorf("a missing defensive file: %v, %v", ds, err)
	}
}

func TestLinkedSymbols(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nm.txt")
	if err := os.WriteFile(path, []byte("  401000 T m/core/a.F\n  401100 t m/core/a.(*T[go.shape.int]).M\n  501000 D m/core/a.V\n  401200 T m/core/a.G[go.shape.string,go.shape.int]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := linkedSymbols(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"m/core/a.F", "m/core/a.(*T).M", "m/core/a.G"} {
		if !got[want] {
			t.Errorf("%s not read as linked: %v", want, got)
		}
	}
	if got["m/core/a.V"] {
		t.Errorf("a data symbol read as a linked function")
	}
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := linkedSymbols(path); err == nil {
		t.Errorf("an empty nm output accepted")
	}
}

func TestTestNames(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"a/a_test.go":          "package a\n\nfunc TestA(t *testing.T) {}\nfunc FuzzB(f *testing.F) {}\nfunc helper() {}\n",
		"a/a.go":               "package a\n\nfunc TestNotATest(t *testing.T) {}\n",
		"a/testdata/x_test.go": "package x\n\nfunc TestInTestdata(t *testing.T) {}\n",
	} {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := testNames(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !got["TestA"] || !got["FuzzB"] || got["helper"] || got["TestNotATest"] || got["TestInTestdata"] {
		t.Errorf("test names %v, want TestA and FuzzB", got)
	}
}

// The committed defensive file parses, and every test it names exists.
func TestCommittedDefensiveFile(t *testing.T) {
	ds, err := readDefensive("../../results/coverage/defensive.txt")
	if err != nil {
		t.Fatal(err)
	}
	tests, err := testNames("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		if !tests[d.test] {
			t.Errorf("defensive.txt:%d: %s names %s, which no _test.go file of the module declares", d.line, d.fn, d.test)
		}
		if _, err := os.Stat(filepath.Join("../..", filepath.FromSlash(d.file))); err != nil {
			t.Errorf("defensive.txt:%d: %v", d.line, err)
		}
	}
}

// A block the control runs (the variant runs' scenarios under the default
// values) reach is no variant's doing: it is a gap.
func TestControlKeepsVariantHonest(t *testing.T) {
	dir := t.TempDir()
	r, rs := demoRules(t, dir)
	control := filepath.Join(dir, "control.txt")
	if err := os.WriteFile(control, []byte("mode: set\nexample.com/m/core/demo/demo.go:4.13,4.25 1 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r2, err := build([]profile{{"off", "testdata/off.txt"}}, []profile{{"variants", filepath.Join(dir, "variants.txt")}, {"unit", filepath.Join(dir, "unit.txt")}, {"control", control}}, "example.com/m", "testdata", "core/", nil)
	if err != nil {
		t.Fatal(err)
	}
	rs.control = 2
	r2.annotate(rs, "testdata")
	_ = r
	for _, b := range r2.blocks {
		if b.fn.name == "func@4" && (b.kindOf() != kindGap || !strings.Contains(b.class.why, "control runs")) {
			t.Errorf("the registry entry the control reaches: %s (%v), want gap", b.kindOf(), b.class)
		}
	}
}
