package sim

import (
	"runtime"
	"time"
)

type mutex struct {
	w       *World
	id      int32
	name    string
	owner   *thread
	waiters []*thread
	site    uintptr // pc of the current owner's Lock call, when recorded (LockOrder only)
	class   int32   // lock class id in the world's lock graph (LockOrder only)
}

func (m *mutex) Lock() {
	w := m.w
	if w.outside() {
		return
	}
	t := w.self()
	w.point()
	for m.owner != nil {
		if m.owner == t {
			t.wantMu = m
			m.waiters = append(m.waiters, t)
			t.untimed = true
			w.block(t, waitReason{kind: waitRelock, name: m.name})
			continue
		}
		t.wantMu = m
		m.waiters = append(m.waiters, t)
		t.untimed = true
		w.block(t, waitReason{kind: waitLock, name: m.name})
	}
	t.wantMu = nil
	m.acquire(t)
}

func (m *mutex) acquire(t *thread) {
	w := m.w
	if g := w.locks; g != nil {
		m.site = 0
		if g.recording(m.class) {
			var pcs [1]uintptr
			runtime.Callers(3, pcs[:]) // the caller of Lock or TryLock
			m.site = pcs[0]
			g.lastPC[m.class] = m.site
		}
		g.acquired(t, m)
	}
	m.owner = t
	t.held = append(t.held, m)
	w.record(t, opLock, m.id, m.name)
}

func (m *mutex) TryLock() bool {
	w := m.w
	if w.outside() {
		return true
	}
	t := w.self()
	w.point()
	if m.owner != nil {
		return false
	}
	m.acquire(t)
	return true
}

func (m *mutex) Unlock() {
	w := m.w
	if w.outside() {
		return
	}
	t := w.self()
	if w.killing {
		return
	}
	if m.owner != t {
		panic("sim: unlock of " + m.name + " not held by " + t.name)
	}
	m.release(t)
	w.record(t, opUnlock, m.id, m.name)
	w.point()
}

func (m *mutex) release(t *thread) {
	m.owner = nil
	for i := len(t.held) - 1; i >= 0; i-- {
		if t.held[i] == m {
			t.held = append(t.held[:i], t.held[i+1:]...)
			break
		}
	}
	if len(m.waiters) > 0 {
		next := popFront(&m.waiters)
		m.w.makeRunnable(next)
	}
}

type cond struct {
	w       *World
	id      int32
	m       *mutex
	waiters []*thread
}

func (c *cond) Wait() { c.wait(-1) }

func (c *cond) WaitFor(d time.Duration) bool { return c.wait(d) }

// wait releases the mutex, blocks until signalled or d passes (d < 0:
// forever), then re-acquires the mutex.
func (c *cond) wait(d time.Duration) bool {
	w := c.w
	t := w.self()
	if c.m.owner != t {
		panic("sim: Cond wait without holding " + c.m.name)
	}
	w.record(t, opWait, c.id, c.m.name)
	t.timedOut = false
	c.m.release(t)
	if w.spurious() {
		w.point()
	} else {
		c.waiters = append(c.waiters, t)
		if d >= 0 {
			w.addTimer(t, d, c)
		}
		t.untimed = d < 0
		w.block(t, waitReason{kind: waitCond, name: c.m.name})
	}
	timedOut := t.timedOut
	c.m.Lock()
	return timedOut
}

func (w *World) spurious() bool {
	return w.cfg.SpuriousWakeups > 0 && w.Rand(StreamSched).Float64() < w.cfg.SpuriousWakeups
}

func (c *cond) remove(t *thread) {
	for i, x := range c.waiters {
		if x == t {
			c.waiters = append(c.waiters[:i], c.waiters[i+1:]...)
			return
		}
	}
}

func (c *cond) wake(t *thread) {
	t.timerGen++ // cancels a pending WaitFor deadline
	c.w.makeRunnable(t)
}

func (c *cond) Signal() {
	w := c.w
	if w.outside() {
		return
	}
	t := w.self()
	w.point()
	w.record(t, opSignal, c.id, c.m.name)
	if len(c.waiters) == 0 {
		return
	}
	c.wake(popFront(&c.waiters))
}

func (c *cond) Broadcast() {
	w := c.w
	if w.outside() {
		return
	}
	t := w.self()
	w.point()
	w.record(t, opBroadcast, c.id, c.m.name)
	for _, x := range c.waiters {
		c.wake(x)
	}
	clear(c.waiters)
	c.waiters = c.waiters[:0]
}

// popFront removes and returns the first waiter, keeping the list's
// backing array (re-slicing from the front lost its capacity, and the
// next wait allocated again). Wait lists are short.
func popFront(q *[]*thread) *thread {
	s := *q
	x := s[0]
	copy(s, s[1:])
	s[len(s)-1] = nil
	*q = s[:len(s)-1]
	return x
}

// outside reports a lock call made outside any simulated thread before or
// after the run (set-up and post-mortem inspection are single-threaded,
// so locks are no-ops there).
func (w *World) outside() bool {
	return w.current == nil && (w.ended || len(w.threads) == 0)
}
