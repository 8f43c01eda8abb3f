package workloads

import (
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/core/env"
	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/workloads/oracle"
)

// TestLockOrderHandOverMatchesTheSimulator: the lock-order graph handed to
// oracle.LockOrderCycles as plain edges yields, finding for finding, the
// cycles the simulator's own graph reports (sim.LockGraph.Cycles), on an
// inversion of three locks and a separate one of two.
func TestLockOrderHandOverMatchesTheSimulator(t *testing.T) {
	w := sim.New(sim.Config{Seed: 1, LockOrder: true})
	res := w.Run(func() {
		a, b, c := w.NewMutex("lockA"), w.NewMutex("lockB"), w.NewMutex("lockC")
		x, y := w.NewMutex("lockX"), w.NewMutex("lockY")
		pair := func(m, n env.Mutex) { m.Lock(); n.Lock(); n.Unlock(); m.Unlock() }
		w.Go("t1", func() { pair(a, b); pair(x, y) })
		w.Sleep(time.Second)
		w.Go("t2", func() { pair(b, c); pair(y, x) })
		w.Sleep(time.Second)
		w.Go("t3", func() { pair(c, a) })
		w.Sleep(time.Second)
	})
	if res.Outcome != sim.OutcomeDone {
		t.Fatalf("outcome %v: %s", res.Outcome, res.Reason)
	}
	want := w.Harness().LockGraph().Cycles()
	var f oracle.Findings
	oracle.LockOrderCycles(&f, 0, lockEdges(w.Harness().LockGraph()))
	got := f.List()
	if len(want) != 2 || len(got) != len(want) {
		t.Fatalf("simulator: %v; oracle: %v", want, got)
	}
	for i := range want {
		if got[i].Message != want[i].String() {
			t.Errorf("cycle %d: oracle %q, simulator %q", i, got[i].Message, want[i].String())
		}
	}
}
