package core_test

// The purity test: core reaches time, threads, locks and randomness only
// through core/env, so that the simulator sees every wait, wake-up and
// draw. The test type-checks every package under core/ (core/env, the
// wall implementation, excepted) and applies the rules below to the typed
// syntax tree, so an alias, a dot-import or a method value cannot hide a
// banned name. Every rule is pinned by a planted fixture in
// testdata/purity/ that the test must reject at the lines marked
// `// want: rule`.

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

const module = "github.com/ckptsim/ckptsim"

// allowedStd lists, by name, the standard library packages core may
// import. Anything else (another module, a helper package outside core/,
// a standard package not listed) is a finding. A package that can wait,
// spawn or draw randomness is not on the list: runtime, sync, reflect,
// os/signal, crypto/rand, math/rand, net, os/exec, iter's Pull aside.
var allowedStd = map[string]bool{
	"bytes": true, "cmp": true, "container/heap": true, "container/list": true, "context": true,
	"crypto/sha256": true, "encoding/binary": true, "encoding/hex": true, "encoding/json": true,
	"errors": true, "fmt": true, "hash": true, "hash/crc32": true, "io": true, "io/fs": true,
	"iter": true, "log/slog": true, "maps": true, "math": true, "math/bits": true, "path": true,
	"path/filepath": true, "slices": true, "sort": true, "strconv": true, "strings": true,
	"sync/atomic": true, "time": true, "unicode": true, "unicode/utf8": true,
}

// allowedIn lists standard packages allowed in one core package only.
var allowedIn = map[string]string{
	"os": "core/savepoint", // osfs.go: the wall file system behind the FS seam
}

// bannedObjects are package-level objects core must not use, by package
// path, with the rule they break. They are matched on the type checker's
// resolution of every identifier, whatever the import is called.
var bannedObjects = map[string]map[string]string{
	"time": ruleSet("time", "Now", "Sleep", "After", "AfterFunc", "NewTimer", "NewTicker", "Tick",
		"Since", "Until", "Timer", "Ticker"),
	"sync": ruleSet("sync", "Mutex", "RWMutex", "Cond", "WaitGroup", "Once", "NewCond", "OnceFunc",
		"OnceValue", "OnceValues", "Map", "Pool", "Locker"),
	"runtime": ruleSet("runtime", "NumCPU", "GOMAXPROCS", "Gosched", "LockOSThread", "Goexit"),
	"context": ruleSet("context", "WithTimeout", "WithDeadline", "WithTimeoutCause",
		"WithDeadlineCause", "AfterFunc"),
	"iter": ruleSet("iter", "Pull", "Pull2"),
	// The wall environments are for callers to pass in: core code that
	// names one runs on real time and threads even in simulation.
	module + "/core/env": {"Wall": "wall-env", "PreciseWall": "wall-env"},
}

func ruleSet(pkg string, names ...string) map[string]string {
	m := map[string]string{}
	for _, n := range names {
		m[n] = pkg + "." + n
	}
	return m
}

// bannedImports are imports with their own rule (they are off the
// allow-list too).
var bannedImports = map[string]string{
	"math/rand":    "global-rand",
	"math/rand/v2": "global-rand",
	"crypto/rand":  "crypto-rand",
}

// Finding is one purity violation: where, and which rule.
type Finding struct {
	Pos  token.Position
	Rule string
	What string
}

func (f Finding) String() string {
	return fmt.Sprintf("%s:%d: [%s] %s", f.Pos.Filename, f.Pos.Line, f.Rule, f.What)
}

// checker applies the rules to one type-checked package.
type checker struct {
	fset *token.FileSet
	info *types.Info
	pkg  string // the package's path relative to the module, e.g. core/coord
	out  []Finding
	// assertions are the blank declarations (var _ T = v), compile-time
	// interface checks: they may name a wall environment, since the value
	// is discarded.
	assertions []ast.Node
}

func (c *checker) add(n ast.Node, rule, what string) {
	c.out = append(c.out, Finding{c.fset.Position(n.Pos()), rule, what})
}

func (c *checker) imports(f *ast.File) {
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if imp.Name != nil && imp.Name.Name == "." {
			c.add(imp, "dot-import", "dot-import of "+p+" (its names would escape the selector rules)")
		}
		if r, ok := bannedImports[p]; ok {
			c.add(imp, r, "import of "+p+" (use a seeded stream passed in)")
		}
		if !allowedImport(c.pkg, p) {
			c.add(imp, "import", "import of "+p+" (core imports only listed standard packages and core/...)")
		}
	}
}

func allowedImport(pkg, p string) bool {
	if allowedStd[p] || allowedIn[p] == pkg {
		return true
	}
	return strings.HasPrefix(p, module+"/core/") && path.Clean(p) == p
}

func (c *checker) node(n ast.Node) bool {
	switch x := n.(type) {
	case *ast.GoStmt:
		c.add(x, "go", "go statement (use env.Go)")
	case *ast.SendStmt:
		c.add(x, "chan-send", "channel send")
	case *ast.SelectStmt:
		c.add(x, "select", "select statement")
	case *ast.ChanType:
		c.add(x, "chan-type", "channel type (core waits through env.Cond)")
	case *ast.UnaryExpr:
		if x.Op == token.ARROW {
			c.add(x, "chan-recv", "channel receive")
		}
	case *ast.RangeStmt:
		if t := c.info.TypeOf(x.X); t != nil {
			if _, ok := t.Underlying().(*types.Chan); ok {
				c.add(x, "chan-range", "range over a channel")
			}
		}
	case *ast.ValueSpec:
		if len(x.Names) == 1 && x.Names[0].Name == "_" {
			c.assertions = append(c.assertions, x)
		}
	case *ast.Ident:
		c.ident(x)
	}
	return true
}

// inAssertion reports whether n lies in a blank declaration.
func (c *checker) inAssertion(n ast.Node) bool {
	return slices.ContainsFunc(c.assertions, func(a ast.Node) bool { return a.Pos() <= n.Pos() && n.End() <= a.End() })
}

func (c *checker) ident(id *ast.Ident) {
	obj := c.info.Uses[id]
	if obj == nil {
		return
	}
	if b, ok := obj.(*types.Builtin); ok && b.Name() == "close" {
		c.add(id, "chan-close", "close of a channel")
		return
	}
	if obj.Pkg() == nil || obj.Parent() != obj.Pkg().Scope() {
		return // not a package-level object (a method, a field, a local)
	}
	if r, ok := bannedObjects[obj.Pkg().Path()][obj.Name()]; ok {
		if r == "wall-env" && c.inAssertion(id) {
			return
		}
		c.add(id, r, obj.Pkg().Name()+"."+obj.Name()+" (use core/env, or take it through configuration)")
	}
}

// loader type-checks core packages from source and the standard library
// from export data, caching both.
type loader struct {
	fset *token.FileSet
	std  types.Importer
	pkgs map[string]*types.Package
}

// newLoader returns the loader both tests share (type-checking the
// standard library from source is the slow part).
var newLoader = sync.OnceValue(func() *loader {
	fset := token.NewFileSet()
	return &loader{fset: fset, std: importer.ForCompiler(fset, "source", nil), pkgs: map[string]*types.Package{}}
})

func (l *loader) Import(p string) (*types.Package, error) {
	if pkg, ok := l.pkgs[p]; ok {
		return pkg, nil
	}
	if !strings.HasPrefix(p, module+"/") {
		pkg, err := l.std.Import(p)
		l.pkgs[p] = pkg
		return pkg, err
	}
	files, err := l.parseDir(filepath.Join("..", strings.TrimPrefix(p, module+"/")))
	if err != nil {
		return nil, err
	}
	pkg, _, errs := l.check(p, files)
	if len(errs) > 0 {
		return pkg, errs[0]
	}
	return pkg, nil
}

// parseDir parses a directory's non-test Go files.
func (l *loader) parseDir(dir string) ([]*ast.File, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []*ast.File
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		// Type-check the files this platform builds (default_linux.go or
		// default_other.go, not both).
		if ok, err := build.Default.MatchFile(dir, n); err != nil || !ok {
			continue
		}
		f, err := parser.ParseFile(l.fset, filepath.Join(dir, n), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// check type-checks files as package p, keeping going after errors so
// that a fixture with a missing import is still checked.
func (l *loader) check(p string, files []*ast.File) (*types.Package, *types.Info, []error) {
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{}}
	var errs []error
	conf := types.Config{Importer: l, Error: func(err error) { errs = append(errs, err) }}
	pkg, _ := conf.Check(p, l.fset, files, info)
	l.pkgs[p] = pkg
	return pkg, info, errs
}

// findings applies every rule to files, type-checked as package rel
// (relative to the module).
func (l *loader) findings(rel string, files []*ast.File) ([]Finding, []error) {
	_, info, errs := l.check(path.Join(module, rel), files)
	c := &checker{fset: l.fset, info: info, pkg: rel}
	for _, f := range files {
		c.imports(f)
		ast.Inspect(f, c.node)
	}
	return c.out, errs
}

func TestCoreIsPure(t *testing.T) {
	l := newLoader()
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if p == "env" || d.Name() == "testdata" {
			return filepath.SkipDir
		}
		files, err := l.parseDir(p)
		if err != nil || len(files) == 0 {
			return err
		}
		rel := path.Join("core", filepath.ToSlash(p))
		found, errs := l.findings(rel, files)
		for _, e := range errs {
			t.Errorf("%s: type check: %v", rel, e)
		}
		for _, f := range found {
			t.Errorf("%s", f)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

var wantRE = regexp.MustCompile(`// want: ([a-z.\-A-Z0-9 ]+)$`)

// TestPurityCatchesPlantedViolations checks each fixture in
// testdata/purity (kept as .go.txt so that no tool mistakes it for part of
// core): every line marked `// want: rule...` has a finding of each rule
// named, and no unmarked line has one. Every rule the checker knows must
// be pinned by some fixture.
func TestPurityCatchesPlantedViolations(t *testing.T) {
	paths, err := filepath.Glob("testdata/purity/*.go.txt")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	pinned := map[string]bool{}
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		l := newLoader()
		f, err := parser.ParseFile(l.fset, p, src, parser.ParseComments)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		want := map[string]bool{} // "line rule"
		for i, line := range strings.Split(string(src), "\n") {
			if m := wantRE.FindStringSubmatch(line); m != nil {
				for _, r := range strings.Fields(m[1]) {
					want[fmt.Sprintf("%d %s", i+1, r)] = true
					pinned[r] = true
				}
			}
		}
		if len(want) == 0 {
			t.Errorf("%s: no // want: markers", p)
		}
		found, _ := l.findings("core/planted", []*ast.File{f})
		got := map[string]bool{}
		for _, x := range found {
			got[fmt.Sprintf("%d %s", x.Pos.Line, x.Rule)] = true
		}
		for _, w := range slices.Sorted(maps.Keys(want)) {
			if !got[w] {
				t.Errorf("%s: no finding for line %s", p, w)
			}
		}
		for _, x := range found {
			if !want[fmt.Sprintf("%d %s", x.Pos.Line, x.Rule)] {
				t.Errorf("%s: unexpected finding %s", p, x)
			}
		}
	}
	for _, r := range allRules() {
		if !pinned[r] {
			t.Errorf("rule %s is pinned by no fixture in testdata/purity", r)
		}
	}
}

// allRules lists every rule the checker can report.
func allRules() []string {
	rules := []string{"import", "dot-import", "go", "chan-send", "chan-recv", "chan-range", "chan-close",
		"chan-type", "select", "global-rand", "crypto-rand"}
	for _, m := range bannedObjects {
		for _, r := range m {
			rules = append(rules, r)
		}
	}
	slices.Sort(rules)
	return slices.Compact(rules)
}
