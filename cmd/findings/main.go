// Command findings renders the findings ledger from the front matter of
// every results/findings/F<NNN>-*.md entry and from results/findings/
// maintainer.yaml (the hand-written prose and tables for SeaTunnel's
// maintainers, maintainer.go):
//
//   - results/findings/INDEX.md: the table of id, title, check, upstream
//     verdict and fix commit, and the count per verdict;
//
//   - results/findings/README.md: the one page a SeaTunnel maintainer reads
//     first (the findings that matter most to users, each with its verdict,
//     upstream location and one-seed repro; where each upstream commit the
//     ledger cites lives);
//
//   - in each entry with an upstream side, and in its upstream/NNN.md
//     report, a generated section between markers (the one-seed repro, where
//     the code read lives, the Java-level sequence a maintainer can turn into
//     a test).
//
//     go run ./cmd/findings                  # rewrite them
//     go run ./cmd/findings -check           # exit 1 if a committed one is stale
//
// An entry's front matter is the block between its first two "---" lines,
// one "key: value" per line. Every key of required must be present and
// non-empty; verdict is one of PRESENT, ABSENT, PORT-ONLY, UNCLEAR; the id
// matches the file name's prefix; a PRESENT entry names its report under
// upstream/, which must exist; an upstream-repro runs one seed
// (simrun replay --seed N ... --expect CHECK  # not with KEY=VALUE).
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// required are the front-matter keys every entry carries.
var required = []string{
	"id", "title", "symptom", "scenario", "seeds", "strategy", "buggify", "check",
	"found-by", "fix", "fix-in", "pinned-by", "mutant", "verdict",
	"upstream-commit", "upstream-where", "evidence", "report",
}

// verdicts in the order the index counts them.
var verdicts = []string{"PRESENT", "ABSENT", "PORT-ONLY", "UNCLEAR"}

var entryName = regexp.MustCompile(`^(F[0-9]{3})-[a-z0-9-]+\.md$`)

// Entry is one finding's front matter.
type Entry struct {
	File   string
	Fields map[string]string
}

func (e Entry) get(k string) string { return e.Fields[k] }

func main() {
	dir := flag.String("dir", "results/findings", "the ledger `directory`")
	check := flag.Bool("check", false, "do not write; exit 1 if a rendered file differs from what would be written")
	flag.Parse()
	files, err := RenderAll(*dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "findings:", err)
		os.Exit(2)
	}
	for _, f := range files {
		path := filepath.Join(*dir, f.Name)
		if *check {
			old, err := os.ReadFile(path)
			if err != nil || !bytes.Equal(old, f.Data) {
				fmt.Fprintf(os.Stderr, "findings: %s is stale: run go run ./cmd/findings (or make findings)\n", path)
				os.Exit(1)
			}
			continue
		}
		if err := os.WriteFile(path, f.Data, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "findings:", err)
			os.Exit(2)
		}
	}
}

// Load reads and validates every entry of dir (F<digit>*.md), in id order.
func Load(dir string) ([]Entry, error) {
	names, err := filepath.Glob(filepath.Join(dir, "F[0-9]*.md"))
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	var entries []Entry
	var errs []error
	seen := map[string]string{}
	for _, name := range names {
		e, err := loadEntry(dir, name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if prev, ok := seen[e.get("id")]; ok {
			errs = append(errs, fmt.Errorf("%s: id %s already used by %s", e.File, e.get("id"), prev))
		}
		seen[e.get("id")] = e.File
		entries = append(entries, e)
	}
	if len(entries) == 0 && len(errs) == 0 {
		errs = append(errs, fmt.Errorf("%s: no F*.md entries", dir))
	}
	return entries, errors.Join(errs...)
}

func loadEntry(dir, name string) (Entry, error) {
	base := filepath.Base(name)
	m := entryName.FindStringSubmatch(base)
	if m == nil {
		return Entry{}, fmt.Errorf("%s: file name is not F<NNN>-<short-name>.md", base)
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return Entry{}, err
	}
	fields, err := FrontMatter(string(data))
	if err != nil {
		return Entry{}, fmt.Errorf("%s: %w", base, err)
	}
	e := Entry{File: base, Fields: fields}
	return e, validate(dir, e, m[1])
}

// FrontMatter parses the block between the first two "---" lines.
func FrontMatter(text string) (map[string]string, error) {
	lines := strings.Split(text, "\n")
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != "---" {
		return nil, errors.New("no front matter (first line is not ---)")
	}
	fields := map[string]string{}
	for i, line := range lines[1:] {
		if strings.TrimSpace(line) == "---" {
			return fields, nil
		}
		k, v, ok := strings.Cut(line, ":")
		k = strings.TrimSpace(k)
		if !ok || k == "" || strings.Contains(k, " ") {
			return nil, fmt.Errorf("front matter line %d: want key: value, got %q", i+2, line)
		}
		if _, dup := fields[k]; dup {
			return nil, fmt.Errorf("front matter line %d: key %q twice", i+2, k)
		}
		fields[k] = strings.TrimSpace(v)
	}
	return nil, errors.New("front matter not closed by ---")
}

func validate(dir string, e Entry, id string) error {
	var errs []error
	for _, k := range required {
		if e.get(k) == "" {
			errs = append(errs, fmt.Errorf("%s: missing %s", e.File, k))
		}
	}
	if e.get("id") != "" && e.get("id") != id {
		errs = append(errs, fmt.Errorf("%s: id %s does not match the file name", e.File, e.get("id")))
	}
	v := e.get("verdict")
	if v != "" && !slices.Contains(verdicts, v) {
		errs = append(errs, fmt.Errorf("%s: verdict %q is not one of %s", e.File, v, strings.Join(verdicts, ", ")))
	}
	if rp := e.get("upstream-repro"); rp != "" {
		if _, err := ParseRepro(rp); err != nil {
			errs = append(errs, fmt.Errorf("%s: upstream-repro: %w", e.File, err))
		}
	}
	r := e.get("report")
	switch {
	case v == "PRESENT" && !strings.HasPrefix(r, "upstream/"):
		errs = append(errs, fmt.Errorf("%s: a PRESENT finding needs report: upstream/NNN.md", e.File))
	case strings.HasPrefix(r, "upstream/"):
		if _, err := os.Stat(filepath.Join(dir, r)); err != nil {
			errs = append(errs, fmt.Errorf("%s: report %s: %w", e.File, r, err))
		}
	case r != "none":
		errs = append(errs, fmt.Errorf("%s: report is upstream/NNN.md or none, got %q", e.File, r))
	}
	return errors.Join(errs...)
}

// Render writes the index (INDEX.md): a header, the count per verdict and
// the table.
func Render(entries []Entry) []byte {
	var b bytes.Buffer
	b.WriteString(header)
	counts := map[string]int{}
	for _, e := range entries {
		counts[e.get("verdict")]++
	}
	fmt.Fprintf(&b, "%d findings:", len(entries))
	for i, v := range verdicts {
		sep := ","
		if i == len(verdicts)-1 {
			sep = "."
		}
		fmt.Fprintf(&b, " %s %d%s", v, counts[v], sep)
	}
	b.WriteString("\n\n| id | title | check | upstream verdict | fix commit | upstream report |\n|---|---|---|---|---|---|\n")
	for _, e := range entries {
		report := "–"
		if r := e.get("report"); r != "none" {
			report = fmt.Sprintf("[%s](%s)", strings.TrimSuffix(filepath.Base(r), ".md"), r)
		}
		fmt.Fprintf(&b, "| [%s](%s) | %s | %s | %s | `%s` | %s |\n",
			e.get("id"), e.File, cell(e.get("title")), cell(e.get("check")),
			e.get("verdict"), cell(e.get("fix")), report)
	}
	return b.Bytes()
}

// cell keeps a value from breaking the table.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

const header = `# Findings ledger: the index

<!-- Generated by go run ./cmd/findings (make findings) from the front matter of the F*.md entries; do not edit. -->

For SeaTunnel's maintainers, [README.md](README.md) is the page to read first.

One entry per bug fixed in ` + "`core/`" + `: what went wrong in the port, how a campaign or a test found
it, the fix and what pins it, and whether the same sequence can happen in Apache SeaTunnel Zeta's
Java code (the upstream verdict, with the commit, files and lines read). Verdicts:
**PRESENT** (the same sequence can happen upstream: the entry names the interleaving and
` + "`upstream/NNN.md`" + ` is a report for SeaTunnel's maintainers), **ABSENT** (what upstream has that
prevents it), **PORT-ONLY** (introduced by a design choice of the port), **UNCLEAR** (what would
decide it). How each upstream class and method maps to the port, and every deviation:
[FIDELITY.md](FIDELITY.md).

`
