package linearizability

import (
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/ckptsim/ckptsim/model"
)

// TestSearchMemoryBoundEndsPathologicalHistoryUnknown: an illegal history
// of 24 concurrent writes, whose exhaustive search porcupine cannot finish
// (TestTimeoutIsUnknownAndNeverPasses cuts it by wall time), ends Unknown
// within MaxSearchBytes with no time limit at all: the bound counts what
// the search stores, not how long it runs, so the verdict, the partition
// and the steps taken are the same on every run, with one worker or
// four, on any machine.
func TestSearchMemoryBoundEndsPathologicalHistoryUnknown(t *testing.T) {
	h := hardRegister(24)
	const budget = 4 << 20
	entry := SearchEntryBytes(len(h))
	var first Verdict
	for i, workers := range []int{1, 4, 1} {
		// The time limit is only a backstop, 400 times what the bound takes on
		// a loaded 2-core machine: without the bound the test fails instead of
		// hanging.
		v := CheckWith(model.Register, h, Options{MaxSearchBytes: budget, Workers: workers, Timeout: time.Minute})
		if v.Result != Unknown || v.Pass() || v.Partition != "pipeline 1" ||
			!strings.Contains(v.Message, "search memory limit 4 MiB per partition hit") {
			t.Fatalf("%v: want unknown in pipeline 1 naming the search memory limit", v)
		}
		if v.SearchBytes <= budget || v.SearchBytes > budget+entry {
			t.Fatalf("charged %d bytes: want the first charge past %d (entries of %d)", v.SearchBytes, budget, entry)
		}
		v.Elapsed = 0
		if i == 0 {
			first = v
		} else if v.String() != first.String() || v.Steps != first.Steps {
			t.Fatalf("run %d: %v after %d steps, first %v after %d", i, v, v.Steps, first, first.Steps)
		}
	}
	if first.Steps == 0 {
		t.Fatal("no porcupine step counted")
	}
}

// TestSearchMemoryBoundCutsOnlyWhatItMust: a smaller illegal history that
// porcupine proves illegal within the default-sized bound is still Illegal
// under it, and Unknown (never Ok) under a bound smaller than its search;
// a legal one is Ok under both.
func TestSearchMemoryBoundCutsOnlyWhatItMust(t *testing.T) {
	h := hardRegister(6)
	full := CheckWith(model.Register, h, Options{PorcupineOnly: true})
	if full.Result != Illegal || full.SearchBytes == 0 {
		t.Fatalf("unbounded: %v (charged %d), want illegal", full, full.SearchBytes)
	}
	if v := CheckWith(model.Register, h, Options{PorcupineOnly: true, MaxSearchBytes: full.SearchBytes}); v.Result != Illegal {
		t.Fatalf("bound %d, what the search needs: %v, want illegal", full.SearchBytes, v)
	}
	v := CheckWith(model.Register, h, Options{PorcupineOnly: true, MaxSearchBytes: full.SearchBytes - 1})
	if v.Result != Unknown || !strings.Contains(v.Message, "search memory limit") {
		t.Fatalf("bound %d, one byte short: %v, want unknown", full.SearchBytes-1, v)
	}
	legal := hardRegister(6)[:12] // the writes and the reads of them, without the impossible read
	legal[1].Output = model.ReadResult{ID: 1}
	for i := 3; i < len(legal); i += 2 {
		legal[i].Output = model.ReadResult{ID: 1}
	}
	for _, b := range []int64{0, SearchEntryBytes(len(legal)) * 100} {
		if v := CheckWith(model.Register, legal, Options{PorcupineOnly: true, MaxSearchBytes: b}); v.Result != Ok {
			t.Fatalf("legal history, bound %d: %v", b, v)
		}
	}
}

// TestHeapLimitIsUnknown: the heap watchdog reads the heap before any
// search starts, so a limit the process is already past cuts every
// porcupine search (Unknown, naming the limit as machine-dependent) and
// leaves what the witness decided alone.
func TestHeapLimitIsUnknown(t *testing.T) {
	v := CheckWith(model.Register, hardRegister(6), Options{MaxHeap: 1})
	if v.Result != Unknown || !strings.Contains(v.Message, "heap limit 1 bytes of the process (machine-dependent) hit") {
		t.Fatalf("%v: want unknown naming the heap limit", v)
	}
	legal := []porcupine.Operation{
		{ClientId: 0, Input: model.Complete{Pipeline: 1, ID: 1}, Call: 0, Return: 1},
		{ClientId: 0, Input: model.ReadLatest{Pipeline: 1}, Output: model.ReadResult{ID: 1}, Call: 2, Return: 3},
	}
	if v := CheckWith(model.Register, legal, Options{MaxHeap: 1}); v.Result != Ok {
		t.Fatalf("a history the witness accepts: %v", v)
	}
}

// TestSearchesShareTheMemoryBound: four pathological partitions, each
// cut by its own MaxSearchBytes, give the same verdict and steps with four
// workers as with one (the room makes them wait for each other, never
// changes what each may store).
func TestSearchesShareTheMemoryBound(t *testing.T) {
	var h []porcupine.Operation
	for p := range 4 {
		for _, op := range hardRegister(12) {
			switch in := op.Input.(type) {
			case model.Complete:
				in.Pipeline = p
				op.Input = in
			case model.ReadLatest:
				in.Pipeline = p
				op.Input = in
			}
			h = append(h, op)
		}
	}
	opt := Options{MaxSearchBytes: 1 << 20, Workers: 1}
	one := CheckWith(model.Register, h, opt)
	opt.Workers = 4
	four := CheckWith(model.Register, h, opt)
	if one.Result != Unknown || one.Partition != "pipeline 0" || !strings.Contains(one.Message, "4 of 4 partitions unfinished") {
		t.Fatalf("one worker: %v", one)
	}
	if one.Message != four.Message || one.Steps != four.Steps || one.SearchBytes != four.SearchBytes {
		t.Fatalf("one worker: %v (%d steps), four: %v (%d steps)", one, one.Steps, four, four.Steps)
	}
}
