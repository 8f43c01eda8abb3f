package sim

import (
	"strings"
	"testing"
)

// TestMaxHeapEndsARunawayRun: a thread that keeps every buffer it makes
// (2 KiB a step) passes a heap budget 64 MiB above the process's heap at
// the start; the run ends as a budget, naming the heap, at a step the check
// reads it (a multiple of 65 536), instead of taking the machine's memory.
// Without MaxHeap the same run would only end at MaxSteps.
func TestMaxHeapEndsARunawayRun(t *testing.T) {
	base := heapBytes()
	if base == 0 {
		t.Skip("runtime/metrics reports no heap on this platform")
	}
	w := New(Config{Seed: 1, MaxHeap: base + 64<<20, MaxSteps: 1 << 20})
	var kept [][]byte
	res := w.Run(func() {
		for {
			kept = append(kept, make([]byte, 2<<10))
			w.Yield()
		}
	})
	if res.Outcome != OutcomeBudget || !strings.Contains(res.Reason, "heap budget") {
		t.Fatalf("outcome %v (%s) after %d steps, want a heap budget", res.Outcome, res.Reason, res.Steps)
	}
	if res.Steps%(1<<16) != 0 || res.Steps >= 1<<20 {
		t.Fatalf("ended at step %d: want a multiple of 65536 below the step budget", res.Steps)
	}
	kept = nil
}
