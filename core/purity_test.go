package core_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// banned lists package-qualified names that core must reach only through
// core/env: time, threads and locks the simulator cannot see.
var banned = map[string][]string{
	"time": {"Now", "Sleep", "After", "AfterFunc", "NewTimer", "NewTicker", "Tick", "Since", "Until"},
	"sync": {"Mutex", "RWMutex", "Cond", "WaitGroup", "Once", "NewCond", "OnceFunc", "OnceValue", "OnceValues"},
}

// Finding is one purity violation.
type Finding struct {
	Pos  token.Position
	What string
}

func (f Finding) String() string { return fmt.Sprintf("%s:%d: %s", f.Pos.Filename, f.Pos.Line, f.What) }

// scan parses every non-test Go file under root, skipping skip (a
// directory relative to root) and testdata, and returns the violations.
func scan(t *testing.T, root, skip string) []Finding {
	t.Helper()
	var out []Finding
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() && (rel == skip || d.Name() == "testdata" && path != root) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		out = append(out, check(fset, f)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// check reports banned imports, names, go statements and channel
// operations in one file.
func check(fset *token.FileSet, f *ast.File) []Finding {
	var out []Finding
	add := func(n ast.Node, what string) { out = append(out, Finding{fset.Position(n.Pos()), what}) }
	names := map[string]string{} // local name -> import path
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if path == "math/rand" || path == "math/rand/v2" {
			add(imp, "import of "+path+" (use a seeded stream passed in)")
		}
		name := filepath.Base(path)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		names[name] = path
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.GoStmt:
			add(x, "go statement (use env.Go)")
		case *ast.SendStmt:
			add(x, "channel send")
		case *ast.SelectStmt:
			add(x, "select statement")
		case *ast.UnaryExpr:
			if x.Op == token.ARROW {
				add(x, "channel receive")
			}
		case *ast.SelectorExpr:
			if id, ok := x.X.(*ast.Ident); ok {
				for _, b := range banned[names[id.Name]] {
					if x.Sel.Name == b {
						add(x, names[id.Name]+"."+b+" (use core/env)")
					}
				}
			}
		}
		return true
	})
	return out
}

func TestCoreIsPure(t *testing.T) {
	for _, f := range scan(t, ".", "env") {
		t.Errorf("%s", f)
	}
}

// The planted file is kept as .go.txt so that no tool mistakes it for
// part of core; the test parses it as Go.
func TestPurityCatchesPlantedViolations(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "testdata/planted.go.txt", nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, f := range check(fset, f) {
		got[fmt.Sprintf("%s:%d", filepath.Base(f.Pos.Filename), f.Pos.Line)] = true
		t.Log(f)
	}
	for _, want := range []string{"planted.go.txt:4", "planted.go.txt:12", "planted.go.txt:13", "planted.go.txt:14",
		"planted.go.txt:15", "planted.go.txt:16", "planted.go.txt:17", "planted.go.txt:18"} {
		if !got[want] {
			t.Errorf("no finding at %s", want)
		}
	}
}
