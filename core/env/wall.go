package env

import (
	"runtime"
	"sync"
	"time"
)

// Wall is the production Env: real goroutines, the OS clock and sync locks.
type Wall struct{}

var _ Env = Wall{}

// Now returns time.Now().
func (Wall) Now() time.Time { return time.Now() }

// Go starts a goroutine; the name is not visible to the runtime.
func (Wall) Go(name string, fn func()) { go fn() }

// Sleep calls time.Sleep.
func (Wall) Sleep(d time.Duration) {
	if d <= 0 {
		runtime.Gosched()
		return
	}
	time.Sleep(d)
}

// Yield does nothing: goroutines are preempted anyway, and a Gosched here
// would put a full scheduler round on the hand-off path the benchmarks
// measure (9-10 µs of hop at p50, bench/README.md). Yield exists for the
// simulator.
func (Wall) Yield() {}

// NewMutex returns a sync.Mutex.
func (Wall) NewMutex(name string) Mutex { return &wallMutex{} }

// NewCond returns a condition variable that supports timed waits.
func (Wall) NewCond(m Mutex) Cond { return &wallCond{m: m} }

type wallMutex struct{ sync.Mutex }

// wallCond keeps one channel per waiter so that a timed wait can give up
// without stealing a later signal: a waiter that timed out removes itself.
type wallCond struct {
	m       Mutex
	mu      sync.Mutex
	waiters []chan struct{}
}

func (c *wallCond) enqueue() chan struct{} {
	ch := make(chan struct{}, 1)
	c.mu.Lock()
	c.waiters = append(c.waiters, ch)
	c.mu.Unlock()
	return ch
}

func (c *wallCond) Wait() {
	ch := c.enqueue()
	c.m.Unlock()
	<-ch
	c.m.Lock()
}

func (c *wallCond) WaitFor(d time.Duration) bool {
	ch := c.enqueue()
	c.m.Unlock()
	defer c.m.Lock()
	if d <= 0 {
		return c.giveUp(ch)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return false
	case <-t.C:
		return c.giveUp(ch)
	}
}

// giveUp removes ch from the waiters; if it was already signalled the
// wake-up is taken instead of the timeout.
func (c *wallCond) giveUp(ch chan struct{}) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, w := range c.waiters {
		if w == ch {
			c.waiters = append(c.waiters[:i], c.waiters[i+1:]...)
			return true
		}
	}
	<-ch
	return false
}

func (c *wallCond) Signal() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.waiters) == 0 {
		return
	}
	c.waiters[0] <- struct{}{}
	c.waiters = c.waiters[1:]
}

func (c *wallCond) Broadcast() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, w := range c.waiters {
		w <- struct{}{}
	}
	c.waiters = nil
}
