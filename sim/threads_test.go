package sim

import (
	"testing"
	"time"
)

// TestThreadTable: the world records who spawned each thread and when, and
// when its function returned; a thread still running at the end of the run
// has no exit, and the teardown that stops it records none.
func TestThreadTable(t *testing.T) {
	w := New(Config{Seed: 1})
	w.Run(func() {
		w.Sleep(time.Second)
		w.Go("short-1", func() {
			w.Sleep(2 * time.Second)
			w.Go("child-1", func() { w.Sleep(time.Hour) })
		})
		w.Go("forever-1", func() { w.Sleep(time.Hour) })
		w.Sleep(10 * time.Second)
	})
	byName := map[string]ThreadInfo{}
	for _, ti := range w.Harness().Threads() {
		byName[ti.Name] = ti
	}
	main, short, child, forever := byName["main"], byName["short-1"], byName["child-1"], byName["forever-1"]
	if !main.Exited || main.Parent != -1 || main.Spawned != 0 {
		t.Errorf("main: %+v", main)
	}
	if !short.Exited || short.Spawned != time.Second || short.ExitAt != 3*time.Second || short.Parent != main.ID || short.Panicked {
		t.Errorf("short-1: %+v", short)
	}
	if child.Exited || child.Parent != short.ID || child.Spawned != 3*time.Second {
		t.Errorf("child-1 (alive at the end, spawned by short-1 at 3 s): %+v", child)
	}
	if forever.Exited || forever.Spawned != time.Second {
		t.Errorf("forever-1 (alive at the end): %+v", forever)
	}
}
