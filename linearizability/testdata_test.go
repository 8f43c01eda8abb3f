package linearizability

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHistoryFiles walks testdata/: every legal history is accepted, every
// illegal one rejected (with and without the witness fast path), and every
// malformed one refused by the recorder with the expected message.
func TestHistoryFiles(t *testing.T) {
	n := 0
	err := filepath.WalkDir("testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".hist" {
			return err
		}
		n++
		t.Run(strings.TrimSuffix(strings.TrimPrefix(path, "testdata/"), ".hist"), func(t *testing.T) {
			checkHistoryFile(t, path)
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 30 {
		t.Fatalf("found %d history files, want at least 30", n)
	}
}

func checkHistoryFile(t *testing.T, path string) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	hf, err := ReadHistory(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	rec := NewRecorder(Virtual)
	err = hf.Record(rec)
	if hf.Want == "malformed" {
		if err == nil || !strings.Contains(err.Error(), hf.WantErr) {
			t.Fatalf("recorder error = %v, want one containing %q", err, hf.WantErr)
		}
		t.Logf("refused: %v", err)
		return
	}
	if err != nil {
		t.Fatalf("recorder: %v", err)
	}
	for _, porcupineOnly := range []bool{false, true} {
		v := CheckWith(hf.Spec, rec.Operations(), Options{Timeout: 10 * time.Second, PorcupineOnly: porcupineOnly})
		if want := map[string]Result{"ok": Ok, "illegal": Illegal}[hf.Want]; v.Result != want {
			t.Fatalf("porcupineOnly=%t: %v, want %v", porcupineOnly, v, want)
		}
		if v.Result == Illegal && !porcupineOnly {
			t.Logf("%v", v)
		}
	}
}
