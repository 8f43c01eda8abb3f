//go:build linux

package env

import (
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// PreciseWall is Wall with timed waits that end on time.
//
// Go's runtime timers fire late when the process is idle: the scheduler
// parks in epoll_wait, whose timeout has millisecond resolution, so a
// 200 µs timer fires about 0.9 ms late at the median on the project
// machine, where a plain nanosleep is about 85 µs late (the kernel's
// default 50 µs timer slack plus wake-up latency).
//
// A PreciseWall Sleep or Cond.WaitFor waits in three phases: it parks in
// the Go runtime (no OS thread held) until Park before the deadline, then
// sleeps in the kernel on a futex with the thread's timer slack set to
// 1 ns until Spin before the deadline, then spins on the clock. A Signal
// or Broadcast ends a wait in any phase: it closes a channel while the
// waiter is parked and wakes the futex while it sleeps.
//
// At most GOMAXPROCS-1 waits (at least one) are in the sleep and spin
// phases at once; a wait that finds them all taken parks in the Go
// runtime to its deadline, as Wall's does (see slots). A wait no longer
// than Spin from the start only spins, and needs no slot: a timer thread
// waiting out its TimerLead (see TimerLeader) must not park for a
// millisecond because the next leader holds the slot.
//
// The price is CPU: each timed wait that reaches its deadline spins for
// about Spin and holds an OS thread for about Park, and the futex phase
// sets the timer slack of whichever runtime thread runs it (harmless, and
// it stays set). Waits that a Signal ends early cost nothing extra. Mutex,
// Now, Go and Yield are Wall's.
//
// The zero value uses the defaults. PreciseWall is Linux-only (futex and
// prctl).
type PreciseWall struct {
	Wall
	// Park is how long before a deadline a waiter stops parking in the Go
	// runtime and sleeps in the kernel (default 2 ms: more than the
	// runtime's idle timer lateness).
	Park time.Duration
	// Spin is how long before a deadline it stops sleeping and spins
	// (default 100 µs: more than the median kernel wake-up latency with
	// 1 ns slack, about 45 µs on the project machine).
	Spin time.Duration
	// Lead is its TimerLead (default 100 µs; negative turns it off). On the
	// project machine re-taking the timer's lock, the heap pop and the
	// promotion's wake-up take about 20 µs at the median, the wake-up
	// (an interrupt to an idle virtual CPU) about 12 µs of it; 50 µs was
	// not always enough on a loaded machine (results/README.md). The
	// taker spins out what is left of the lead: about 80 µs of CPU per
	// timed entry.
	Lead time.Duration
}

var _ TimerLeader = PreciseWall{}

var _ Env = PreciseWall{}

// Default phase lengths of a PreciseWall wait.
const (
	DefaultPark = 2 * time.Millisecond
	DefaultSpin = 100 * time.Microsecond
	DefaultLead = 100 * time.Microsecond
)

// TimerLead is Lead, DefaultLead when zero, 0 when negative.
func (p PreciseWall) TimerLead() time.Duration {
	switch {
	case p.Lead < 0:
		return 0
	case p.Lead == 0:
		return DefaultLead
	}
	return p.Lead
}

func (p PreciseWall) phases() (park, spin time.Duration) {
	park, spin = p.Park, p.Spin
	if park <= 0 {
		park = DefaultPark
	}
	if spin <= 0 {
		spin = DefaultSpin
	}
	return max(park, spin), spin
}

// Sleep blocks for d, ending within a few microseconds of it.
func (p PreciseWall) Sleep(d time.Duration) {
	if d <= 0 {
		runtime.Gosched()
		return
	}
	deadline := time.Now().Add(d)
	if _, spin := p.phases(); d <= spin {
		// Spin only, and allocate nothing: nothing can wake a Sleep, and
		// an allocation right after an idle stretch costs microseconds
		// (a cold per-P cache), which a timer thread sleeping out its
		// TimerLead would add to the entry's lateness.
		for time.Now().Before(deadline) {
		}
		return
	}
	p.wait(newPreciseWaiter(), deadline)
}

// NewCond returns a condition variable whose WaitFor ends on time.
func (p PreciseWall) NewCond(m Mutex) Cond { return &preciseCond{m: m, p: p} }

// preciseWaiter is one wait. state is the futex word: 1 once woken.
type preciseWaiter struct {
	state  atomic.Uint32
	asleep atomic.Uint32 // 1 while in the futex phase
	ch     chan struct{} // closed by wake
}

func newPreciseWaiter() *preciseWaiter { return &preciseWaiter{ch: make(chan struct{})} }

// wake ends the wait in whatever phase it is. Called at most once.
func (w *preciseWaiter) wake() {
	w.state.Store(1)
	close(w.ch)
	if w.asleep.Load() != 0 {
		futexWake(&w.state)
	}
}

// wait waits for a wake-up or the deadline and reports whether it was
// woken.
func (p PreciseWall) wait(w *preciseWaiter, deadline time.Time) (woken bool) {
	park, spin := p.phases()
	if left := time.Until(deadline) - park; left > 0 {
		t := time.NewTimer(left)
		select {
		case <-w.ch:
			t.Stop()
			return true
		case <-t.C:
		}
	}
	if time.Until(deadline) <= spin {
		return spinUntil(w, deadline) // a wait shorter than the spin phase needs no slot
	}
	if !acquireSlot() {
		return p.park(w, deadline) // every slot taken: wait like Wall
	}
	defer releaseSlot()
	for {
		left := time.Until(deadline) - spin
		if left <= 0 {
			break
		}
		w.asleep.Store(1)
		if w.state.Load() != 0 {
			return true
		}
		setTimerSlack()
		futexWait(&w.state, left)
		w.asleep.Store(0)
	}
	return spinUntil(w, deadline)
}

// spinUntil spins on the clock until the deadline or a wake-up.
func spinUntil(w *preciseWaiter, deadline time.Time) (woken bool) {
	for time.Now().Before(deadline) {
		if w.state.Load() != 0 {
			return true
		}
	}
	return w.state.Load() != 0
}

// park waits in the Go runtime until the deadline or a wake-up.
func (p PreciseWall) park(w *preciseWaiter, deadline time.Time) (woken bool) {
	left := time.Until(deadline)
	if left <= 0 {
		return w.state.Load() != 0
	}
	t := time.NewTimer(left)
	defer t.Stop()
	select {
	case <-w.ch:
		return true
	case <-t.C:
		return false
	}
}

// slots bounds how many waits are in their kernel-sleep or spin phase at
// once: GOMAXPROCS-1, at least 1. A thread blocked in a raw system call
// keeps its P until the runtime's monitor retakes it (20 µs to 10 ms
// later), and a spinning one keeps it busy, so with every P held that way
// other goroutines and the runtime's own timers would stall for
// milliseconds. A wait that finds no slot free parks like Wall's (two
// timer threads waiting for the same deadline need only one precise
// wake-up).
var slots struct {
	once sync.Once
	free atomic.Int32
}

func acquireSlot() bool {
	slots.once.Do(func() { slots.free.Store(int32(max(1, runtime.GOMAXPROCS(0)-1))) })
	for {
		n := slots.free.Load()
		if n <= 0 {
			return false
		}
		if slots.free.CompareAndSwap(n, n-1) {
			return true
		}
	}
}

func releaseSlot() { slots.free.Add(1) }

// preciseCond is wallCond with PreciseWall's timed waits: one waiter per
// wait, so that a timed-out waiter removes itself without stealing a
// later signal.
type preciseCond struct {
	m       Mutex
	p       PreciseWall
	mu      sync.Mutex
	waiters []*preciseWaiter
}

func (c *preciseCond) enqueue() *preciseWaiter {
	w := newPreciseWaiter()
	c.mu.Lock()
	c.waiters = append(c.waiters, w)
	c.mu.Unlock()
	return w
}

func (c *preciseCond) Wait() {
	w := c.enqueue()
	c.m.Unlock()
	<-w.ch
	c.m.Lock()
}

func (c *preciseCond) WaitFor(d time.Duration) bool {
	deadline := time.Now().Add(d)
	w := c.enqueue()
	c.m.Unlock()
	defer c.m.Lock()
	if d > 0 && c.p.wait(w, deadline) {
		return false
	}
	return c.giveUp(w)
}

// giveUp removes w from the waiters and reports true; if a signal already
// took it off the list, the wake-up wins and it reports false.
func (c *preciseCond) giveUp(w *preciseWaiter) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, x := range c.waiters {
		if x == w {
			c.waiters = append(c.waiters[:i], c.waiters[i+1:]...)
			return true
		}
	}
	return false
}

func (c *preciseCond) Signal() {
	c.mu.Lock()
	if len(c.waiters) == 0 {
		c.mu.Unlock()
		return
	}
	w := c.waiters[0]
	c.waiters[0] = nil
	c.waiters = c.waiters[1:]
	c.mu.Unlock()
	w.wake()
}

func (c *preciseCond) Broadcast() {
	c.mu.Lock()
	ws := c.waiters
	c.waiters = nil
	c.mu.Unlock()
	for _, w := range ws {
		w.wake()
	}
}

const (
	futexWaitOp = 0 | 128 // FUTEX_WAIT | FUTEX_PRIVATE_FLAG
	futexWakeOp = 1 | 128 // FUTEX_WAKE | FUTEX_PRIVATE_FLAG
)

// futexWait sleeps while *addr == 0, at most d (CLOCK_MONOTONIC). Early
// returns (EINTR, EAGAIN, a wake) are the caller's to re-check.
func futexWait(addr *atomic.Uint32, d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	syscall.Syscall6(syscall.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWaitOp, 0,
		uintptr(unsafe.Pointer(&ts)), 0, 0)
}

func futexWake(addr *atomic.Uint32) {
	syscall.Syscall6(syscall.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWakeOp, 1, 0, 0, 0)
}

// setTimerSlack sets the calling thread's timer slack to 1 ns (the
// default 50 µs makes every kernel sleep that much later).
func setTimerSlack() {
	syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_TIMERSLACK, 1, 0)
}
