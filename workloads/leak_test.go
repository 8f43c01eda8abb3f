package workloads

import (
	"runtime"
	"testing"
)

// TestNoLeakAcrossRuns: a finished run leaves no simulated thread behind
// (a leaked coroutine pins its whole World; a campaign of thousands of
// seeds once ran out of memory that way).
func TestNoLeakAcrossRuns(t *testing.T) {
	for _, c := range []struct {
		scenario string
		variants map[string]string
	}{{"h8-saturation", nil}, {"h8-saturation", map[string]string{"design": "per-pipeline"}}, {"smoke", nil}} {
		s, err := Lookup(c.scenario)
		if err != nil {
			t.Fatal(err)
		}
		Run(s, Options{Seed: 0, Variants: c.variants})
		runtime.GC()
		before := runtime.NumGoroutine()
		for seed := range uint64(3) {
			Run(s, Options{Seed: seed, Variants: c.variants})
		}
		runtime.GC()
		if after := runtime.NumGoroutine(); after > before+2 {
			t.Fatalf("%s %v: goroutines %d -> %d after 3 runs", c.scenario, c.variants, before, after)
		}
	}
}
