package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIndexIsCurrent fails when results/findings/README.md is not what the
// entries' front matter renders (an entry added or changed without
// go run ./cmd/findings), or when an entry does not validate.
func TestIndexIsCurrent(t *testing.T) {
	dir := filepath.Join("..", "..", "results", "findings")
	entries, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if want := Render(entries); !bytes.Equal(got, want) {
		t.Fatalf("results/findings/README.md is stale: run go run ./cmd/findings (or make findings)")
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
