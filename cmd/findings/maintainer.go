package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"
)

// maintainerFile is the hand-written input beside the entries: the prose
// of README.md, the findings that matter most, where each upstream commit
// lives and the Java-level sequences.
const maintainerFile = "maintainer.yaml"

// Maintainer is maintainer.yaml.
type Maintainer struct {
	// Intro opens README.md (Markdown).
	Intro string `yaml:"intro"`
	// Top are the findings that matter most to SeaTunnel's users, in the
	// order README.md lists them.
	Top []Top `yaml:"top"`
	// Commits are the upstream commits the ledger cites and where each
	// lives (branch, pull request or release), or that this is unknown.
	Commits []Commit `yaml:"commits"`
	// Java holds, by finding id, the Java-level sequence a maintainer can
	// turn into a test.
	Java map[string]Java `yaml:"java"`
	// Scheduler names the PRESENT findings that lie in the checkpoint
	// scheduler (their reports carry a stress reproduction on upstream's
	// own classes instead of a sequence here).
	Scheduler []string `yaml:"scheduler"`
	// NoRepro says, by finding id, why a PRESENT finding has no one-seed
	// reproduction under the upstream profile.
	NoRepro map[string]string `yaml:"no-repro"`
}

// Top is one finding README.md puts first.
type Top struct {
	ID     string `yaml:"id"`
	Impact string `yaml:"impact"` // what a user sees: a hung savepoint, a lost checkpoint, a wrong restore
	Why    string `yaml:"why"`    // why it matters, in a sentence or two
	Where  string `yaml:"where"`  // the upstream location in short (class.method, file:line)
}

// Commit is one upstream commit the ledger cites.
type Commit struct {
	Commit string `yaml:"commit"` // the hash (full where it is known)
	Repo   string `yaml:"repo"`
	Read   string `yaml:"read"`  // the files read at it
	Lives  string `yaml:"lives"` // branch, pull request or release, or what is not known
}

// Java is the shortest Java-level sequence for one finding.
type Java struct {
	Commit string `yaml:"commit"` // the commit the lines are of
	File   string `yaml:"file"`   // the main file (path under the repository)
	Setup  string `yaml:"setup"`  // what the test builds first
	Steps  []Step `yaml:"steps"`
	Assert string `yaml:"assert"` // what the test then asserts
}

// Step is one call of the sequence.
type Step struct {
	Thread string `yaml:"thread"`
	Call   string `yaml:"call"`  // Class.method
	At     string `yaml:"at"`    // file:line at the commit
	Holds  string `yaml:"holds"` // the monitor or lock held while it runs ("none")
	Does   string `yaml:"does"`
}

// File is one rendered file, by its path under the ledger directory.
type File struct {
	Name string
	Data []byte
}

// LoadMaintainer reads and checks dir/maintainer.yaml against the entries.
func LoadMaintainer(dir string, entries []Entry) (Maintainer, error) {
	var m Maintainer
	data, err := os.ReadFile(filepath.Join(dir, maintainerFile))
	if err != nil {
		return m, err
	}
	if err := yaml.UnmarshalWithOptions(data, &m, yaml.Strict()); err != nil {
		return m, fmt.Errorf("%s: %w", maintainerFile, err)
	}
	byID := map[string]Entry{}
	for _, e := range entries {
		byID[e.get("id")] = e
	}
	var errs []error
	bad := func(format string, a ...any) {
		errs = append(errs, fmt.Errorf(maintainerFile+": "+format, a...))
	}
	for _, t := range m.Top {
		if _, ok := byID[t.ID]; !ok {
			bad("top: no entry %s", t.ID)
		}
		if t.Impact == "" || t.Why == "" || t.Where == "" {
			bad("top %s: impact, why and where are required", t.ID)
		}
	}
	for id, j := range m.Java {
		e, ok := byID[id]
		switch {
		case !ok:
			bad("java: no entry %s", id)
		case e.get("verdict") != "PRESENT":
			bad("java %s: the entry's verdict is %s, not PRESENT", id, e.get("verdict"))
		}
		if j.Commit == "" || j.File == "" || len(j.Steps) == 0 || j.Assert == "" {
			bad("java %s: commit, file, steps and assert are required", id)
		}
		if m.commit(j.Commit) == nil {
			bad("java %s: commit %s is not in commits", id, j.Commit)
		}
		for i, s := range j.Steps {
			if s.Thread == "" || s.Call == "" || s.At == "" || s.Holds == "" || s.Does == "" {
				bad("java %s step %d: thread, call, at, holds and does are required", id, i+1)
			}
		}
	}
	for _, c := range m.Commits {
		if len(hashPrefix(c.Commit)) < 8 || c.Repo == "" || c.Read == "" || c.Lives == "" {
			bad("commit %q: a hash of at least 8 digits, repo, read and lives are required", c.Commit)
		}
	}
	for _, e := range entries {
		if h := hashPrefix(e.get("upstream-commit")); h != "" && m.commit(h) == nil {
			bad("%s's upstream-commit %s is not in commits", e.get("id"), h)
		}
		if e.get("verdict") == "PRESENT" && e.get("upstream-repro") == "" && m.NoRepro[e.get("id")] == "" {
			bad("%s is PRESENT with no upstream-repro: say why under no-repro", e.get("id"))
		}
	}
	for _, id := range m.Scheduler {
		if _, ok := byID[id]; !ok {
			bad("scheduler: no entry %s", id)
		}
	}
	return m, errors.Join(errs...)
}

// commit finds the commit whose hash begins with prefix.
func (m Maintainer) commit(prefix string) *Commit {
	for i, c := range m.Commits {
		if prefix != "" && strings.HasPrefix(c.Commit, prefix) {
			return &m.Commits[i]
		}
	}
	return nil
}

// hashPrefix is the leading hex hash of s ("" if s does not start with one
// of at least 7 digits).
func hashPrefix(s string) string {
	n := 0
	for n < len(s) && strings.ContainsRune("0123456789abcdef", rune(s[n])) {
		n++
	}
	if n < 7 {
		return ""
	}
	return s[:n]
}

// Repro is an entry's upstream-repro: one seed of simrun replay under a
// profile, --expect the finding's check, and the variant that models the
// fix.
type Repro struct {
	Args  []string // after "simrun"
	Check string
	Seed  string
	Fix   string // KEY=VALUE
}

// ParseRepro parses "simrun replay ARGS --expect CHECK  # not with K=V":
// one --seed, no --seeds, a --profile, one check.
func ParseRepro(v string) (Repro, error) {
	cmd, note, _ := strings.Cut(v, "#")
	f := strings.Fields(cmd)
	r := Repro{Fix: strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(note), "not with "))}
	count := func(flag string) (string, int) {
		val, n := "", 0
		for i, a := range f {
			if a == flag && i+1 < len(f) {
				val, n = f[i+1], n+1
			}
		}
		return val, n
	}
	var nSeed, nExpect int
	r.Seed, nSeed = count("--seed")
	r.Check, nExpect = count("--expect")
	if len(f) < 2 || f[0] != "simrun" || f[1] != "replay" || !slices.Contains(f, "--profile") ||
		slices.Contains(f, "--seeds") || nSeed != 1 || nExpect != 1 || strings.Contains(r.Check, ",") ||
		!strings.Contains(r.Fix, "=") {
		return r, fmt.Errorf("%q: want simrun replay --scenario S --seed N --profile NAME ... --expect CHECK  # not with KEY=VALUE", strings.TrimSpace(v))
	}
	r.Args = f[1:]
	return r, nil
}

// Command is the repro as a maintainer types it.
func (r Repro) Command() string { return "go run ./cmd/simrun " + strings.Join(r.Args, " ") }

// RenderAll renders every file the ledger's generator owns.
func RenderAll(dir string) ([]File, error) {
	entries, err := Load(dir)
	if err != nil {
		return nil, err
	}
	m, err := LoadMaintainer(dir, entries)
	if err != nil {
		return nil, err
	}
	files := []File{
		{"INDEX.md", Render(entries)},
		{"README.md", RenderReadme(entries, m)},
	}
	for _, e := range entries {
		sec := Section(e, m)
		if sec == "" {
			continue
		}
		pages := []string{e.File}
		if r := e.get("report"); strings.HasPrefix(r, "upstream/") {
			pages = append(pages, r)
		}
		for _, p := range pages {
			old, err := os.ReadFile(filepath.Join(dir, p))
			if err != nil {
				return nil, err
			}
			link := ""
			if p != e.File {
				link = "../"
			}
			out, err := withSection(old, strings.ReplaceAll(sec, "](upstream/", "]("+link+"upstream/"))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", p, err)
			}
			files = append(files, File{p, out})
		}
	}
	return files, nil
}

const (
	sectionBegin = "<!-- BEGIN generated by go run ./cmd/findings from maintainer.yaml and the front matter; do not edit -->"
	sectionEnd   = "<!-- END generated -->"
)

// withSection replaces the generated section of a hand-written page, or
// appends it when the page has none.
func withSection(page []byte, sec string) ([]byte, error) {
	block := sectionBegin + "\n\n" + sec + "\n" + sectionEnd + "\n"
	i := bytes.Index(page, []byte(sectionBegin))
	if i < 0 {
		out := bytes.TrimRight(page, "\n")
		return append(append(out, "\n\n"...), block...), nil
	}
	j := bytes.Index(page[i:], []byte(sectionEnd))
	if j < 0 {
		return nil, errors.New("generated section not closed by " + sectionEnd)
	}
	rest := page[i+j+len(sectionEnd):]
	rest = bytes.TrimPrefix(rest, []byte("\n"))
	out := append(slices.Clone(page[:i]), block...)
	return append(out, rest...), nil
}

// Section is the generated section of an entry with an upstream side: the
// one-seed repro, where the code read lives and the Java-level sequence.
// It is "" for an entry with none of them.
func Section(e Entry, m Maintainer) string {
	id := e.get("id")
	j, hasJava := m.Java[id]
	rp := e.get("upstream-repro")
	if e.get("verdict") != "PRESENT" && rp == "" && !hasJava {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## For a SeaTunnel maintainer\n\n")
	if rp != "" {
		r, _ := ParseRepro(rp)
		fmt.Fprintf(&b, "**One-seed reproduction** (the Go port with upstream's behaviour where the two differ, "+
			"`--profile upstream`; not a SeaTunnel build):\n\n```sh\n%s\n```\n\n", r.Command())
		fmt.Fprintf(&b, "Its first line is `reproduced: %s fired (...)` and it exits 0; other checks of the profile may fire "+
			"too, and the exit code answers only for `%s`. With the fix modelled (`--variant %s` added) the first line is "+
			"`not reproduced: none of %s fired (...)` and it exits 1. `TestUpstreamRepros` (cmd/simrun) keeps both true.\n\n",
			r.Check, r.Check, r.Fix, r.Check)
	} else if why := m.NoRepro[id]; why != "" {
		fmt.Fprintf(&b, "**No one-seed reproduction under the upstream profile:** %s\n\n", oneLine(why))
	}
	if c := m.commit(hashPrefix(e.get("upstream-commit"))); c != nil {
		fmt.Fprintf(&b, "**Upstream code read** at `%s` (%s): %s\n\n", c.Commit[:8], c.Repo, oneLine(c.Lives))
	}
	switch {
	case hasJava:
		writeJava(&b, j)
	case slices.Contains(m.Scheduler, id):
		b.WriteString("**A Java test:** this finding lies in the checkpoint scheduler; its report's \"How to reproduce\" " +
			"runs a stress reproduction on upstream's own classes.\n")
	case e.get("verdict") == "PRESENT":
		b.WriteString("**A Java test:** no Java-level sequence is written for this finding yet; the report's " +
			"sequence is the starting point.\n")
	}
	return b.String()
}

func writeJava(b *strings.Builder, j Java) {
	fmt.Fprintf(b, "**A Java test** (lines of `%s` at `%s` unless a step names another file):\n\n", j.File, j.Commit[:8])
	fmt.Fprintf(b, "Setup: %s\n\n", oneLine(j.Setup))
	b.WriteString("| # | thread | call | at | monitor held | what happens |\n|---|---|---|---|---|---|\n")
	for i, s := range j.Steps {
		call := s.Call
		if !strings.Contains(call, " ") {
			call = "`" + call + "`"
		}
		fmt.Fprintf(b, "| %d | %s | %s | %s | %s | %s |\n", i+1, cell(s.Thread), cell(call), cell(s.At), cell(s.Holds), cell(oneLine(s.Does)))
	}
	fmt.Fprintf(b, "\nAssert: %s\n", oneLine(j.Assert))
}

// oneLine joins a folded YAML paragraph into one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// RenderReadme is results/findings/README.md: the page for SeaTunnel's
// maintainers.
func RenderReadme(entries []Entry, m Maintainer) []byte {
	byID := map[string]Entry{}
	counts := map[string]int{}
	for _, e := range entries {
		byID[e.get("id")] = e
		counts[e.get("verdict")]++
	}
	var b strings.Builder
	b.WriteString("# Findings for Apache SeaTunnel's maintainers\n\n")
	b.WriteString("<!-- Generated by go run ./cmd/findings (make findings) from maintainer.yaml and the front matter of the F*.md entries; do not edit. -->\n\n")
	b.WriteString(strings.TrimSpace(m.Intro) + "\n\n")
	fmt.Fprintf(&b, "The ledger holds %d findings: PRESENT %d, ABSENT %d, PORT-ONLY %d, UNCLEAR %d "+
		"(every one in [INDEX.md](INDEX.md)).\n\n", len(entries), counts["PRESENT"], counts["ABSENT"], counts["PORT-ONLY"], counts["UNCLEAR"])
	b.WriteString("## What matters most to SeaTunnel users\n\n")
	for i, t := range m.Top {
		e := byID[t.ID]
		fmt.Fprintf(&b, "%d. **[%s](%s): %s** — *%s*, verdict **%s**.\n", i+1, t.ID, e.File, e.get("title"), t.Impact, e.get("verdict"))
		fmt.Fprintf(&b, "   %s\n", oneLine(t.Why))
		where := t.Where
		if c := m.commit(hashPrefix(e.get("upstream-commit"))); c != nil {
			where += fmt.Sprintf(" at `%s`", c.Commit[:8])
		}
		fmt.Fprintf(&b, "   Upstream: %s.", where)
		if r := e.get("report"); strings.HasPrefix(r, "upstream/") {
			fmt.Fprintf(&b, " Report: [%s](%s).", strings.TrimSuffix(filepath.Base(r), ".md"), r)
		}
		if _, ok := m.Java[t.ID]; ok {
			fmt.Fprintf(&b, " A Java test: [its sequence](%s#for-a-seatunnel-maintainer).", e.File)
		}
		b.WriteString("\n")
		if rp := e.get("upstream-repro"); rp != "" {
			r, _ := ParseRepro(rp)
			fmt.Fprintf(&b, "   Repro (one seed; first line `reproduced: %s fired`, exit 0; with `--variant %s`, exit 1):\n"+
				"   `%s`\n", r.Check, r.Fix, r.Command())
		} else if why := m.NoRepro[t.ID]; why != "" {
			fmt.Fprintf(&b, "   No one-seed repro under the upstream profile: %s\n", oneLine(why))
		}
		b.WriteString("\n")
	}
	b.WriteString("## The other PRESENT findings\n\n| id | title | one-seed repro checks | report |\n|---|---|---|---|\n")
	for _, e := range entries {
		if e.get("verdict") != "PRESENT" || slices.ContainsFunc(m.Top, func(t Top) bool { return t.ID == e.get("id") }) {
			continue
		}
		check := "–"
		if rp := e.get("upstream-repro"); rp != "" {
			r, _ := ParseRepro(rp)
			check = "`" + r.Check + "`"
		}
		fmt.Fprintf(&b, "| [%s](%s) | %s | %s | [%s](%s) |\n", e.get("id"), e.File, cell(e.get("title")), check,
			strings.TrimSuffix(filepath.Base(e.get("report")), ".md"), e.get("report"))
	}
	b.WriteString("\nEach page's section \"For a SeaTunnel maintainer\" has the one-seed command.\n\n")
	b.WriteString("## Where the upstream commits live\n\n| commit | repository | read there | where it lives |\n|---|---|---|---|\n")
	for _, c := range m.Commits {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", c.Commit[:8], c.Repo, cell(oneLine(c.Read)), cell(oneLine(c.Lives)))
	}
	b.WriteString("\nHow each upstream class and method maps to the port, and every deviation: [FIDELITY.md](FIDELITY.md).\n")
	return []byte(b.String())
}
