package main

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/workloads"
	"github.com/ckptsim/ckptsim/workloads/oracle"
)

const samplePatch = `# check: generation-justified
# scenario: h1-stale-expiry
# variants: expiry-fence=none, deferred-fence=none
# strategies: pct
# bug: the fence is dropped
# a free comment line
diff --git a/core/coord/failure.go b/core/coord/failure.go
--- a/core/coord/failure.go
+++ b/core/coord/failure.go
@@ -1 +1 @@
-a
+b
diff --git a/sim/world.go b/sim/world.go
--- a/sim/world.go
+++ b/sim/world.go
@@ -1 +1 @@
-a
+b
`

func TestParseMutant(t *testing.T) {
	m, err := ParseMutant("testdata/mutants/fence.diff", []byte(samplePatch))
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "fence" || m.Check != "generation-justified" || m.Scenario != "h1-stale-expiry" || m.Bug != "the fence is dropped" {
		t.Errorf("parsed %+v", m)
	}
	if got := m.VariantText(); got != "deferred-fence=none,expiry-fence=none" {
		t.Errorf("variants %q", got)
	}
	if got := strings.Join(m.VariantArgs(), " "); got != "--variant deferred-fence=none --variant expiry-fence=none" {
		t.Errorf("variant args %q", got)
	}
	if !slices.Equal(m.Strategies, []string{"pct"}) {
		t.Errorf("strategies %v", m.Strategies)
	}
	if !slices.Equal(m.Files, []string{"core/coord/failure.go", "sim/world.go"}) {
		t.Errorf("files %v", m.Files)
	}
	b, err := ParseMutant("b.diff", []byte(strings.Replace(samplePatch, "# strategies: pct\n", "# buggify: on\n", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(b.VariantArgs(), " "); got != "--variant deferred-fence=none --variant expiry-fence=none --buggify on" {
		t.Errorf("variant args with buggify %q", got)
	}
	if got := b.VariantText(); got != "deferred-fence=none,expiry-fence=none,buggify=on" {
		t.Errorf("variants with buggify %q", got)
	}
	e, err := ParseMutant("e.diff", []byte(strings.Replace(samplePatch, "# strategies: pct\n", "# equivalent-at-boundary: nothing reaches a boundary\n", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if e.Equivalent != "nothing reaches a boundary" || m.Equivalent != "" {
		t.Errorf("equivalent-at-boundary %q, without the field %q", e.Equivalent, m.Equivalent)
	}
	d, err := ParseMutant("d.diff", []byte(strings.Replace(samplePatch, "# strategies: pct\n", "", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.Strategies, []string{"random", "pct"}) {
		t.Errorf("default strategies %v", d.Strategies)
	}
}

func TestParseMutantErrors(t *testing.T) {
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"missing check", "# check: generation-justified\n", "", `lacks the field "check"`},
		{"missing bug", "# bug: the fence is dropped\n", "", `lacks the field "bug"`},
		{"unknown field", "# bug:", "# bgu:", `x.diff:5: unknown field "bgu"`},
		{"empty field", "# scenario: h1-stale-expiry", "# scenario:", `x.diff:2: field "scenario" is empty`},
		{"repeated field", "# bug: the fence is dropped\n", "# bug: a\n# bug: b\n", `x.diff:6: field "bug" repeated (first on line 5)`},
		{"two checks", "# check: generation-justified", "# check: a, b", "x.diff:1: field check: one check id"},
		{"bad variant", "expiry-fence=none,", "expiry-fence,", `x.diff:3: field variants: "expiry-fence" is not key=value`},
		{"bad strategy", "# strategies: pct", "# strategies: dfs", `x.diff:4: field strategies: unknown strategy "dfs"`},
		{"bad buggify", "# strategies: pct", "# buggify: yes", `x.diff:4: field buggify: want on or off, got "yes"`},
		{"bare header line", "# a free comment line", "a free line", `x.diff:6: header line "a free line" does not start with '#'`},
		{"rename", "diff --git a/sim/world.go b/sim/world.go", "diff --git a/sim/world.go b/sim/w2.go", "renames a file"},
		{"not a patch", samplePatch[strings.Index(samplePatch, "diff --git"):], "", "not a patch"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseMutant("x.diff", []byte(strings.Replace(samplePatch, tc.old, tc.new, 1)))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestMutantsApplyAndNameKnownChecks is the guard on the committed
// mutants: every patch parses, names a known check and an embedded
// scenario, edits only core/ or sim/, and applies cleanly to the current
// tree; together they cover at
// least 12 mutants over at least 6 landed checks.
func TestMutantsApplyAndNameKnownChecks(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	ms, err := LoadMutants(filepath.Join(root, "testdata", "mutants"))
	if err != nil {
		t.Fatal(err)
	}
	git, gitErr := exec.LookPath("git")
	landed := map[string]int{}
	for _, m := range ms {
		known, pending := CheckKnown(m.Check)
		if !known {
			t.Errorf("%s: check %q is not a known check id", m.File, m.Check)
		}
		if !pending {
			landed[m.Check]++
		}
		if _, err := workloads.Lookup(m.Scenario); err != nil {
			t.Errorf("%s: scenario %q: %v", m.File, m.Scenario, err)
		}
		for _, f := range m.Files {
			if !strings.HasPrefix(f, "core/") && !strings.HasPrefix(f, "sim/") {
				t.Errorf("%s: edits %s; a mutant plants a bug in core/ or sim/ only", m.File, f)
			}
		}
		if gitErr != nil {
			continue
		}
		cmd := exec.Command(git, "apply", "--check", m.File)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s no longer applies (plant the bug again in the new code: MAINTAINING.md, \"A planted bug no longer applies\"): %s", m.File, out)
		}
	}
	if gitErr != nil {
		t.Log("git not found: patches not checked against the tree")
	}
	n := 0
	for _, c := range landed {
		n += c
	}
	if n < 12 || len(landed) < 6 {
		t.Errorf("%d mutants over %d landed checks (%v); want at least 12 over 6", n, len(landed), landed)
	}
}

func TestRenderCountsOnlyTheNamedCheck(t *testing.T) {
	pendingChecks["not-landed-yet"] = "a check a mutant may name before it lands"
	defer delete(pendingChecks, "not-landed-yet")
	mk := func(name, check string, fired []string, found int, controls ...Control) *Result {
		m := &Mutant{Name: name, Check: check, Scenario: "smoke", Bug: "b | c"}
		c := Campaign{Strategy: "random", Ran: max(found, 10), Found: found, Seed: int64(found) - 1, Controls: controls, Fired: fired}
		r := &Result{Mutant: m, Commit: "abc", Campaigns: []Campaign{c}, Cap: 10}
		_, r.Pending = CheckKnown(check)
		summarize(r)
		return r
	}
	one := mk("a", "one-outstanding", []string{"one-outstanding"}, 3, Control{Seed: 2, Verdict: "pass"})
	other := mk("b", "retention", []string{"liveness"}, 0) // another check fired: not found
	ctl := mk("d", "generation-justified", []string{"generation-justified"}, 0,
		Control{Seed: 0, Verdict: "safety", Checks: []string{"generation-justified"}}) // the unpatched tree fails too
	ctl.Dirty = true
	eq := mk("f", "lease-trigger-chains", nil, 0)
	eq.Mutant.Equivalent = "the fenced re-arm is cancelled before it runs"
	rep := &Report{Command: "go run ./cmd/mutants", Commit: "abc", Seeds: 10, Mutants: 6, Results: []*Result{
		one, other, mk("c", "not-landed-yet", nil, 0), ctl, // c is pending: not counted
		eq, // equivalent at the boundary: not counted
	}}
	md := render(rep, "..")
	for _, want := range []string{
		"5 of the 6 mutants have a row at this commit",
		"**Score: 1 of 3 mutants found by the check they name, over 1 distinct checks.** 1 of the others fired their check only on seeds the unpatched tree fails too (control fails). 1 more name a check",
		"1 more, not found, are equivalent at the boundary",
		"| no: equivalent at the boundary (not counted): the fenced re-arm is cancelled before it runs | `abc` |",
		"| 3 (seed 2) | - | `one-outstanding` | random: seed 2 pass | yes | `abc` |",
		"| not found in 10 seeds | - | `liveness` | - | no | `abc` |",
		"| `generation-justified` | random: seed 0 safety [generation-justified] | no: control fails | `abc-dirty` |",
		"`not-landed-yet` (pending)",
		"b \\| c",
		"| `one-outstanding` | a | 1 of 1 |",
		"| `retention` | b | 0 of 1 |",
		"| `generation-justified` | d | 0 of 1 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("render lacks %q:\n%s", want, md)
		}
	}
	legacy := mk("e", "retention", []string{"retention"}, 2)
	legacy.Campaigns[0].Controls = nil // a row of a run before controls
	summarize(legacy)
	legacy.Control = ""
	if md := render(&Report{Seeds: 10, Results: []*Result{legacy}}, ".."); !strings.Contains(md, "**Score: 0 of 1 mutants") ||
		!strings.Contains(md, "1 fired their check but were measured before controls existed") ||
		!strings.Contains(md, "| fired, no control run (not counted) |") {
		t.Errorf("a row without a control is counted or not marked:\n%s", md)
	}
	if code := exitCode(rep); code != 1 {
		t.Errorf("exit code %d with a control failure and a miss, want 1", code)
	}
	if code := exitCode(&Report{Results: []*Result{one, eq}}); code != 0 {
		t.Errorf("exit code %d with every row found, want 0", code)
	}
}

// TestPendingChecksNotLanded keeps pendingChecks honest: once a check
// lands in the oracle's registry it is no longer pending.
func TestPendingChecksNotLanded(t *testing.T) {
	for id := range pendingChecks {
		if _, ok := oracle.Lookup(id); ok {
			t.Errorf("check %q is registered in workloads/oracle: remove it from pendingChecks", id)
		}
	}
}

// TestTargetedTests: the packages a mutant's targeted test run covers, the
// failing tests picked out of go test's output, and the report's column.
func TestTargetedTests(t *testing.T) {
	m, err := ParseMutant("fence.diff", []byte(samplePatch))
	if err != nil {
		t.Fatal(err)
	}
	if got := m.TestPackages(); !slices.Equal(got, []string{"./core/coord", "./sim", "./workloads"}) {
		t.Errorf("packages %v", got)
	}
	out := "--- FAIL: TestA (0.1s)\n    x_test.go:1: boom\n--- FAIL: TestB/sub (0.0s)\nFAIL\tgithub.com/x/y\t1s\nFAIL\tgithub.com/x/z [build failed]\n"
	if got := failedTests([]byte(out)); !slices.Equal(got, []string{"TestA", "TestB/sub", "github.com/x/z [build failed]"}) {
		t.Errorf("failed tests %v", got)
	}
	r := &Result{Mutant: m, Fired: []string{}, Tests: "fails", TestsCommand: "go test -short -count=1 ./core/coord ./workloads",
		TestsFailed: []string{"TestA"}}
	p := &Result{Mutant: &Mutant{Name: "p", Check: "retention", Scenario: "smoke"}, Fired: []string{}, Tests: "passes",
		TestsCommand: "go test -short -count=1 ./workloads"}
	n := &Result{Mutant: &Mutant{Name: "n", Check: "retention", Scenario: "smoke"}, Fired: []string{}}
	md := render(&Report{Seeds: 10, Results: []*Result{r, p, n}}, "..")
	for _, want := range []string{"targeted tests fail (`go test -short -count=1` of the packages the patch touches, then `./workloads`) |",
		"| yes on `./core/coord ./workloads`: TestA |", "| no on `./workloads` |", "| - (not run) |"} {
		if !strings.Contains(md, want) {
			t.Errorf("render lacks %q:\n%s", want, md)
		}
	}
}

// TestReportLinksResolveFromItsFolder: a row links its patch from the
// folder the report is written to: ../testdata/mutants/ from results/,
// ../../testdata/mutants/ from results/mutants-silent/ (which once linked
// ../testdata/mutants/, into results/).
func TestReportLinksResolveFromItsFolder(t *testing.T) {
	root := filepath.FromSlash("/repo")
	rep := &Report{Seeds: 10, Results: []*Result{{Mutant: &Mutant{Name: "a-b", Check: "retention", Scenario: "smoke"}, Fired: []string{}}}}
	for dir, want := range map[string]string{
		"results":                 "| [`a-b`](../testdata/mutants/a-b.diff) |",
		"results/mutants-silent":  "| [`a-b`](../../testdata/mutants/a-b.diff) |",
		"results/bench/lone-lead": "| [`a-b`](../../../testdata/mutants/a-b.diff) |",
	} {
		if md := render(rep, rootFrom(filepath.Join(root, filepath.FromSlash(dir)), root)); !strings.Contains(md, want) {
			t.Errorf("-out %s: render lacks %q:\n%s", dir, want, md)
		}
	}
}

// The report names a mutant by its path in the module, whichever tree
// measured it, so committed results hold no path of the machine.
func TestMutantFileIsModuleRelative(t *testing.T) {
	for in, want := range map[string]string{
		"/srv/wt-x/testdata/mutants/a-b.diff": "testdata/mutants/a-b.diff",
		"testdata/mutants/a-b.diff":           "testdata/mutants/a-b.diff",
		"/elsewhere/c.diff":                   "/elsewhere/c.diff",
	} {
		if got := moduleRelative(in); got != want {
			t.Errorf("moduleRelative(%q) = %q, want %q", in, got, want)
		}
	}
}

// A recorded command keeps no path of the measuring machine: a path under
// the module becomes module-relative, one outside it DIR.
func TestPortableCommand(t *testing.T) {
	root := filepath.FromSlash("/srv/ckptsim")
	for in, want := range map[string]string{
		"go run ./cmd/mutants -seeds 300 -out /srv/mutout5":           "go run ./cmd/mutants -seeds 300 -out DIR",
		"go run ./cmd/mutants -out=/srv/mutout5 -fresh":               "go run ./cmd/mutants -out=DIR -fresh",
		"go run ./cmd/mutants -journal /srv/ckptsim/results/j.jsonl":  "go run ./cmd/mutants -journal results/j.jsonl",
		"go run ./cmd/mutants -default-campaign -out results/mutants": "go run ./cmd/mutants -default-campaign -out results/mutants",
	} {
		if got := portable(in, root); got != want {
			t.Errorf("portable(%q) = %q, want %q", in, got, want)
		}
	}
}
