package sim

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestStreamRegistry: every stream has a distinct name, and a stream
// outside the registry is refused.
func TestStreamRegistry(t *testing.T) {
	seen := map[string]Stream{}
	for _, s := range Streams() {
		name := s.String()
		if name == "" || strings.HasPrefix(name, "Stream(") {
			t.Errorf("stream %d has no name", uint64(s))
		}
		if o, ok := seen[name]; ok {
			t.Errorf("streams %d and %d are both named %q", uint64(o), uint64(s), name)
		}
		seen[name] = s
		a, b := NewRand(7, s).Uint64(), NewRand(7, s).Uint64()
		if a != b {
			t.Errorf("%s: two generators of one seed differ", s)
		}
	}
	if NewRand(7, StreamInjector).Uint64() == NewRand(7, StreamFaults).Uint64() {
		t.Error("the injector's stream is the cluster's fault stream")
	}
	defer func() {
		if recover() == nil {
			t.Error("NewRand accepted a stream outside the registry")
		}
	}()
	NewRand(1, streamEnd)
}

// TestStreamsDeclaredOnlyInRegistry walks the module's non-test sources:
// no file but sim/rand.go converts to or declares a sim.Stream, or builds
// a generator of its own (rand.New, rand.NewPCG), so every random draw of
// a simulation comes from a registered stream.
func TestStreamsDeclaredOnlyInRegistry(t *testing.T) {
	root := ".."
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") ||
			filepath.ToSlash(path) == "../sim/rand.go" {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		for _, bad := range streamMisuse(f) {
			t.Errorf("%s: %s (add the stream to sim/rand.go's registry)", path, bad)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// streamMisuse lists a file's Stream declarations and conversions and
// its own generators.
func streamMisuse(f *ast.File) []string {
	var out []string
	isStream := func(e ast.Expr) bool {
		switch x := e.(type) {
		case *ast.Ident:
			return x.Name == "Stream" && f.Name.Name == "sim"
		case *ast.SelectorExpr:
			id, ok := x.X.(*ast.Ident)
			return ok && id.Name == "sim" && x.Sel.Name == "Stream"
		}
		return false
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.ValueSpec:
			if x.Type != nil && isStream(x.Type) {
				out = append(out, "declares a Stream "+x.Names[0].Name)
			}
		case *ast.CallExpr:
			if isStream(x.Fun) {
				out = append(out, "converts a number to a Stream")
			}
			if sel, ok := x.Fun.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == "rand" && (sel.Sel.Name == "New" || sel.Sel.Name == "NewPCG") {
					out = append(out, "builds its own generator (rand."+sel.Sel.Name+")")
				}
			}
		}
		return true
	})
	return out
}
