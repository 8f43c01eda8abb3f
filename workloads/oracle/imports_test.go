package oracle

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
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
	selfReports: []string{"ObsLeaseDone", "ObsLeasePending", "ObsLeaseOutstanding", "ExecutorStats"},
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

// judgedOutside returns every call in src (one Go file outside this
// package) that reports a check by its id: a call of a method named Add,
// Once or Assert (Findings') with a check id among its arguments, as
// oracle's constant or as a string literal.
func judgedOutside(fset *token.FileSet, name string, src []byte) ([]string, error) {
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	local := ""
	for _, im := range f.Imports {
		if path, _ := strconv.Unquote(im.Path.Value); path == "github.com/ckptsim/ckptsim/workloads/oracle" {
			local = "oracle"
			if im.Name != nil {
				local = im.Name.Name
			}
		}
	}
	ids := checkConsts()
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || !slices.Contains([]string{"Add", "Once", "Assert"}, sel.Sel.Name) {
			return true
		}
		for _, a := range call.Args {
			switch a := a.(type) {
			case *ast.SelectorExpr:
				if x, ok := a.X.(*ast.Ident); ok && local != "" && x.Name == local && slices.Contains(slices.Collect(maps.Values(ids)), a.Sel.Name) {
					out = append(out, fset.Position(call.Pos()).String()+": reports "+x.Name+"."+a.Sel.Name+" outside workloads/oracle")
				}
			case *ast.BasicLit:
				if id, err := strconv.Unquote(a.Value); a.Kind == token.STRING && err == nil && ids[id] != "" {
					out = append(out, fset.Position(call.Pos()).String()+": reports "+a.Value+" outside workloads/oracle")
				}
			}
		}
		return true
	})
	return out, nil
}

// TestNoCheckJudgedOutside: every check is judged in this package. No
// non-test Go file of the module outside it reports a check by its id
// (the harness collects the feeds, hands them over and forwards the
// findings this package made).
func TestNoCheckJudgedOutside(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	n := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if base := d.Name(); path != root && (strings.HasPrefix(base, ".") || base == "testdata" || path == filepath.Join(root, "workloads", "oracle")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		bad, err := judgedOutside(fset, path, src)
		if err != nil {
			return err
		}
		for _, b := range bad {
			t.Error(b)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 50 {
		t.Fatalf("read %d files: run from the package directory", n)
	}
	// planted: the forms it must catch, and the forwarding it must let pass
	for _, c := range []struct {
		src  string
		want int
	}{
		{`package workloads
import "github.com/ckptsim/ckptsim/workloads/oracle"
func f(r *oracle.Findings) { r.Add(oracle.Deadlock, 0, "world", "x") }`, 1},
		{`package workloads
import o "github.com/ckptsim/ckptsim/workloads/oracle"
func f(r *o.Findings) { r.Assert(false, o.LockOrder, 0, "g", "x"); r.Once("blocked-forever", 0, "t", "x") }`, 2},
		{`package workloads
import "github.com/ckptsim/ckptsim/workloads/oracle"
func f(r *oracle.Findings, g oracle.Finding) { r.Add(g.Check, g.At, g.Subject, "%s", g.Message) }`, 0},
	} {
		bad, err := judgedOutside(token.NewFileSet(), "planted.go", []byte(c.src))
		if err != nil {
			t.Fatal(err)
		}
		if len(bad) != c.want {
			t.Errorf("%s\n-> %q, want %d", c.src, bad, c.want)
		}
	}
}
