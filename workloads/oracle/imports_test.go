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
// package may use only the boundary types and values the feed carries.
var feedRule = struct {
	// allowed lists, per import path, the identifiers the package may use
	// (nil: the import is forbidden whole; a missing path: allowed whole).
	allowed map[string][]string
	// forbidden lists identifiers of an allowed import that carry core's
	// self-report.
	forbidden map[string][]string
	// fields are selectors forbidden on any value (a syntactic test sees
	// no types): the cluster's Recorder of coord events and its hook.
	fields []string
}{
	allowed: map[string][]string{
		"github.com/ckptsim/ckptsim/core/coord": {
			"CompletedPointID",  // the COMPLETED_POINT's fixed id, as barriers carry it
			"Failed", "Running", // status values, as the status store receives them
		},
		"github.com/ckptsim/ckptsim/core/sched":     nil,
		"github.com/ckptsim/ckptsim/core/exec":      nil,
		"github.com/ckptsim/ckptsim/core/watermark": nil,
		"github.com/ckptsim/ckptsim/workloads":      nil,
	},
	forbidden: map[string][]string{
		"github.com/ckptsim/ckptsim/workloads/cluster": {"Record", "Recorder", "Violation"},
	},
	fields: []string{"Recorder", "OnEvent"},
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
