package linearizability

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func loadHistory(t *testing.T, path string) (*HistoryFile, *Recorder) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	hf, err := ReadHistory(f)
	if err != nil {
		t.Fatal(err)
	}
	rec := NewRecorder(Virtual)
	if err := hf.Record(rec); err != nil {
		t.Fatal(err)
	}
	return hf, rec
}

// TestStepBoundIsUnknownNeverAPass: porcupine bounded by model steps gives
// Unknown, deterministically, when the bound is too small to prove an
// illegal history illegal, never Ok; the same verdict every time; the
// unfinished partition is written as a history file that a larger bound
// then decides.
func TestStepBoundIsUnknownNeverAPass(t *testing.T) {
	hf, rec := loadHistory(t, "testdata/generation/illegal-stale-expiry-fails-restored.hist")
	var first Verdict
	for i := range 3 {
		v := CheckWith(hf.Spec, rec.Operations(), Options{PorcupineOnly: true, MaxSteps: 1})
		if v.Result != Unknown || !strings.Contains(v.Message, "step limit 1 per partition") {
			t.Fatalf("MaxSteps 1: %v, want unknown naming the step limit", v)
		}
		v.Elapsed = 0 // wall-clock time: on a loaded machine two runs differ by a millisecond
		if i == 0 {
			first = v
		} else if v.String() != first.String() {
			t.Fatalf("not deterministic: %v then %v", first, v)
		}
	}
	path, err := first.WriteUnknownHistory(t.TempDir(), hf.Spec)
	if err != nil {
		t.Fatal(err)
	}
	again, rec2 := loadHistory(t, path)
	if again.Want != "unknown" || filepath.Ext(path) != ".history" {
		t.Fatalf("artefact %s wants %q", path, again.Want)
	}
	if v := CheckWith(again.Spec, rec2.Operations(), Options{MaxSteps: 1 << 20}); v.Result != Illegal {
		t.Fatalf("the artefact with a larger bound: %v, want illegal", v)
	}
	hf, rec = loadHistory(t, "testdata/generation/legal-concurrent-restore.hist")
	if v := CheckWith(hf.Spec, rec.Operations(), Options{PorcupineOnly: true, MaxSteps: 1 << 20}); v.Result != Ok {
		t.Fatalf("legal history within the bound: %v", v)
	}
}
