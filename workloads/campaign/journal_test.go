package campaign

import (
	"errors"
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

// TestAbandonWrites: a process exiting in the middle of a WriteFile
// (AbandonWrites, then exit) leaves no temporary file and the old
// contents; later writes fail.
func TestAbandonWrites(t *testing.T) {
	t.Cleanup(func() {
		beforeRename = nil
		temps.Lock()
		temps.abandoned = false
		temps.Unlock()
	})
	dir := t.TempDir()
	path := filepath.Join(dir, "s.json")
	if err := WriteFile(path, []byte("old")); err != nil {
		t.Fatal(err)
	}
	paused, release := make(chan string), make(chan struct{})
	beforeRename = func(tmp, _ string) {
		paused <- tmp
		<-release
	}
	done := make(chan error)
	go func() { done <- WriteFile(path, []byte("new")) }()
	tmp := <-paused
	if _, err := os.Stat(tmp); err != nil {
		t.Fatalf("no temporary file while the write is paused: %v", err)
	}
	AbandonWrites()
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("after AbandonWrites %d entries, want s.json alone (temporary file left?)", len(ents))
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("content %q, want the old one", b)
	}
	close(release)
	if err := <-done; err == nil {
		t.Error("the write cut short returned no error")
	}
	if err := WriteFile(path, []byte("later")); !errors.Is(err, ErrAbandoned) {
		t.Errorf("a write after AbandonWrites: %v, want ErrAbandoned", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d entries, want s.json alone", len(ents))
	}
}
