package sim

import (
	"testing"
	"time"
)

// TestProgressChangesNothing runs a program of some 20 000 steps with and
// without a Progress: the same trace hash, steps and virtual time; inside
// the run the Progress lags the world by less than 4 096 steps; at the end
// it holds the result's steps and time.
func TestProgressChangesNothing(t *testing.T) {
	run := func(p *Progress) (Result, []int64) {
		w := New(Config{Seed: 7, Progress: p})
		var lags []int64
		res := w.Run(func() {
			mu := w.NewMutex("m")
			for i := range 10_000 {
				mu.Lock()
				mu.Unlock()
				if i%100 == 0 {
					w.Sleep(time.Millisecond)
				}
				if p != nil && i%1_000 == 999 {
					if p.Steps()%progressEvery != 0 || p.Elapsed() > w.Elapsed() {
						t.Errorf("step %d: progress %d steps at %v, world at %v", w.Steps(), p.Steps(), p.Elapsed(), w.Elapsed())
					}
					lags = append(lags, w.Steps()-p.Steps())
				}
			}
		})
		return res, lags
	}
	plain, _ := run(nil)
	var p Progress
	got, lags := run(&p)
	if got.TraceHash != plain.TraceHash || got.Steps != plain.Steps || got.Elapsed != plain.Elapsed {
		t.Fatalf("with a Progress: hash %x, %d steps, %v; without: %x, %d steps, %v",
			got.TraceHash, got.Steps, got.Elapsed, plain.TraceHash, plain.Steps, plain.Elapsed)
	}
	if p.Steps() != got.Steps || p.Elapsed() != got.Elapsed {
		t.Errorf("at the end the progress holds %d steps at %v, the run %d at %v", p.Steps(), p.Elapsed(), got.Steps, got.Elapsed)
	}
	if got.Steps < 4*progressEvery {
		t.Fatalf("the program ran only %d steps", got.Steps)
	}
	for _, l := range lags {
		if l < 0 || l >= progressEvery {
			t.Errorf("progress lagged the world by %d steps (want 0 to %d)", l, progressEvery-1)
		}
	}
}
