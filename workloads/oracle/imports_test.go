package oracle

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The checks' feed rule, enforced in the style of pebble's lint tests: a
// check may read only what the harness built (its own actions, the
// boundary calls the simulated cluster observed, the simulator's thread
// table, virtual time). Core reports about itself through coord.Event and
// the cluster's Recorder; neither may reach a check. From core the checks'
// package may use only the boundary types and values the feed carries. The
// simulator's reports (thread table, blocked threads, lock-order graph)
// arrive as this package's plain values (Thread, Blocked, LockEdge): the
// package does not import sim, so a check cannot reach into the world.
var feedRule = struct {
	// allowed lists, per import path, the identifiers the package may use
	// (nil: the import is forbidden whole; a missing path: allowed whole).
	allowed map[string][]string
	// forbidden lists identifiers of an allowed import that carry core's
	// self-report.
	forbidden map[string][]string
	// fields are selectors forbidden on any value (a syntactic test sees
	// no types): the cluster's Recorder of coord events and its hook, and
	// what core computes about itself beyond its boundary interfaces (a
	// lease's Outstanding, a task's Cancelled, a pool's Stats).
	fields []string
	// selfReports are the feed's observation kinds, and this package's
	// types, that carry a self-report: a file that reads one may report
	// only checks whose feeds declare SelfReport
	// (TestSelfReportFeedsAreDeclared).
	selfReports []string
}{
	allowed: map[string][]string{
		"github.com/ckptsim/ckptsim/core/coord": {
			"CompletedPointID",  // the COMPLETED_POINT's fixed id, as barriers carry it
			"Failed", "Running", // status values, as the status store receives them
		},
		"github.com/ckptsim/ckptsim/core/sched": nil,
		"github.com/ckptsim/ckptsim/core/exec":  nil,
		"github.com/ckptsim/ckptsim/core/watermark": {
			// the offset checkpointer's boundary values, as the pipelines' feed carries them
			"Epoch", "Partition", "BatchID", "Watermark", "Stall",
		},
		"github.com/ckptsim/ckptsim/workloads": nil,
		"github.com/ckptsim/ckptsim/sim":       nil,
	},
	forbidden: map[string][]string{
		"github.com/ckptsim/ckptsim/workloads/cluster": {"Record", "Recorder"},
	},
	fields:      []string{"Recorder", "OnEvent", "Outstanding", "Cancelled", "Stats"},
	selfReports: []string{"ObsLeaseDone", "ObsLeaseOutstanding", "ExecutorStats"},
}

// feedViolations returns every use in src (one Go file) that breaks the
// feed rule, as "file:line: what".
func feedViolations(fset *token.FileSet, name string, src []byte) ([]string, error) {
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var out []string
	local := map[string]string{} // local name -> import path
	for _, im := range f.Imports {
		path, _ := strconv.Unquote(im.Path.Value)
		n := path[strings.LastIndex(path, "/")+1:]
		if im.Name != nil {
			n = im.Name.Name
		}
		allowed, restricted := feedRule.allowed[path]
		if restricted && allowed == nil {
			out = append(out, fset.Position(im.Pos()).String()+": imports "+path)
			continue
		}
		local[n] = path
	}
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if slices.Contains(feedRule.fields, sel.Sel.Name) {
			out = append(out, fset.Position(sel.Pos()).String()+": selects ."+sel.Sel.Name+" (core's report about itself)")
		}
		x, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		path, ok := local[x.Name]
		if !ok {
			return true
		}
		if allowed, restricted := feedRule.allowed[path]; restricted && !slices.Contains(allowed, sel.Sel.Name) {
			out = append(out, fset.Position(sel.Pos()).String()+": uses "+x.Name+"."+sel.Sel.Name+" (not a boundary value the feed carries)")
		}
		if slices.Contains(feedRule.forbidden[path], sel.Sel.Name) {
			out = append(out, fset.Position(sel.Pos()).String()+": uses "+x.Name+"."+sel.Sel.Name+" (core's report about itself)")
		}
		return true
	})
	return out, nil
}

// TestChecksReadOnlyTheFeed: no file of the checks' package (tests aside)
// breaks the feed rule.
func TestChecksReadOnlyTheFeed(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	n := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		bad, err := feedViolations(fset, name, src)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bad {
			t.Error(b)
		}
		n++
	}
	if n < 5 {
		t.Fatalf("read %d files: run from the package directory", n)
	}
}

// selfReportUses returns, for one Go file, the self-report observation kinds
// it names and the check ids (constants of checks.go) it names.
func selfReportUses(fset *token.FileSet, name string, src []byte) (kinds, ids []string, err error) {
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, nil, err
	}
	consts := map[string]bool{}
	for _, c := range checks {
		consts[constName(c.ID)] = true
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if slices.Contains(feedRule.selfReports, n.Sel.Name) && !slices.Contains(kinds, n.Sel.Name) {
				kinds = append(kinds, n.Sel.Name)
			}
		case *ast.Ident:
			if consts[n.Name] && !slices.Contains(ids, n.Name) {
				ids = append(ids, n.Name)
			}
			if slices.Contains(feedRule.selfReports, n.Name) && !slices.Contains(kinds, n.Name) {
				kinds = append(kinds, n.Name) // a self-report type of this package
			}
		}
		return true
	})
	return kinds, ids, nil
}

// constName maps a check id to its constant's name in checks.go, read from
// the source (the constants are the only place that pairs them).
func constName(id string) string { return checkConsts()[id] }

var checkConstsCache map[string]string

func checkConsts() map[string]string {
	if checkConstsCache != nil {
		return checkConstsCache
	}
	checkConstsCache = map[string]string{}
	f, err := parser.ParseFile(token.NewFileSet(), "checks.go", nil, 0)
	if err != nil {
		panic(err)
	}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, sp := range g.Specs {
			v := sp.(*ast.ValueSpec)
			for i, n := range v.Names {
				if lit, ok := v.Values[i].(*ast.BasicLit); ok {
					id, _ := strconv.Unquote(lit.Value)
					checkConstsCache[id] = n.Name
				}
			}
		}
	}
	return checkConstsCache
}

// TestSelfReportFeedsAreDeclared ties the source column to the code: every
// file of the checks' package that reads a self-report observation reports
// only checks whose feeds declare SelfReport (so they are labelled
// self-report), and no check declares SelfReport that no such file reports.
func TestSelfReportFeedsAreDeclared(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	reading := map[string]bool{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		kinds, ids, err := selfReportUses(fset, name, src)
		if err != nil {
			t.Fatal(err)
		}
		if len(kinds) == 0 {
			continue
		}
		if len(ids) == 0 {
			t.Errorf("%s reads %v but reports no check by its constant", name, kinds)
		}
		for _, id := range ids {
			for _, c := range checks {
				if constName(c.ID) == id {
					reading[c.ID] = true
					if c.Source() != FromSelfReport {
						t.Errorf("%s reads %v and reports %s, labelled %s (feeds %s): declare SelfReport", name, kinds, c.ID, c.Source(), c.Feeds)
					}
				}
			}
		}
	}
	for _, c := range checks {
		if c.Feeds&SelfReport != 0 && !reading[c.ID] {
			t.Errorf("%s declares SelfReport but no file here reads a self-report for it", c.ID)
		}
	}
	for _, id := range []string{LeaseOutstanding, BlockedForever} {
		if !reading[id] {
			t.Errorf("%s: no file reads its self-report (has the file moved?)", id)
		}
	}
}

// TestFeedRuleCatchesPlantedViolations: the rule fires on each kind of
// forbidden use, and not on the allowed ones.
func TestFeedRuleCatchesPlantedViolations(t *testing.T) {
	for _, c := range []struct {
		src  string
		want string
	}{
		{`package oracle
import "github.com/ckptsim/ckptsim/core/coord"
func f(ev coord.Event) bool { return ev.Kind == coord.EvFinished }`, "coord.Event"},
		{`package oracle
import "github.com/ckptsim/ckptsim/core/sched"
var _ sched.Design`, "imports github.com/ckptsim/ckptsim/core/sched"},
		{`package oracle
import c "github.com/ckptsim/ckptsim/workloads/cluster"
func f(r c.Record) {}`, "c.Record"},
		{`package oracle
import "github.com/ckptsim/ckptsim/workloads/cluster"
func f(c *cluster.Cluster) int { return len(c.Recorder.Violations) }`, ".Recorder"},
		{`package oracle
func f(l interface{ Outstanding() int }) int { return l.Outstanding() }`, ".Outstanding"},
		{`package oracle
import "github.com/ckptsim/ckptsim/sim"
func f(r sim.Result) int { return len(r.Blocked) }`, "imports github.com/ckptsim/ckptsim/sim"},
		{`package oracle
import "github.com/ckptsim/ckptsim/core/coord"
func f(id int64, v string) bool { return id == coord.CompletedPointID || v == coord.Failed.String() }`, ""},
	} {
		bad, err := feedViolations(token.NewFileSet(), "planted.go", []byte(c.src))
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(bad, "\n")
		if c.want == "" && len(bad) > 0 || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%s\n-> %q, want %q", c.src, got, c.want)
		}
	}
}
