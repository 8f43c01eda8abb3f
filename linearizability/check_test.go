package linearizability

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/ckptsim/ckptsim/model"
)

var artefacts = flag.String("artefacts", "", "write the example visualisation of TestVisualization here")

// hardRegister is an illegal register history that porcupine can only
// reject by an exhaustive search over n concurrent writes.
func hardRegister(n int) []porcupine.Operation {
	var h []porcupine.Operation
	for c := range n {
		h = append(h, porcupine.Operation{ClientId: c, Input: model.Complete{Pipeline: 1, ID: int64(c + 1)}, Call: 0, Return: 100},
			porcupine.Operation{ClientId: c, Input: model.ReadLatest{Pipeline: 1},
				Output: model.ReadResult{ID: int64((c+1)%n + 1)}, Call: 101, Return: 200})
	}
	return append(h, porcupine.Operation{ClientId: n, Input: model.ReadLatest{Pipeline: 1},
		Output: model.ReadResult{ID: 999}, Call: 300, Return: 301})
}

func TestTimeoutIsUnknownAndNeverPasses(t *testing.T) {
	v := CheckWith(model.Register, hardRegister(24), Options{Timeout: 50 * time.Millisecond})
	if v.Result != Unknown || v.Pass() {
		t.Fatalf("%v: want unknown, not a pass", v)
	}
	if !strings.Contains(v.Message, "time limit") || v.Partition != "pipeline 1" {
		t.Fatalf("message %q / partition %q", v.Message, v.Partition)
	}
	var r Report
	r.Add(Verdict{Model: "watermark", Result: Ok}, v)
	if r.Pass() || r.Result() != Unknown {
		t.Fatalf("report with an unknown verdict: %v", r.Result())
	}
}

func TestZeroVerdictAndEmptyReportDoNotPass(t *testing.T) {
	if (Verdict{}).Pass() {
		t.Fatal("zero Verdict passes")
	}
	if (&Report{}).Pass() {
		t.Fatal("empty Report passes")
	}
}

// illegalInPipelines builds a register history in which every listed
// pipeline reads a stale checkpoint, plus legal pipelines around them.
func illegalInPipelines(bad ...int) []porcupine.Operation {
	var h []porcupine.Operation
	for p := range 40 {
		read := int64(2)
		for _, b := range bad {
			if p == b {
				read = 1
			}
		}
		h = append(h,
			porcupine.Operation{ClientId: p, Input: model.Complete{Pipeline: p, ID: 1}, Call: 0, Return: 1},
			porcupine.Operation{ClientId: p, Input: model.Complete{Pipeline: p, ID: 2}, Call: 2, Return: 3},
			porcupine.Operation{ClientId: p, Input: model.ReadLatest{Pipeline: p}, Output: model.ReadResult{ID: read}, Call: 4, Return: 5})
	}
	return h
}

func TestFirstIllegalPartitionIsDeterministic(t *testing.T) {
	h := illegalInPipelines(31, 7, 19)
	for _, workers := range []int{1, 2, 8} {
		for range 5 {
			v := CheckWith(model.Register, h, Options{Workers: workers, Timeout: 10 * time.Second})
			if v.Result != Illegal || v.Partition != "pipeline 7" {
				t.Fatalf("workers=%d: %v, want illegal in pipeline 7", workers, v)
			}
		}
	}
}

// TestVisualization writes the HTML and the history of the failing
// partition only, and the saved history replays as illegal. With
// -artefacts DIR the example is kept in DIR.
func TestVisualization(t *testing.T) {
	dir := *artefacts
	if dir == "" {
		dir = t.TempDir()
	}
	run := synth(synthConfig{Pipelines: 4, Partitions: 2, Span: time.Minute, Interval: 10 * time.Second,
		Restores: 1, JobSize: 2, Seed: 7})
	h := append(run.histories["watermark"],
		// Pipeline 3 partition 1 commits past a batch of epoch 9 that never resolved.
		porcupine.Operation{ClientId: 9999, Input: model.BeginEpoch{Pipeline: 3, Partition: 1, Epoch: 9},
			Call: int64(2 * time.Minute), Return: int64(2*time.Minute + time.Microsecond), Metadata: "runtime"},
		porcupine.Operation{ClientId: 9999, Input: model.CommitOffset{Pipeline: 3, Partition: 1, Epoch: 9, Offset: 50},
			Call: int64(2*time.Minute + time.Millisecond), Return: int64(2*time.Minute + 2*time.Millisecond), Metadata: "coordinator"})
	r := Report{Run: "synthetic minute, 4 pipelines", Replay: "go test ./linearizability -run TestVisualization -artefacts DIR"}
	r.Add(Check(model.Watermark, h, 30*time.Second))
	var out bytes.Buffer
	if err := r.Finish(dir, &out); err != nil {
		t.Fatal(err)
	}
	v := r.Verdicts[0]
	if v.Result != Illegal || v.Partition != "pipeline 3 partition 1" || !strings.Contains(v.Message, "commit past a batch not resolved OK") {
		t.Fatalf("verdict %v", v)
	}
	if !strings.Contains(out.String(), "replay: go test") || !strings.Contains(out.String(), v.HTMLPath) {
		t.Fatalf("report does not print the replay command and the HTML path:\n%s", out.String())
	}
	html, err := os.ReadFile(v.HTMLPath)
	if err != nil {
		t.Fatal(err)
	}
	want := len(v.failure.ops) + 1 // the partition's operations and the banner naming it
	if n := bytes.Count(html, []byte(`"Description":`)); n != want || !bytes.Contains(html, []byte("commit(e9, 50)")) ||
		!bytes.Contains(html, []byte("watermark pipeline 3 partition 1: illegal")) {
		t.Fatalf("the visualisation has %d descriptions, want the %d of the failing partition and its banner", n, want)
	}
	replayHistoryFile(t, strings.TrimSuffix(v.HTMLPath, ".html")+".hist", Illegal)
	t.Logf("%s", out.String())
}

func replayHistoryFile(t *testing.T, path string, want Result) {
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
	if v := Check(hf.Spec, rec.Operations(), 10*time.Second); v.Result != want {
		t.Fatalf("%s replays as %v, want %v", filepath.Base(path), v, want)
	}
}

// TestHistoryRoundTrip writes a synthetic run in the history format, reads
// it back through the recorder and gets the same operations and verdict.
func TestHistoryRoundTrip(t *testing.T) {
	run := synth(synthConfig{Pipelines: 2, Partitions: 2, Span: 10 * time.Minute, Interval: 10 * time.Second,
		Restores: 2, JobSize: 1, Seed: 3})
	for _, spec := range model.Specs() {
		var buf bytes.Buffer
		h := run.histories[spec.Name]
		if err := WriteHistory(&buf, spec, "ok", h); err != nil {
			t.Fatal(err)
		}
		hf, err := ReadHistory(&buf)
		if err != nil {
			t.Fatalf("%s: %v", spec.Name, err)
		}
		if len(hf.Lines) != len(h) {
			t.Fatalf("%s: %d lines, want %d", spec.Name, len(hf.Lines), len(h))
		}
		for i, l := range hf.Lines {
			if l.Call != h[i].Call || l.Ret != h[i].Return || formatOp(l.Input, l.Outp) != formatOp(h[i].Input, h[i].Output) {
				t.Fatalf("%s line %d: %+v, want %+v", spec.Name, i, l, h[i])
			}
		}
	}
}
