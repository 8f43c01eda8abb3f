package oracle

import (
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The feed rule on types: what a check may touch, decided by go/types
// rather than by source text, so that a type alias re-exported from
// another package, a method called on a value of a forbidden type, or a
// forbidden type reached through a field is seen for what it is. A check
// may use workloads/cluster's observation values (never its Cluster or
// Recorder) and, from core, only the boundary values below; it receives
// the harness as a View, never as *cluster.Cluster.
var typeRule = struct {
	core    string              // the prefix of core's packages
	allowed map[string][]string // core package -> the boundary value types and constants a check may use
	cluster string
	banned  []string // workloads/cluster's objects a check may not use
}{
	core: "github.com/ckptsim/ckptsim/core/",
	allowed: map[string][]string{
		"github.com/ckptsim/ckptsim/core/coord": {"CompletedPointID", "Failed", "Running", "GenStatus"},
		"github.com/ckptsim/ckptsim/core/watermark": {
			"Epoch", "Partition", "BatchID", "Watermark", "Stall",
		},
	},
	cluster: "github.com/ckptsim/ckptsim/workloads/cluster",
	banned:  []string{"Cluster", "Recorder", "Record"},
}

// exportData maps each import path the package in dir depends on to its
// compiled export data (go list -export), for go/importer.
func exportData(dir string) (map[string]string, error) {
	cmd := exec.Command("go", "list", "-export", "-deps", "-json=ImportPath,Export", ".")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("go list: %v\n%s", err, ee.Stderr)
		}
		return nil, err
	}
	m := map[string]string{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p struct{ ImportPath, Export string }
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		m[p.ImportPath] = p.Export
	}
	return m, nil
}

// typeViolations type-checks the package's non-test files, with extra
// (file name -> source) added, and returns every use that breaks
// typeRule as "file:line: what".
func typeViolations(exports map[string]string, extra map[string]string) ([]string, error) {
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		return nil, err
	}
	var files []*ast.File
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, n, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	for _, n := range slices.Sorted(func(yield func(string) bool) {
		for k := range extra {
			if !yield(k) {
				return
			}
		}
	}) {
		f, err := parser.ParseFile(fset, n, extra[n], parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		e, ok := exports[path]
		if !ok || e == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(e)
	})
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Types: map[ast.Expr]types.TypeAndValue{},
		Defs: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
	conf := types.Config{Importer: imp}
	if _, err := conf.Check("github.com/ckptsim/ckptsim/workloads/oracle", fset, files, info); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []string
	add := func(pos token.Pos, what string) {
		s := fset.Position(pos).String() + ": " + what
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	// Objects used by name: a core object outside the allowlist, a banned
	// object of the cluster, a method or field of a forbidden type.
	for id, obj := range info.Uses {
		if why := forbiddenObject(obj); why != "" {
			add(id.Pos(), why)
		}
	}
	// Types of every expression and declaration: an alias resolves to the
	// type it names, and a forbidden type reached through a field or a
	// call's result is still that type.
	for e, tv := range info.Types {
		if why := forbiddenType(tv.Type); why != "" {
			add(e.Pos(), "an expression of "+why)
		}
	}
	for id, obj := range info.Defs {
		if obj == nil {
			continue
		}
		if why := forbiddenType(obj.Type()); why != "" {
			add(id.Pos(), id.Name+" is "+why)
		}
	}
	slices.Sort(out)
	return out, nil
}

// forbiddenObject says why a check may not use obj ("": it may).
func forbiddenObject(obj types.Object) string {
	if obj == nil || obj.Pkg() == nil {
		return ""
	}
	if f, ok := obj.(*types.Func); ok {
		if recv := f.Signature().Recv(); recv != nil {
			if why := forbiddenType(recv.Type()); why != "" {
				return "calls " + f.Name() + " on " + why
			}
			return ""
		}
	}
	if v, ok := obj.(*types.Var); ok && v.IsField() {
		return "" // a field's type is judged with the expression that selects it
	}
	path := obj.Pkg().Path()
	switch {
	case strings.HasPrefix(path, typeRule.core) && obj.Parent() == obj.Pkg().Scope():
		if !slices.Contains(typeRule.allowed[path], obj.Name()) {
			return "uses " + path + "." + obj.Name() + " (not a boundary value the feed carries)"
		}
	case path == typeRule.cluster && obj.Parent() == obj.Pkg().Scope():
		if slices.Contains(typeRule.banned, obj.Name()) {
			return "uses cluster." + obj.Name() + " (the harness itself, not its observations)"
		}
	}
	return ""
}

// forbiddenType says why a value of type t is out of a check's reach
// ("": it is not): a named type of core outside the allowlist, or the
// cluster's banned types, through aliases, pointers and containers.
func forbiddenType(t types.Type) string {
	seen := map[types.Type]bool{}
	var walk func(t types.Type) string
	walk = func(t types.Type) string {
		t = types.Unalias(t)
		if t == nil || seen[t] {
			return ""
		}
		seen[t] = true
		switch t := t.(type) {
		case *types.Pointer:
			return walk(t.Elem())
		case *types.Slice:
			return walk(t.Elem())
		case *types.Array:
			return walk(t.Elem())
		case *types.Map:
			if w := walk(t.Key()); w != "" {
				return w
			}
			return walk(t.Elem())
		case *types.Chan:
			return walk(t.Elem())
		case *types.Named:
			obj := t.Obj()
			if obj.Pkg() == nil {
				return ""
			}
			path := obj.Pkg().Path()
			if strings.HasPrefix(path, typeRule.core) && !slices.Contains(typeRule.allowed[path], obj.Name()) {
				return "type " + path + "." + obj.Name() + " (core's, not a boundary value)"
			}
			if path == typeRule.cluster && slices.Contains(typeRule.banned, obj.Name()) {
				return "type cluster." + obj.Name() + " (the harness itself)"
			}
			for i := range t.TypeArgs().Len() {
				if w := walk(t.TypeArgs().At(i)); w != "" {
					return w
				}
			}
		}
		return ""
	}
	return walk(t)
}

// TestChecksUseOnlyBoundaryTypes: no file of the checks' package (tests
// aside) uses, by name, alias, method or field, a type of core outside the
// boundary values or the harness's Cluster.
func TestChecksUseOnlyBoundaryTypes(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the package against export data (go list -export)")
	}
	exports, err := exportData(".")
	if err != nil {
		t.Fatal(err)
	}
	bad, err := typeViolations(exports, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bad {
		t.Error(b)
	}
}

// TestTypeRuleCatchesPlantedViolations: an alias of a core type with a
// method called through it (every use of the alias is the core type), a
// method call on a core object reached through the harness, and a check
// handed the cluster itself are each reported; a boundary value is not.
// The syntactic rule (feedViolations) misses the second entirely, which is
// why the rule is checked on types.
func TestTypeRuleCatchesPlantedViolations(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the package against export data (go list -export)")
	}
	exports, err := exportData(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, src  string
		want       []string // each in some violation of the planted file
		textMisses bool     // the syntactic rule reports nothing for it
	}{
		{"alias of a core type", `package oracle

import co "github.com/ckptsim/ckptsim/core/coord"

type plantedCoordinator = co.Coordinator

func plantedUse(p *plantedCoordinator) int { return p.PendingCount() }
`, []string{"uses github.com/ckptsim/ckptsim/core/coord.Coordinator", "calls PendingCount on type github.com/ckptsim/ckptsim/core/coord.Coordinator",
			"plantedCoordinator is type github.com/ckptsim/ckptsim/core/coord.Coordinator"}, false},
		{"method call on a core object", `package oracle

import "github.com/ckptsim/ckptsim/workloads/cluster"

func plantedGen(c *cluster.Cluster) uint64 {
	g, _ := c.Managers[0].Coordinator(0).Generation()
	return g
}
`, []string{"calls Generation on type github.com/ckptsim/ckptsim/core/coord.Coordinator", "uses cluster.Cluster (the harness itself, not its observations)",
			"calls Coordinator on type github.com/ckptsim/ckptsim/core/coord.Manager"}, true},
		{"boundary value", `package oracle

import "github.com/ckptsim/ckptsim/core/coord"

func plantedID() int64 { return coord.CompletedPointID }
`, nil, true},
	} {
		bad, err := typeViolations(exports, map[string]string{"planted.go": tc.src})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var planted []string
		for _, b := range bad {
			if strings.HasPrefix(b, "planted.go:") {
				planted = append(planted, b)
			} else {
				t.Errorf("%s: a violation outside the planted file: %s", tc.name, b)
			}
		}
		if len(tc.want) == 0 && len(planted) > 0 {
			t.Errorf("%s: reported %q", tc.name, planted)
		}
		for _, w := range tc.want {
			if !slices.ContainsFunc(planted, func(s string) bool { return strings.Contains(s, w) }) {
				t.Errorf("%s: no violation mentions %q; got %q", tc.name, w, planted)
			}
		}
		text, err := feedViolations(token.NewFileSet(), "planted.go", []byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		if tc.textMisses && len(text) > 0 {
			t.Errorf("%s: the syntactic rule reports %q; the planted case no longer shows what types add", tc.name, text)
		}
	}
}
