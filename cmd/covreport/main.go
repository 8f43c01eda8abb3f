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
//	go run ./cmd/covreport -profile off=OFF.txt -profile on=ON.txt -out results/coverage
//
// which writes results/coverage/README.md (the tables) and uncovered.md
// (every block never run, with its first source line and why it is never
// run: the reason results/coverage/reasons.txt gives its line range,
// wall-only, defensive or gap, or "gap (no reason yet)"), atomically. The
// first profile is the baseline; a block counts as reached by a profile
// when any of its counters is non-zero.
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
	reason                     *reason // why it is never run (annotate); nil: none given
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
	reasonsPath := flag.String("reasons", "results/coverage/reasons.txt",
		"why blocks are never run: lines `PATH:FIRST-LAST KIND REASON` (KIND wall-only, defensive or gap); a missing file annotates nothing")
	skip := flag.String("skip", "core/env/wall.go,core/env/precise.go,core/env/default_linux.go,core/env/default_other.go",
		"comma-separated module-relative files not counted (the wall-mode env: a simulation never runs it)")
	flag.Parse()
	if len(profiles) == 0 {
		fmt.Fprintln(os.Stderr, "covreport: at least one -profile NAME=FILE")
		os.Exit(64)
	}
	r, err := build(profiles, asides, *module, *root, *prefix, strings.Split(*skip, ","))
	if err != nil {
		fmt.Fprintln(os.Stderr, "covreport:", err)
		os.Exit(1)
	}
	if err := r.annotate(*reasonsPath); err != nil {
		fmt.Fprintln(os.Stderr, "covreport:", err)
		os.Exit(1)
	}
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

// report is the parsed profiles over the source tree.
type report struct {
	skipped []string
	names   []string
	asides  []string // -aside profiles: read, shown, never counted as reached
	blocks  []*block
	funcs   []*function
	pkgs    []string
	reasons []*reason // annotate; nil: none read
	rfile   string    // where they came from
}

// reason says why the blocks in a line range of a file are never run.
type reason struct {
	file        string
	first, last int
	kind        string // one of reasonKinds
	text        string
	line        int // in the reasons file
	used        bool
}

// The kinds of reason: code only wall mode or tools run (the OS file
// system, command-line parsing), code that runs only under a variant
// key's non-default value (upstream's or a hazard's behaviour kept as a
// value; the default campaign runs the shipped defaults), a defensive
// branch the design keeps unreachable (a nil check of a required
// argument, an impossible error), or a gap: code a simulation should
// reach and does not yet.
var reasonKinds = []string{"wall-only", "variant", "defensive", "gap"}

// unverified is the kind of a block whose reason says variant while the
// -aside runs (the variants' own campaign) did not reach it either: the
// claim is not shown, so the block counts with the gaps.
const unverified = "variant (not reached by the variant runs)"

// unannotated is the kind of a block never run that no reason covers.
const unannotated = "gap (no reason yet)"

// readReasons parses a reasons file: one `PATH:FIRST-LAST KIND REASON`
// per line (PATH module-relative, FIRST-LAST source lines, inclusive;
// `PATH:N` is one line); blank lines and lines starting with # are
// skipped. A missing file is no reasons.
func readReasons(path string) ([]*reason, error) {
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []*reason
	for i, text := range strings.Split(string(data), "\n") {
		text = strings.TrimSpace(text)
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fields := strings.SplitN(text, " ", 3)
		if len(fields) < 3 || strings.TrimSpace(fields[2]) == "" {
			return nil, fmt.Errorf("%s:%d: want PATH:FIRST-LAST KIND REASON, got %q", path, i+1, text)
		}
		file, lines, ok := strings.Cut(fields[0], ":")
		if !ok {
			return nil, fmt.Errorf("%s:%d: no line range in %q", path, i+1, fields[0])
		}
		r := &reason{file: file, kind: fields[1], text: strings.TrimSpace(fields[2]), line: i + 1}
		a, b, isRange := strings.Cut(lines, "-")
		if r.first, err = strconv.Atoi(a); err == nil {
			r.last = r.first
			if isRange {
				r.last, err = strconv.Atoi(b)
			}
		}
		if err != nil || r.first <= 0 || r.last < r.first {
			return nil, fmt.Errorf("%s:%d: bad line range %q", path, i+1, lines)
		}
		if !slices.Contains(reasonKinds, r.kind) {
			return nil, fmt.Errorf("%s:%d: kind %q: want one of %s", path, i+1, r.kind, strings.Join(reasonKinds, ", "))
		}
		out = append(out, r)
	}
	return out, nil
}

// annotate reads the reasons file and gives each block never run the
// first reason whose range holds it.
func (r *report) annotate(path string) error {
	rs, err := readReasons(path)
	if err != nil {
		return err
	}
	r.reasons, r.rfile = rs, path
	for _, b := range r.blocks {
		if b.covered {
			continue
		}
		for _, rs := range r.reasons {
			if rs.file == b.file && rs.first <= b.startLine && b.endLine <= rs.last {
				b.reason, rs.used = rs, true
				break
			}
		}
	}
	return nil
}

// kindOf is a block's reason kind (unannotated without one). With -aside
// profiles, a variant block none of them reached is unverified.
func (b *block) kindOf() string {
	if b.reason == nil {
		return unannotated
	}
	if b.reason.kind == "variant" && len(b.aside) > 0 && !slices.Contains(b.aside, true) {
		return unverified
	}
	return b.reason.kind
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

// writeReasonTable sums the statements never run by reason kind.
func (r *report) writeReasonTable(w io.Writer) {
	byKind := map[string][2]int{} // blocks, statements
	for _, b := range r.blocks {
		if !b.covered {
			k := byKind[b.kindOf()]
			byKind[b.kindOf()] = [2]int{k[0] + 1, k[1] + b.stmts}
		}
	}
	src := "no reasons file"
	if r.rfile != "" {
		src = fmt.Sprintf("`%s`", r.rfile)
	}
	fmt.Fprintf(w, "Why the statements never run are not run (%s; each block with its reason in [`uncovered.md`](uncovered.md)): wall-only (only wall mode or tools run it), variant (runs only under a variant key's non-default value, which the default campaign never sets%s), defensive (kept unreachable by design), gap (a simulation should reach it and does not yet).\n\n", src, r.asideNote())
	fmt.Fprintln(w, "| reason | blocks | statements |")
	fmt.Fprintln(w, "|---|---|---|")
	kinds := append(slices.Clone(reasonKinds), unannotated)
	if len(r.asides) > 0 {
		kinds = append(kinds, unverified)
	}
	for _, k := range kinds {
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
	runnable := total - byKind["wall-only"][1] - byKind["variant"][1]
	fmt.Fprintf(w, "Of the **%d** statements a simulation of the shipped defaults can run (all %d but the wall-only %d and the variant-only %d), the campaign reached **%d (%s)**; every statement not reached and not wall-only or variant-only is a defensive branch or a gap above.\n\n",
		runnable, total, byKind["wall-only"][1], byKind["variant"][1], reached, pct(reached, runnable))
}

// asideNote says how the variant reasons were checked.
func (r *report) asideNote() string {
	if len(r.asides) == 0 {
		return "; not checked here: no -aside profile"
	}
	return fmt.Sprintf("; each such block is reached by the %s run%s, else it counts as %q", strings.Join(r.asides, ", "), plural(len(r.asides)), unverified)
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
		why := unannotated
		if b.reason != nil {
			why = b.kindOf() + ": " + b.reason.text
		}
		fmt.Fprintf(w, "- [%d-%d](../../%s#L%d) `%s` (%d): `%s` — %s\n", b.startLine, b.endLine, b.file, b.startLine, b.fn.name, b.stmts,
			strings.ReplaceAll(first, "`", "'"), why)
	}
	var stale []string
	for _, rs := range r.reasons {
		if !rs.used {
			stale = append(stale, fmt.Sprintf("- %s:%d: `%s:%d-%d %s` %s", r.rfile, rs.line, rs.file, rs.first, rs.last, rs.kind, rs.text))
		}
	}
	if len(stale) > 0 {
		fmt.Fprintf(w, "\n## Reasons that hold no block never run (stale: the code moved or is reached now)\n\n%s\n", strings.Join(stale, "\n"))
	}
}

func readLines(path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	return strings.Split(string(data), "\n")
}
