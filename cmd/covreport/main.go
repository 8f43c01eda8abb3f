// Command covreport says what a simrun campaign reached in core/ and what
// it never did: statement coverage of the production code, measured by a
// simrun binary built with -cover, per package and per function, the
// functions the campaign never entered, the blocks it never ran, and the
// blocks only BUGGIFY's sites reach. A campaign's verdicts say the code it
// ran was right; this says which code that was.
//
//	make coverage
//
// builds the binary, runs the default campaign with BUGGIFY off and on
// (GOCOVERDIR), converts each with `go tool covdata textfmt` and runs
//
//	go run ./cmd/covreport -profile off=OFF.txt -profile buggify=ON.txt \
//		-aside variants=VARIANTS.txt -unit UNIT.txt -linked NM.txt -out results/coverage
//
// which writes results/coverage/README.md (the tables) and uncovered.md
// (every block never run, with its first source line, its kind and why),
// atomically. The first profile is the baseline; a block counts as reached
// by a profile when any of its counters is non-zero.
//
// Why a block is never run comes from rules the tool applies, not from a
// label typed per block (rules.classify): wall-only (a file of the
// wall-mode list, or a function the linker leaves out of simrun), variant
// (reached by the variant runs, -aside, and not by the campaign),
// defensive (listed in results/coverage/defensive.txt with why and the
// test that runs it, which must exist and, with -unit, run the block),
// and gap otherwise.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ckptsim/ckptsim/workloads/campaign"
)

// block is one coverage block of a source file.
type block struct {
	file                       string // module-relative path
	startLine, startCol        int
	endLine, endCol            int
	stmts                      int
	hit                        []bool // per profile
	aside                      []bool // per -aside profile: reached there, not counted
	fn                         *function
	covered, coveredByBaseline bool
	class                      *classification // why it is never run (annotate)
}

type function struct {
	name      string // Recv.Name or Name
	file      string
	line      int
	extent    [4]int // start line, column, end line, column
	stmts     int
	hit       []int // statements reached, per profile
	union     int
	uncovered []*block
}

type profile struct {
	name string
	path string
}

type profileFlags []profile

func (p *profileFlags) String() string { return fmt.Sprint(*p) }

func (p *profileFlags) Set(s string) error {
	name, path, ok := strings.Cut(s, "=")
	if !ok || name == "" || path == "" {
		return fmt.Errorf("want NAME=FILE, got %q", s)
	}
	*p = append(*p, profile{name, path})
	return nil
}

func main() {
	var profiles, asides profileFlags
	flag.Var(&profiles, "profile", "NAME=FILE: a text coverage profile (go tool covdata textfmt); repeat, the first is the baseline")
	flag.Var(&asides, "aside", "NAME=FILE: a profile shown but never counted as reached (the variant runs); a block whose reason says variant must be reached by one")
	module := flag.String("module", "github.com/ckptsim/ckptsim", "the module path the profiles name files by")
	root := flag.String("root", ".", "the module's root directory")
	prefix := flag.String("prefix", "core/", "report files under this module-relative folder")
	out := flag.String("out", "results/coverage", "where README.md and uncovered.md go")
	header := flag.String("header", "", "a paragraph put under the title: the commands and the commit")
	wall := flag.String("wall", strings.Join(wallFiles, ","),
		"comma-separated module-relative files of wall mode: their blocks are wall-only")
	linked := flag.String("linked", "", "`go tool nm` output of a simrun built with -gcflags=all=-l: a function it lacks is wall-only")
	control := flag.String("control", "", "a text coverage profile of the variant runs' scenarios under the default values: a block it reaches is never variant-only")
	unit := flag.String("unit", "", "a text coverage profile of core's unit tests (go test -coverprofile): a defensive block must be run by them")
	defensive := flag.String("defensive", "results/coverage/defensive.txt",
		"the defensive blocks: lines `PATH | FUNCTION | FIRST LINE | TEST | WHY`; a missing file lists none")
	skip := flag.String("skip", "", "comma-separated module-relative files not counted at all")
	flag.Parse()
	if len(profiles) == 0 {
		fmt.Fprintln(os.Stderr, "covreport: at least one -profile NAME=FILE")
		os.Exit(64)
	}
	rs := &rules{wall: strings.Split(*wall, ","), unit: -1, control: -1, module: *module, dfile: *defensive}
	if *control != "" {
		rs.control = len(asides)
		asides = append(asides, profile{"control", *control})
	}
	if *unit != "" {
		rs.unit = len(asides)
		asides = append(asides, profile{"unit", *unit})
	}
	var skipped []string
	if *skip != "" {
		skipped = strings.Split(*skip, ",")
	}
	r, err := build(profiles, asides, *module, *root, *prefix, skipped)
	if err == nil && *linked != "" {
		rs.linked, err = linkedSymbols(*linked)
	}
	if err == nil {
		rs.defensive, err = readDefensive(*defensive)
	}
	if err == nil {
		rs.tests, err = testNames(*root)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "covreport:", err)
		os.Exit(1)
	}
	r.annotate(rs, *root)
	var readme, unc strings.Builder
	r.writeReadme(&readme, *header)
	r.writeUncovered(&unc, *root)
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "covreport:", err)
		os.Exit(1)
	}
	for name, s := range map[string]string{"README.md": readme.String(), "uncovered.md": unc.String()} {
		if err := campaign.WriteFile(filepath.Join(*out, name), []byte(s)); err != nil {
			fmt.Fprintln(os.Stderr, "covreport:", err)
			os.Exit(1)
		}
	}
}

// wallFiles are the files of wall mode: the wall env (real clocks and
// goroutines, the precise timed waits and their adaptive lead, the
// platform's default env) and the OS file system. A simulation runs
// sim.World and sim/simfs in their place.
var wallFiles = []string{
	"core/env/wall.go", "core/env/precise.go", "core/env/precise_poll.go", "core/env/adapt.go",
	"core/env/default_linux.go", "core/env/default_other.go", "core/savepoint/osfs.go",
}

// report is the parsed profiles over the source tree.
type report struct {
	skipped []string
	names   []string
	asides  []string // -aside profiles: read, shown, never counted as reached
	blocks  []*block
	funcs   []*function
	pkgs    []string
	rules   *rules // annotate; nil: not applied
}

// The kinds a block never run falls under, each from a rule covreport
// applies (rules.classify), never from a label typed per block:
//
//   - wall-only: the block is in a file of the wall-mode list (-wall: the
//     wall env and the OS file system, which a simulation never runs), or
//     in a function the Go linker leaves out of simrun (-linked: the
//     symbols of a simrun built with -gcflags=all=-l, so that no call is
//     inlined away; a function not linked has no caller reachable from
//     simrun's main, so only tests and tools run it);
//   - variant: a run beside the campaign (-aside, the variant runs: every
//     non-default value of every variant key) reached the block, and the
//     default campaign did not: it runs under a non-default value only;
//   - defensive: the block is listed in the defensive file (-defensive)
//     with why no simulation reaches it and the test that runs it; the
//     test must exist, and core's unit tests (-unit) must run the block,
//     else it counts as "defensive (not run by a test)", with the gaps;
//   - gap: none of the above: a simulation should reach it and does not.
const (
	kindWall      = "wall-only"
	kindVariant   = "variant"
	kindDefensive = "defensive"
	kindGap       = "gap"
	// kindUntested: listed as defensive, but the unit tests never ran
	// the block, or the test the entry names does not exist.
	kindUntested = "defensive (not run by a test)"
)

var kindOrder = []string{kindWall, kindVariant, kindDefensive, kindGap, kindUntested}

// excluded says whether a kind leaves a block out of what the campaign
// should reach: wall-only and variant blocks a simulation of the shipped
// defaults cannot run, defensive ones a test shows it does not.
func excluded(kind string) bool {
	return kind == kindWall || kind == kindVariant || kind == kindDefensive
}

// defEntry is one line of the defensive file: the blocks never run of a
// function whose first source line is first (or all of them, "*"), why no
// simulation reaches them, and the test that runs them.
type defEntry struct {
	file, fn, first string
	test, why       string
	line            int // in the defensive file
	used            bool
}

// readDefensive parses the defensive file: one
// `PATH | FUNCTION | FIRST LINE | TEST | WHY` per line (PATH
// module-relative; FUNCTION as covreport names it, `(*T).M`, `T.M` or
// `F`; FIRST LINE the block's first source line, trimmed, or `*` for every
// block of the function never run; TEST a Test or Fuzz function of the
// module). Blank lines and lines starting with # are skipped; a missing
// file lists nothing.
func readDefensive(path string) ([]*defEntry, error) {
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []*defEntry
	for i, text := range strings.Split(string(data), "\n") {
		text = strings.TrimSpace(text)
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		f := strings.Split(text, " | ")
		for j := range f {
			f[j] = strings.TrimSpace(f[j])
		}
		if len(f) != 5 || slices.Contains(f, "") {
			return nil, fmt.Errorf("%s:%d: want PATH | FUNCTION | FIRST LINE | TEST | WHY, got %q", path, i+1, text)
		}
		if !strings.HasPrefix(f[3], "Test") && !strings.HasPrefix(f[3], "Fuzz") {
			return nil, fmt.Errorf("%s:%d: %q is not a Test or Fuzz function", path, i+1, f[3])
		}
		out = append(out, &defEntry{file: f[0], fn: f[1], first: f[2], test: f[3], why: f[4], line: i + 1})
	}
	return out, nil
}

// rules are what classify applies.
type rules struct {
	wall      []string        // module-relative files of wall mode
	linked    map[string]bool // function symbols linked into simrun; nil: rule not applied
	defensive []*defEntry
	dfile     string
	tests     map[string]bool // Test and Fuzz functions of the module's _test.go files
	unit      int             // index of the unit tests' profile among the asides; -1: none
	control   int             // index of the control runs' profile among the asides; -1: none
	module    string
}

// classification is why a block never run is not run.
type classification struct {
	kind string
	why  string
	def  *defEntry
}

// linkedSymbols reads `go tool nm` output: the text symbols of a binary.
func linkedSymbols(path string) (map[string]bool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || (f[1] != "T" && f[1] != "t") {
			continue
		}
		out[stripTypeArgs(strings.Join(f[2:], " "))] = true
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no text symbols (want the output of go tool nm)", path)
	}
	return out, nil
}

// stripTypeArgs drops the instantiation brackets of a generic symbol:
// pkg.F[go.shape.int] and pkg.(*T[...]).M are pkg.F and pkg.(*T).M.
func stripTypeArgs(s string) string {
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch {
		case r == '[':
			depth++
		case r == ']' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// symbol is the linker's name of a function covreport parsed, or "" for
// a function literal of a package-level initialiser (always kept: the
// initialiser runs).
func (rs *rules) symbol(f *function) string {
	if strings.HasPrefix(f.name, "func@") {
		return ""
	}
	return rs.module + "/" + pkgOf(f.file) + "." + f.name
}

// testNames lists the Test and Fuzz functions of the module's _test.go
// files under root (the folders a Go package may live in).
func testNames(root string) (map[string]bool, error) {
	out := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "results") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, line := range strings.Split(string(data), "\n") {
			if name, ok := strings.CutPrefix(line, "func "); ok {
				if i := strings.IndexByte(name, '('); i > 0 && (strings.HasPrefix(name, "Test") || strings.HasPrefix(name, "Fuzz")) {
					out[name[:i]] = true
				}
			}
		}
		return nil
	})
	return out, err
}

// classify says why a block never run is not run, by the first rule that
// holds: the wall-mode files, the linker, the variant runs, the defensive
// file; a gap otherwise.
func (rs *rules) classify(r *report, b *block, firstLine string) classification {
	if slices.Contains(rs.wall, b.file) {
		return classification{kind: kindWall, why: "a wall-mode file (-wall)"}
	}
	if rs.linked != nil {
		if sym := rs.symbol(b.fn); sym != "" && !rs.linked[sym] {
			return classification{kind: kindWall, why: "not linked into simrun (no caller reachable from its main)"}
		}
	}
	var by []string
	for i, h := range b.aside {
		if h && i != rs.unit && i != rs.control {
			by = append(by, r.asides[i])
		}
	}
	if len(by) > 0 && rs.control >= 0 && b.aside[rs.control] {
		return classification{kind: kindGap, why: "the control runs reach it under the default values: a scenario of the default campaign could"}
	}
	if len(by) > 0 {
		return classification{kind: kindVariant, why: "reached by the " + strings.Join(by, ", ") + " run" + plural(len(by))}
	}
	for _, d := range rs.defensive {
		if d.file != b.file || d.fn != b.fn.name || (d.first != "*" && d.first != firstLine) {
			continue
		}
		d.used = true
		switch {
		case !rs.tests[d.test]:
			return classification{kind: kindUntested, why: d.why + " (" + d.test + ": no such test)", def: d}
		case rs.unit >= 0 && !b.aside[rs.unit]:
			return classification{kind: kindUntested, why: d.why + " (" + d.test + "; the unit tests never run it)", def: d}
		}
		return classification{kind: kindDefensive, why: d.why + " (" + d.test + ")", def: d}
	}
	return classification{kind: kindGap}
}

// annotate classifies every block never run.
func (r *report) annotate(rs *rules, root string) {
	r.rules = rs
	src := map[string][]string{}
	for _, b := range r.blocks {
		if b.covered {
			continue
		}
		lines, ok := src[b.file]
		if !ok {
			lines = readLines(filepath.Join(root, filepath.FromSlash(b.file)))
			src[b.file] = lines
		}
		first := ""
		if b.startLine-1 < len(lines) {
			first = strings.TrimSpace(lines[b.startLine-1])
		}
		c := rs.classify(r, b, first)
		b.class = &c
	}
}

// kindOf is a block's kind (a gap when no rules were applied).
func (b *block) kindOf() string {
	if b.class == nil {
		return kindGap
	}
	return b.class.kind
}

// build reads the profiles, keeps the blocks under prefix, and places
// each in its function (parsed from the source under root).
//
// The aside profiles are read the same way but never count as reached:
// they show which blocks a campaign outside the measured one (the variant
// runs) reaches, to verify the variant reasons.
func build(profiles, asides []profile, module, root, prefix string, skip []string) (*report, error) {
	r := &report{skipped: skip}
	byKey := map[string]*block{}
	all := append(slices.Clone(profiles), asides...)
	for i, p := range all {
		if i < len(profiles) {
			r.names = append(r.names, p.name)
		} else {
			r.asides = append(r.asides, p.name)
		}
		if err := readProfile(p.path, i, len(all), module, prefix, byKey); err != nil {
			return nil, err
		}
	}
	for _, b := range byKey {
		b.hit, b.aside = b.hit[:len(profiles)], b.hit[len(profiles):]
	}
	files := map[string][]*block{}
	for _, b := range byKey {
		if !slices.Contains(skip, b.file) {
			files[b.file] = append(files[b.file], b)
		}
	}
	pkgs := map[string]bool{}
	for _, file := range sortedKeys(files) {
		fns, err := parseFuncs(filepath.Join(root, filepath.FromSlash(file)), file, len(profiles))
		if err != nil {
			return nil, err
		}
		bs := files[file]
		sort.Slice(bs, func(i, j int) bool {
			if bs[i].startLine != bs[j].startLine {
				return bs[i].startLine < bs[j].startLine
			}
			return bs[i].startCol < bs[j].startCol
		})
		for _, b := range bs {
			b.fn = enclosing(fns, b)
			if b.fn == nil {
				return nil, fmt.Errorf("%s:%d: a coverage block outside every function (is the source the profile's?)", file, b.startLine)
			}
			for i, h := range b.hit {
				if h {
					b.fn.hit[i] += b.stmts
				}
				b.covered = b.covered || h
			}
			b.coveredByBaseline = b.hit[0]
			b.fn.stmts += b.stmts
			if b.covered {
				b.fn.union += b.stmts
			} else {
				b.fn.uncovered = append(b.fn.uncovered, b)
			}
		}
		r.blocks = append(r.blocks, bs...)
		for _, f := range fns {
			if f.stmts > 0 {
				r.funcs = append(r.funcs, f)
			}
		}
		pkgs[pkgOf(file)] = true
	}
	r.pkgs = sortedKeys(pkgs)
	return r, nil
}

// readProfile adds one profile's blocks (index i of n) to byKey. A block
// listed more than once (several counter files) is reached when any of
// its lines counts.
func readProfile(path string, i, n int, module, prefix string, byKey map[string]*block) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if line == 1 {
			if !strings.HasPrefix(text, "mode: ") {
				return fmt.Errorf("%s:1: not a text coverage profile (want \"mode: ...\", got %q)", path, text)
			}
			continue
		}
		if text == "" {
			continue
		}
		key, rest, ok := strings.Cut(text, " ")
		fields := strings.Fields(rest)
		if !ok || len(fields) != 2 {
			return fmt.Errorf("%s:%d: want FILE:L.C,L.C STMTS COUNT, got %q", path, line, text)
		}
		file, pos, ok := strings.Cut(key, ":")
		if !ok {
			return fmt.Errorf("%s:%d: no position in %q", path, line, key)
		}
		rel, ok := strings.CutPrefix(file, module+"/")
		if !ok || !strings.HasPrefix(rel, prefix) {
			continue
		}
		b := byKey[key]
		if b == nil {
			b = &block{file: rel, hit: make([]bool, n)}
			if _, err := fmt.Sscanf(pos, "%d.%d,%d.%d", &b.startLine, &b.startCol, &b.endLine, &b.endCol); err != nil {
				return fmt.Errorf("%s:%d: position %q: %v", path, line, pos, err)
			}
			if b.stmts, err = strconv.Atoi(fields[0]); err != nil {
				return fmt.Errorf("%s:%d: statements %q: %v", path, line, fields[0], err)
			}
			byKey[key] = b
		}
		count, err := strconv.ParseInt(fields[1], 10, 64)
		if err != nil {
			return fmt.Errorf("%s:%d: count %q: %v", path, line, fields[1], err)
		}
		if count > 0 {
			b.hit[i] = true
		}
	}
	return sc.Err()
}

// parseFuncs lists a file's functions and methods with their extents.
func parseFuncs(path, rel string, n int) ([]*function, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var fns []*function
	for _, d := range f.Decls {
		if gd, ok := d.(*ast.GenDecl); ok {
			// Function literals in package-level initialisers (a registry
			// of closures): each is a function of its own.
			ast.Inspect(gd, func(node ast.Node) bool {
				fl, ok := node.(*ast.FuncLit)
				if !ok {
					return true
				}
				start, end := fset.Position(fl.Pos()), fset.Position(fl.End())
				fns = append(fns, &function{name: fmt.Sprintf("func@%d", start.Line), file: rel, line: start.Line, hit: make([]int, n),
					extent: [4]int{start.Line, start.Column, end.Line, end.Column}})
				return false
			})
			continue
		}
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		name := fd.Name.Name
		if fd.Recv != nil && len(fd.Recv.List) > 0 {
			name = recvName(fd.Recv.List[0].Type) + "." + name
		}
		start, end := fset.Position(fd.Pos()), fset.Position(fd.End())
		fns = append(fns, &function{name: name, file: rel, line: start.Line, hit: make([]int, n),
			extent: [4]int{start.Line, start.Column, end.Line, end.Column}})
	}
	return fns, nil
}

func recvName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return "(*" + recvName(t.X) + ")"
	case *ast.IndexExpr:
		return recvName(t.X)
	case *ast.IndexListExpr:
		return recvName(t.X)
	case *ast.Ident:
		return t.Name
	}
	return "?"
}

func enclosing(fns []*function, b *block) *function {
	for _, f := range fns {
		e := f.extent
		if before(e[0], e[1], b.startLine, b.startCol) && before(b.endLine, b.endCol, e[2], e[3]) {
			return f
		}
	}
	return nil
}

func before(l1, c1, l2, c2 int) bool { return l1 < l2 || (l1 == l2 && c1 <= c2) }

func pkgOf(file string) string { return filepath.ToSlash(filepath.Dir(file)) }

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func pct(n, d int) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(d))
}

// packageStats returns statements, reached per profile and in all, per package.
func (r *report) packageStats(pkg string) (stmts int, hit []int, union int) {
	hit = make([]int, len(r.names))
	for _, b := range r.blocks {
		if pkgOf(b.file) != pkg {
			continue
		}
		stmts += b.stmts
		for i, h := range b.hit {
			if h {
				hit[i] += b.stmts
			}
		}
		if b.covered {
			union += b.stmts
		}
	}
	return stmts, hit, union
}

func (r *report) writeReadme(w io.Writer, header string) {
	fmt.Fprintln(w, "# What the default campaign reaches in core/")
	fmt.Fprintln(w)
	if header != "" {
		fmt.Fprintln(w, header)
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "Statement coverage of the production code (`core/`) by a `simrun` built with `-cover`: a statement counts as reached when the campaign ran it at least once. Generated by `go run ./cmd/covreport` (`make coverage`); every block never run, with its source line, is in [`uncovered.md`](uncovered.md).")
	fmt.Fprintln(w)
	if len(r.skipped) > 0 && r.skipped[0] != "" {
		fmt.Fprintf(w, "Not counted (`-skip`): `%s`; by default the wall-mode env, which a simulation never runs.\n\n", strings.Join(r.skipped, "`, `"))
	}
	multi := len(r.names) > 1
	r.writePackageTable(w, multi)
	r.writeReasonTable(w)

	r.writeNeverEntered(w)
	if multi {
		r.writeBeyondBaseline(w)
	}
	r.writeLeastReached(w)
}

// writePackageTable is the per-package statement table, one column per
// profile (and, with several, their union and what only the later ones
// reached).
func (r *report) writePackageTable(w io.Writer, multi bool) {
	fmt.Fprint(w, "| package | statements |")
	for _, n := range r.names {
		fmt.Fprintf(w, " reached (%s) |", n)
	}
	if multi {
		fmt.Fprint(w, " reached (any) | only beyond the first |")
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, "|---|---|")
	for range r.names {
		fmt.Fprint(w, "---|")
	}
	if multi {
		fmt.Fprint(w, "---|---|")
	}
	fmt.Fprintln(w)
	var total, totalUnion int
	totalHit := make([]int, len(r.names))
	for _, pkg := range r.pkgs {
		stmts, hit, union := r.packageStats(pkg)
		total += stmts
		totalUnion += union
		fmt.Fprintf(w, "| `%s` | %d |", pkg, stmts)
		for i, h := range hit {
			totalHit[i] += h
			fmt.Fprintf(w, " %d (%s) |", h, pct(h, stmts))
		}
		if multi {
			fmt.Fprintf(w, " %d (%s) | %d |", union, pct(union, stmts), union-hit[0])
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "| all | %d |", total)
	for _, h := range totalHit {
		fmt.Fprintf(w, " %d (%s) |", h, pct(h, total))
	}
	if multi {
		fmt.Fprintf(w, " %d (%s) | %d |", totalUnion, pct(totalUnion, total), totalUnion-totalHit[0])
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w)
}

// writeNeverEntered lists, per package, the functions no profile entered.
func (r *report) writeNeverEntered(w io.Writer) {
	var never []*function
	for _, f := range r.funcs {
		if f.union == 0 {
			never = append(never, f)
		}
	}
	fmt.Fprintf(w, "## Functions never entered (%d of %d)\n\n", len(never), len(r.funcs))
	if len(never) == 0 {
		fmt.Fprintln(w, "None.")
	}
	for _, pkg := range r.pkgs {
		var names []string
		for _, f := range never {
			if pkgOf(f.file) == pkg {
				names = append(names, fmt.Sprintf("`%s` ([%s:%d](../../%s#L%d), %d)", f.name, filepath.Base(f.file), f.line, f.file, f.line, f.stmts))
			}
		}
		if len(names) > 0 {
			fmt.Fprintf(w, "- `%s`: %s\n", pkg, strings.Join(names, ", "))
		}
	}
	fmt.Fprintln(w)
}

// writeBeyondBaseline lists the blocks only the profiles after the first
// reached (BUGGIFY's, in make coverage).
func (r *report) writeBeyondBaseline(w io.Writer) {
	var only []*block
	for _, b := range r.blocks {
		if b.covered && !b.coveredByBaseline {
			only = append(only, b)
		}
	}
	fmt.Fprintf(w, "## Blocks reached only beyond `%s` (%d blocks, %d statements)\n\n", r.names[0], len(only), stmtsOf(only))
	if len(only) == 0 {
		fmt.Fprintln(w, "None.")
	}
	for _, b := range only {
		var by []string
		for i, h := range b.hit {
			if h {
				by = append(by, r.names[i])
			}
		}
		fmt.Fprintf(w, "- [%s:%d-%d](../../%s#L%d) `%s` (%d statements; %s)\n", b.file, b.startLine, b.endLine, b.file, b.startLine, b.fn.name, b.stmts, strings.Join(by, ", "))
	}
	fmt.Fprintln(w)
}

// writeLeastReached lists the entered functions that ran under half their
// statements, the most blocks never run first.
func (r *report) writeLeastReached(w io.Writer) {
	fmt.Fprintln(w, "## The least-reached functions (entered, under half their statements)")
	fmt.Fprintln(w)
	var low []*function
	for _, f := range r.funcs {
		if f.union > 0 && 2*f.union < f.stmts {
			low = append(low, f)
		}
	}
	sort.SliceStable(low, func(i, j int) bool { return len(low[i].uncovered) > len(low[j].uncovered) })
	if len(low) == 0 {
		fmt.Fprintln(w, "None.")
	} else {
		fmt.Fprintln(w, "| function | file | statements | reached (any) | blocks never run |")
		fmt.Fprintln(w, "|---|---|---|---|---|")
		for _, f := range low {
			fmt.Fprintf(w, "| `%s` | [%s:%d](../../%s#L%d) | %d | %d (%s) | %d |\n", f.name, f.file, f.line, f.file, f.line, f.stmts, f.union, pct(f.union, f.stmts), len(f.uncovered))
		}
	}
}

// writeReasonTable sums the statements never run by kind, and says by
// which rule each kind is decided.
func (r *report) writeReasonTable(w io.Writer) {
	byKind := map[string][2]int{} // blocks, statements
	for _, b := range r.blocks {
		if !b.covered {
			k := byKind[b.kindOf()]
			byKind[b.kindOf()] = [2]int{k[0] + 1, k[1] + b.stmts}
		}
	}
	fmt.Fprintln(w, "Why the statements never run are not run: each block never run gets its kind from the first rule that holds (`cmd/covreport`, rules.classify; each block with its kind and why in [`uncovered.md`](uncovered.md)), never from a label typed per block:")
	fmt.Fprintln(w)
	fmt.Fprintln(w, r.ruleText())
	fmt.Fprintln(w, "| kind | blocks | statements |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, k := range kindOrder {
		fmt.Fprintf(w, "| %s | %d | %d |\n", k, byKind[k][0], byKind[k][1])
	}
	fmt.Fprintln(w)
	total, reached := 0, 0
	for _, b := range r.blocks {
		total += b.stmts
		if b.covered {
			reached += b.stmts
		}
	}
	runnable := total - byKind[kindWall][1] - byKind[kindVariant][1]
	fmt.Fprintf(w, "Of the **%d** statements a simulation of the shipped defaults can run (all %d but the wall-only %d and the variant-only %d), the campaign reached **%d (%s)**; of the rest, %d are defensive (a test runs each and says why no simulation does) and **%d** a gap or defensive without a test.\n\n",
		runnable, total, byKind[kindWall][1], byKind[kindVariant][1], reached, pct(reached, runnable), byKind[kindDefensive][1], byKind[kindGap][1]+byKind[kindUntested][1])
}

// ruleText lists the rules as this report applied them.
func (r *report) ruleText() string {
	rs := r.rules
	if rs == nil {
		rs = &rules{unit: -1, control: -1}
	}
	var b strings.Builder
	wall := "none"
	if len(rs.wall) > 0 && rs.wall[0] != "" {
		wall = "`" + strings.Join(rs.wall, "`, `") + "`"
	}
	fmt.Fprintf(&b, "1. **wall-only**: a block of a wall-mode file (`-wall`: %s)", wall)
	if rs.linked != nil {
		b.WriteString(", or of a function the Go linker leaves out of `simrun` built with `-gcflags=all=-l` (`-linked`, `go tool nm`: no caller reachable from its main, inlining off so that no call hides; only tests and tools run it).\n")
	} else {
		b.WriteString("; the linker rule was not applied (no `-linked`).\n")
	}
	var vs []string
	for i, a := range r.asides {
		if i != rs.unit && i != rs.control {
			vs = append(vs, a)
		}
	}
	if len(vs) > 0 {
		control := ""
		if rs.control >= 0 {
			control = ", nor the control runs (`-control`: the same scenarios and seeds under the default values)"
		}
		fmt.Fprintf(&b, "2. **variant**: a block the %s run%s reached (`-aside`: runs beside the campaign, in make coverage each non-default value of every variant key and simrun list) and neither the campaign did%s.\n", strings.Join(vs, ", "), plural(len(vs)), control)
	} else {
		b.WriteString("2. **variant**: not applied (no `-aside` runs).\n")
	}
	dfile := "none"
	if rs.dfile != "" {
		dfile = "[`" + filepath.Base(rs.dfile) + "`](" + filepath.Base(rs.dfile) + ")"
	}
	unit := "the unit tests' coverage was not given (`-unit`), so the test is only checked to exist"
	if rs.unit >= 0 {
		unit = "`go test -coverpkg=./core/... ./core/...` (`-unit`) must run the block"
	}
	fmt.Fprintf(&b, "3. **defensive**: a block listed in %s by its function and first line, with why no simulation reaches it and the test that runs it; the test must exist and %s, else the block is **defensive (not run by a test)**.\n", dfile, unit)
	b.WriteString("4. **gap**: any other block never run: a simulation should reach it and the campaign does not.\n")
	return b.String()
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func stmtsOf(bs []*block) int {
	n := 0
	for _, b := range bs {
		n += b.stmts
	}
	return n
}

// writeUncovered lists every block no profile reached, by file, with the
// block's first source line.
func (r *report) writeUncovered(w io.Writer, root string) {
	fmt.Fprintln(w, "# Blocks of core/ the campaign never ran")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Every coverage block of `core/` that no profile of [`README.md`](README.md) reached, in source order, with the function it is in and its first line. Generated by `go run ./cmd/covreport`.")
	var cur string
	var src []string
	for _, b := range r.blocks {
		if b.covered {
			continue
		}
		if b.file != cur {
			cur = b.file
			src = readLines(filepath.Join(root, filepath.FromSlash(b.file)))
			fmt.Fprintf(w, "\n## %s\n\n", b.file)
		}
		first := ""
		if b.startLine-1 < len(src) {
			first = strings.TrimSpace(src[b.startLine-1])
			if len(first) > 100 {
				first = first[:100] + "..."
			}
		}
		why := b.kindOf()
		if b.class != nil && b.class.why != "" {
			why += ": " + b.class.why
		}
		fmt.Fprintf(w, "- [%d-%d](../../%s#L%d) `%s` (%d): `%s` — %s\n", b.startLine, b.endLine, b.file, b.startLine, b.fn.name, b.stmts,
			strings.ReplaceAll(first, "`", "'"), why)
	}
	var stale []string
	if r.rules != nil {
		for _, d := range r.rules.defensive {
			if !d.used {
				stale = append(stale, fmt.Sprintf("- %s:%d: `%s` `%s` `%s`", r.rules.dfile, d.line, d.file, d.fn, strings.ReplaceAll(d.first, "`", "'")))
			}
		}
	}
	if len(stale) > 0 {
		fmt.Fprintf(w, "\n## Defensive entries that hold no block never run (stale: the code moved or is reached now)\n\n%s\n", strings.Join(stale, "\n"))
	}
}

func readLines(path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	return strings.Split(string(data), "\n")
}
