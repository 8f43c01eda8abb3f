package campaign

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readAll(t *testing.T, path string) []string {
	t.Helper()
	var out []string
	if err := ReadJournal(path, func(_ int, b []byte) error { out = append(out, string(b)); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestJournalCutsTornLine: a line cut by a kill is dropped on reopen and
// appending goes on after the last whole record.
func TestJournalCutsTornLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	j, err := OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []int{1, 2} {
		if err := j.Append(map[string]int{"seed": v}); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"seed":3,"verd`) // killed mid-write
	f.Close()
	if got := readAll(t, path); strings.Join(got, "|") != `{"seed":1}|{"seed":2}` {
		t.Fatalf("read %q", got)
	}
	j, err = OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	j.Append(map[string]int{"seed": 4})
	j.Close()
	if got := readAll(t, path); strings.Join(got, "|") != `{"seed":1}|{"seed":2}|{"seed":4}` {
		t.Fatalf("after reopen %q", got)
	}
}

func TestWriteFileReplaces(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "s.json")
	for _, s := range []string{"first", "second"} {
		if err := WriteFile(path, []byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(path)
	ents, _ := os.ReadDir(filepath.Dir(path))
	if string(b) != "second" || len(ents) != 1 {
		t.Fatalf("content %q, %d entries (temporary files left?)", b, len(ents))
	}
}
