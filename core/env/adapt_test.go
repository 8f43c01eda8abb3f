package env

import (
	"testing"
	"time"
)

const us = time.Microsecond

// The adaptive length is fed measured lateness values directly: no
// sleeps, no clock.

// It starts at its initial length and holds it until the initial samples
// have left the window but for fewer than adaptK, then follows the
// measured lateness plus its margin.
func TestAdaptiveShrinksTowardWhatItMeasures(t *testing.T) {
	a := newAdaptive(100*us, 10*us, 200*us, 10*us, adaptK)
	if got := a.get(); got != 100*us {
		t.Fatalf("initial %v, want 100µs", got)
	}
	for i := range adaptWindow - adaptK {
		if got := a.observe(40 * us); got != 100*us {
			t.Fatalf("after %d samples of 40µs: %v, want 100µs until the window turns over", i+1, got)
		}
	}
	if got := a.observe(40 * us); got != 50*us {
		t.Fatalf("after %d samples of 40µs: %v, want 40µs + 10µs margin", adaptWindow-adaptK+1, got)
	}
	if got := a.get(); got != 50*us {
		t.Fatalf("get %v after observe returned 50µs", got)
	}
}

// It follows a high percentile of the window, not its maximum: adaptK-1
// outliers do not move it, the adaptK-th does; once they leave the window
// it comes back down.
func TestAdaptiveIgnoresFewOutliers(t *testing.T) {
	a := newAdaptive(100*us, 10*us, 500*us, 10*us, adaptK)
	for range adaptWindow {
		a.observe(20 * us)
	}
	if got := a.get(); got != 30*us {
		t.Fatalf("steady 20µs: %v, want 30µs", got)
	}
	for i := range adaptK - 1 {
		if got := a.observe(300 * us); got != 30*us {
			t.Fatalf("outlier %d moved it to %v", i+1, got)
		}
	}
	if got := a.observe(250 * us); got != 260*us {
		t.Fatalf("%d high samples: %v, want the %d-th largest (250µs) + 10µs", adaptK, got, adaptK)
	}
	for range adaptWindow - adaptK {
		a.observe(20 * us)
	}
	if got := a.get(); got != 260*us {
		t.Fatalf("high samples still in the window: %v, want 260µs", got)
	}
	if got := a.observe(20 * us); got != 30*us {
		t.Fatalf("the first high sample left the window: %v, want 30µs", got)
	}
}

// It stays within [floor, ceil]; a negative lateness (woken early) counts
// as none.
func TestAdaptiveClamps(t *testing.T) {
	a := newAdaptive(100*us, 10*us, 200*us, 5*us, adaptK)
	for range adaptWindow {
		a.observe(-time.Millisecond)
	}
	if got := a.get(); got != 10*us {
		t.Fatalf("no lateness: %v, want the 10µs floor", got)
	}
	for range adaptK {
		a.observe(time.Second)
	}
	if got := a.get(); got != 200*us {
		t.Fatalf("1 s lateness: %v, want the 200µs ceiling", got)
	}
	if b := newAdaptive(time.Second, 10*us, 200*us, 5*us, adaptK); b.get() != 200*us {
		t.Fatalf("initial above the ceiling: %v", b.get())
	}
}
