//go:build linux

package env

import "testing"

func woken(w *preciseWaiter) bool {
	select {
	case <-w.ch:
		return true
	default:
		return false
	}
}

// A waiter signalled while the mutex is held is woken when it is
// released, not before; signalled while the mutex is free, at once. The
// waiters are queued by hand (enqueue), so nothing waits or sleeps.
func TestPreciseSignalWakesAtUnlock(t *testing.T) {
	p := PreciseWall{}
	m := p.NewMutex("test")
	c := p.NewCond(m).(*preciseCond)
	for _, broadcast := range []bool{false, true} {
		a, b := c.enqueue(), c.enqueue()
		m.Lock()
		if broadcast {
			c.Broadcast()
		} else {
			c.Signal()
			c.Signal()
		}
		if woken(a) || woken(b) {
			t.Fatalf("broadcast=%v: woken while the signaller holds the mutex", broadcast)
		}
		m.Unlock()
		if !woken(a) || !woken(b) {
			t.Fatalf("broadcast=%v: not woken at Unlock", broadcast)
		}
	}
	w := c.enqueue()
	c.Signal() // the mutex is free
	if !woken(w) {
		t.Fatal("signalled with the mutex free: not woken")
	}
	if !m.TryLock() {
		t.Fatal("the mutex is left held after a Signal without it")
	}
	m.Unlock()
}
