package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIndexIsCurrent fails when a file the generator owns (INDEX.md,
// README.md, the generated sections of the entries and reports) is not
// what the entries' front matter and maintainer.yaml render (an entry
// added or changed without go run ./cmd/findings), or when an entry or
// maintainer.yaml does not validate.
func TestIndexIsCurrent(t *testing.T) {
	dir := filepath.Join("..", "..", "results", "findings")
	files, err := RenderAll(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		got, err := os.ReadFile(filepath.Join(dir, f.Name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, f.Data) {
			t.Errorf("results/findings/%s is stale: run go run ./cmd/findings (or make findings)", f.Name)
		}
	}
}

// TestReadmeForMaintainers: the README a maintainer reads first lists each
// finding that matters most with its verdict, upstream location, one-seed
// repro (or why there is none) and page; every PRESENT finding's page
// carries its generated section; and every upstream commit an entry cites
// has where it lives.
func TestReadmeForMaintainers(t *testing.T) {
	dir := filepath.Join("..", "..", "results", "findings")
	entries, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := LoadMaintainer(dir, entries)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Top) < 5 {
		t.Errorf("README lists %d findings that matter most, want at least 5", len(m.Top))
	}
	readme := string(RenderReadme(entries, m))
	byID := map[string]Entry{}
	for _, e := range entries {
		byID[e.get("id")] = e
	}
	for _, top := range m.Top {
		e := byID[top.ID]
		for _, want := range []string{"[" + top.ID + "](" + e.File + ")", "verdict **" + e.get("verdict") + "**"} {
			if !strings.Contains(readme, want) {
				t.Errorf("README lacks %q", want)
			}
		}
		if rp := e.get("upstream-repro"); rp != "" {
			r, _ := ParseRepro(rp)
			if !strings.Contains(readme, "`"+r.Command()+"`") {
				t.Errorf("README lacks %s's one-seed repro %q", top.ID, r.Command())
			}
		}
	}
	for _, e := range entries {
		if e.get("verdict") != "PRESENT" {
			continue
		}
		if sec := Section(e, m); !strings.Contains(sec, "**Upstream code read** at") {
			t.Errorf("%s: its generated section does not say where the upstream commit lives:\n%s", e.get("id"), sec)
		}
	}
}

func TestParseRepro(t *testing.T) {
	r, err := ParseRepro("simrun replay --scenario smoke --seed 2 --profile upstream --expect checkpoint-progress  # not with restore-load=retries")
	if err != nil {
		t.Fatal(err)
	}
	if r.Seed != "2" || r.Check != "checkpoint-progress" || r.Fix != "restore-load=retries" ||
		r.Command() != "go run ./cmd/simrun replay --scenario smoke --seed 2 --profile upstream --expect checkpoint-progress" {
		t.Errorf("got %+v", r)
	}
	for _, bad := range []string{
		"simrun run --scenario smoke --seed 2 --profile upstream --expect c  # not with k=v",              // a campaign
		"simrun replay --scenario smoke --seeds 1 --seed 2 --profile upstream --expect c  # not with k=v", // --seeds
		"simrun replay --scenario smoke --profile upstream --expect c  # not with k=v",                    // no seed
		"simrun replay --scenario smoke --seed 2 --profile upstream  # not with k=v",                      // no check
		"simrun replay --scenario smoke --seed 2 --profile upstream --expect a,b  # not with k=v",         // two checks
		"simrun replay --scenario smoke --seed 2 --expect c  # not with k=v",                              // no profile
		"simrun replay --scenario smoke --seed 2 --profile upstream --expect c",                           // no fix
	} {
		if _, err := ParseRepro(bad); err == nil {
			t.Errorf("ParseRepro(%q) accepted", bad)
		}
	}
}

func TestFrontMatter(t *testing.T) {
	f, err := FrontMatter("---\nid: F001\ntitle: a: b\n---\nbody\n")
	if err != nil {
		t.Fatal(err)
	}
	if f["id"] != "F001" || f["title"] != "a: b" {
		t.Fatalf("got %v", f)
	}
	for _, bad := range []string{
		"id: F001\n",                   // no opening line
		"---\nid: F001\n",              // not closed
		"---\nid F001\n---\n",          // no colon
		"---\nid: F001\nid: F002\n---", // key twice
		"---\nan id: F001\n---\n",      // key with a space
	} {
		if _, err := FrontMatter(bad); err == nil {
			t.Errorf("FrontMatter(%q) accepted", bad)
		}
	}
}

// entry writes a valid entry with the given fields overridden ("" drops one).
func entry(t *testing.T, dir, name string, over map[string]string) {
	t.Helper()
	var b strings.Builder
	b.WriteString("---\n")
	for _, k := range required {
		v := "x"
		switch k {
		case "id":
			v = name[:4]
		case "verdict":
			v = "ABSENT"
		case "report":
			v = "none"
		}
		if o, ok := over[k]; ok {
			v = o
		}
		if v != "" {
			b.WriteString(k + ": " + v + "\n")
		}
	}
	b.WriteString("---\n")
	if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadRejectsBadEntries(t *testing.T) {
	for name, tc := range map[string]struct {
		file string
		over map[string]string
		want string
	}{
		"missing key":        {"F001-a.md", map[string]string{"check": ""}, "missing check"},
		"unknown verdict":    {"F001-a.md", map[string]string{"verdict": "MAYBE"}, "is not one of"},
		"id and file differ": {"F001-a.md", map[string]string{"id": "F002"}, "does not match"},
		"present, no report": {"F001-a.md", map[string]string{"verdict": "PRESENT"}, "needs report"},
		"report not there":   {"F001-a.md", map[string]string{"verdict": "PRESENT", "report": "upstream/001.md"}, "report upstream/001.md"},
		"bad file name":      {"F1-a.md", nil, "file name"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			entry(t, dir, tc.file, tc.over)
			_, err := Load(dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Load: %v, want an error with %q", err, tc.want)
			}
		})
	}
}

func TestRenderCountsAndLinks(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "upstream"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "upstream", "002.md"), []byte("r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Other files beside the entries (FIDELITY.md) are not entries.
	if err := os.WriteFile(filepath.Join(dir, "FIDELITY.md"), []byte("# notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	entry(t, dir, "F001-a.md", map[string]string{"title": "a | b"})
	entry(t, dir, "F002-b.md", map[string]string{"verdict": "PRESENT", "report": "upstream/002.md"})
	entries, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := string(Render(entries))
	for _, want := range []string{
		"2 findings: PRESENT 1, ABSENT 1, PORT-ONLY 0, UNCLEAR 0.",
		`| [F001](F001-a.md) | a \| b |`,
		"[002](upstream/002.md) |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("index lacks %q:\n%s", want, out)
		}
	}
}
