package oracle

import (
	"testing"
	"time"
)

// TestMaxDelay: the worst scheduling delay above checks.max_delay is a
// latency-bound finding; at the bound, or without one, it is not.
func TestMaxDelay(t *testing.T) {
	var f Findings
	ds := []time.Duration{time.Millisecond, 300 * time.Millisecond, 2 * time.Millisecond}
	MaxDelay(&f, time.Hour, ds, 0)
	MaxDelay(&f, time.Hour, ds, 300*time.Millisecond)
	if got := f.List(); len(got) != 0 {
		t.Fatalf("within the bound: %v", got)
	}
	MaxDelay(&f, time.Hour, ds, 299*time.Millisecond)
	if got := f.List(); len(got) != 1 || got[0].Check != LatencyBound || got[0].Subject != "scheduler" ||
		got[0].Message != "scheduling delay reached 300ms, bound 299ms" {
		t.Fatalf("over the bound: %v", got)
	}
}
