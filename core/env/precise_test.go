//go:build linux

package env_test

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/core/env"
)

// Only lower bounds and wake-ups are asserted: how late a wait ends is a
// benchmark figure (bench.BenchmarkTimerFloor), not a test.

func TestPreciseSleepLastsAtLeastD(t *testing.T) {
	e := env.PreciseWall{}
	for _, d := range []time.Duration{0, 50 * time.Microsecond, 300 * time.Microsecond, 3 * time.Millisecond} {
		start := time.Now()
		e.Sleep(d)
		if got := time.Since(start); got < d {
			t.Errorf("Sleep(%v) returned after %v", d, got)
		}
	}
}

func TestPreciseWaitForTimesOut(t *testing.T) {
	e := env.PreciseWall{}
	m := e.NewMutex("test")
	c := e.NewCond(m)
	for _, d := range []time.Duration{-1, 0, 80 * time.Microsecond, 500 * time.Microsecond, 3 * time.Millisecond} {
		m.Lock()
		start := time.Now()
		if !c.WaitFor(d) {
			t.Errorf("WaitFor(%v) reported a wake-up nobody sent", d)
		}
		if got := time.Since(start); got < d {
			t.Errorf("WaitFor(%v) returned after %v", d, got)
		}
		m.Unlock()
	}
}

// TestPreciseSignalEndsEachPhase signals a waiter while it parks (long
// wait), sleeps in the kernel (deadline inside Park) and spins (deadline
// inside Spin).
func TestPreciseSignalEndsEachPhase(t *testing.T) {
	cases := []struct {
		name  string
		e     env.PreciseWall
		wait  time.Duration
		after time.Duration
	}{
		{"park", env.PreciseWall{}, time.Minute, time.Millisecond},
		{"futex", env.PreciseWall{Park: time.Minute}, time.Minute, time.Millisecond},
		{"spin", env.PreciseWall{Park: time.Minute, Spin: time.Minute}, time.Minute, time.Millisecond},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.e.NewMutex("test")
			c := tc.e.NewCond(m)
			done := make(chan bool)
			m.Lock()
			go func() {
				m.Lock()
				timedOut := c.WaitFor(tc.wait)
				m.Unlock()
				done <- timedOut
			}()
			m.Unlock()
			time.Sleep(tc.after)
			for {
				m.Lock()
				c.Signal()
				m.Unlock()
				select {
				case timedOut := <-done:
					if timedOut {
						t.Fatal("signalled wait reported a timeout")
					}
					return
				case <-time.After(time.Millisecond): // signalled before it waited: again
				}
			}
		})
	}
}

func TestPreciseBroadcastWakesAll(t *testing.T) {
	e := env.PreciseWall{}
	m := e.NewMutex("test")
	c := e.NewCond(m)
	const n = 4
	woke := 0
	done := make(chan struct{})
	for range n {
		go func() {
			m.Lock()
			c.WaitFor(time.Minute)
			woke++
			m.Unlock()
			done <- struct{}{}
		}()
	}
	for got := 0; got < n; {
		m.Lock()
		c.Broadcast()
		m.Unlock()
		select {
		case <-done:
			got++
		case <-time.After(time.Millisecond):
		}
	}
	if woke != n {
		t.Fatalf("woke %d of %d", woke, n)
	}
}

func TestPreciseUntimedWait(t *testing.T) {
	e := env.PreciseWall{}
	m := e.NewMutex("test")
	c := e.NewCond(m)
	ready := false
	e.Go("waker", func() {
		e.Sleep(time.Millisecond)
		m.Lock()
		ready = true
		c.Signal()
		m.Unlock()
	})
	m.Lock()
	for !ready {
		c.Wait()
	}
	m.Unlock()
}

func TestTimerLead(t *testing.T) {
	for _, c := range []struct {
		e    env.Env
		want time.Duration
	}{
		{env.Wall{}, 0},
		{env.PreciseWall{SpinBudget: -1}, env.DefaultLead}, // no budget: earlier tests spin enough to spend the default one,
		{env.PreciseWall{Lead: 30 * time.Microsecond, SpinBudget: -1}, 30 * time.Microsecond},
		{env.PreciseWall{Lead: -1}, 0},
	} {
		if got := env.TimerLead(c.e); got != c.want {
			t.Errorf("TimerLead(%#v) = %v, want %v", c.e, got, c.want)
		}
	}
}

// TestHandedOffRunsTheWokenThread: on one P, a goroutine that a running
// one wakes waits in the P's next slot until the waker blocks; after
// HandedOff it has run. (The scheduler takes from its global queue first
// on one schedule in 61, where the yielding goroutine went: hence up to
// two yields. Without the yield the woken goroutine does not run at all
// while the waker spins.)
func TestHandedOffRunsTheWokenThread(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for _, e := range []env.PreciseWall{{}, {Poll: true}} {
		m := e.NewMutex("test")
		c := e.NewCond(m)
		var waiting, woke atomic.Bool
		done := make(chan struct{})
		go func() {
			defer close(done)
			m.Lock()
			waiting.Store(true)
			c.WaitFor(time.Hour)
			m.Unlock()
			woke.Store(true)
		}()
		for !waiting.Load() {
			runtime.Gosched()
		}
		m.Lock() // the waiter is in its wait once the mutex is free
		c.Signal()
		m.Unlock()
		for i := 0; i < 2 && !woke.Load(); i++ {
			env.HandedOff(e)
		}
		if !woke.Load() {
			t.Errorf("Poll=%v: the woken goroutine had not run after HandedOff", e.Poll)
		}
		<-done
	}
}

// TestHandedOffOutsidePreciseWall: Wall and an Env that is no HandOffer
// are left alone (no yield, no panic).
func TestHandedOffOutsidePreciseWall(t *testing.T) {
	env.HandedOff(env.Wall{})
	var e env.Env = env.Wall{}
	if _, ok := e.(env.HandOffer); ok {
		t.Fatal("Wall is a HandOffer: its hand-offs would yield")
	}
}
