package sim_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/sim"
)

// startWorker is a spawn site outside the simulator: a thread's spawn
// record names it, whatever the thread is called.
func startWorker(w *sim.World, name string) {
	w.Go(name, func() { w.Sleep(time.Second) })
}

// TestSpawnRecord: each thread of the table carries the code that spawned
// it (the caller of Go and its callers, innermost first), never the
// simulator's own frames; the name plays no part.
func TestSpawnRecord(t *testing.T) {
	w := sim.New(sim.Config{Seed: 3})
	w.Run(func() {
		startWorker(w, "checkpoint-dispatcher-1") // a role's name, from another site
		w.Sleep(2 * time.Second)
	})
	var found bool
	for _, ti := range w.Harness().Threads() {
		for _, f := range ti.Spawner {
			if strings.HasPrefix(f, "github.com/ckptsim/ckptsim/sim.") {
				t.Errorf("%s: the spawn record keeps a simulator frame: %v", ti.Name, ti.Spawner)
			}
		}
		if ti.Name != "checkpoint-dispatcher-1" {
			continue
		}
		found = true
		if len(ti.Spawner) == 0 || !strings.HasSuffix(ti.Spawner[0], "sim_test.startWorker") {
			t.Errorf("spawn record %v; want sim_test.startWorker first", ti.Spawner)
		}
	}
	if !found {
		t.Fatal("the spawned thread is not in the table")
	}
}

// TestSpawnStacksFor: with a filter, only the threads whose function it
// accepts get a spawn stack; the function's name is the closure's.
func TestSpawnStacksFor(t *testing.T) {
	w := sim.New(sim.Config{Seed: 3})
	var seen []string
	w.Harness().SpawnStacksFor(func(body string) bool {
		seen = append(seen, body)
		return strings.Contains(body, "startWorker")
	})
	w.Run(func() {
		startWorker(w, "kept")
		w.Go("dropped", func() { w.Sleep(time.Second) })
		w.Sleep(2 * time.Second)
	})
	for _, ti := range w.Harness().Threads() {
		switch ti.Name {
		case "kept":
			if len(ti.Spawner) == 0 || !strings.HasSuffix(ti.Spawner[0], "sim_test.startWorker") {
				t.Errorf("kept: spawn record %v", ti.Spawner)
			}
		case "dropped":
			if len(ti.Spawner) != 0 {
				t.Errorf("dropped: spawn record %v, want none", ti.Spawner)
			}
		}
	}
	if !slices.Contains(seen, "github.com/ckptsim/ckptsim/sim_test.startWorker.func1") {
		t.Errorf("bodies seen %q, want the closure startWorker spawns", seen)
	}
}
