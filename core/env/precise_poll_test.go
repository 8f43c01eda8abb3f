//go:build linux

package env_test

import (
	"sync"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/core/env"
)

// TestPollWaits: PreciseWall with Poll never ends a timed wait early, a
// Broadcast ends every waiter's WaitFor as a wake-up (false), and the
// timerfds those interrupted waits give back do not end a later wait
// early. (That a reused timerfd's read blocks rather than spins, its
// interrupt's deadline reset, is TestTimerFDReuse's.)
func TestPollWaits(t *testing.T) {
	p := env.PreciseWall{Poll: true}
	for range 20 {
		t0 := time.Now()
		p.Sleep(time.Millisecond)
		if el := time.Since(t0); el < time.Millisecond {
			t.Fatalf("Sleep(1ms) ended after %v", el)
		}
	}
	m := p.NewMutex("m")
	c := p.NewCond(m)
	var wg sync.WaitGroup
	var started sync.WaitGroup
	const n = 20
	timedOut := make(chan bool, n)
	for range n {
		wg.Add(1)
		started.Add(1)
		go func() {
			defer wg.Done()
			m.Lock()
			started.Done()
			timedOut <- c.WaitFor(time.Minute)
			m.Unlock()
		}()
	}
	started.Wait()
	m.Lock() // every waiter is in WaitFor: it took m before started.Done and WaitFor released it
	c.Broadcast()
	m.Unlock()
	wg.Wait()
	close(timedOut)
	for to := range timedOut {
		if to {
			t.Fatal("a Broadcast wake-up reported as a timeout")
		}
	}
	// The interrupted waits' timerfds are back in the pool: reused, they
	// must still wait out their time.
	for range n {
		m.Lock()
		t0 := time.Now()
		to := c.WaitFor(2 * time.Millisecond)
		el := time.Since(t0)
		m.Unlock()
		if !to || el < 2*time.Millisecond {
			t.Fatalf("WaitFor(2ms) after interrupts: timed out %v after %v", to, el)
		}
	}
}
