package sim

import (
	"testing"
	"time"
)

// TestResultListsBlockedThreads: threads blocked without a deadline at the
// end of a run are listed with what they wait on and since when; sleepers
// and timed waits are not.
func TestResultListsBlockedThreads(t *testing.T) {
	w := New(Config{Seed: 1})
	res := w.Run(func() {
		m := w.NewMutex("test.m")
		c := w.NewCond(m)
		w.Go("waiter", func() { m.Lock(); c.Wait() })
		w.Go("timed", func() { m.Lock(); c.WaitFor(time.Hour); m.Unlock() })
		w.Go("sleeper", func() { w.Sleep(time.Hour) })
		w.Sleep(time.Second)
		m.Lock()
		w.Go("locker", func() { m.Lock() })
		w.Sleep(time.Second)
	})
	if len(res.Blocked) != 2 || res.Blocked[0].Name != "waiter" || res.Blocked[0].WaitOn != "wait on cond of test.m" ||
		res.Blocked[1].Name != "locker" || res.Blocked[1].Since != time.Second {
		t.Fatalf("blocked %+v", res.Blocked)
	}
}
