package sim_test

import (
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
