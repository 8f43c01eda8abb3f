// Package env is the one seam between ckptsim's production code and the
// outside world: time, threads and locks.
//
// Everything under core/ that reads the clock, sleeps, starts a thread or
// waits for another thread does it through an Env. The implementations:
// Wall (this package), which maps each call onto the Go runtime;
// PreciseWall (Linux), Wall with timed waits that end on time; and
// sim.World, which runs every simulated thread one at a time under a
// seeded scheduler and a virtual clock.
//
// # Which env in production
//
// Default() is the env production code should use: PreciseWall on Linux,
// Wall elsewhere. Wall's timed waits ride the Go runtime's timers, which
// fire about 0.6-0.9 ms late on an idle process; PreciseWall's end within
// microseconds, at the price of a short spin per timed wait that reaches
// its deadline (process CPU per firing in results/README.md). With the
// leader-follower scheduler design only one thread is ever in a timed
// wait, so that price is paid once per deadline.
//
// # Scheduling points
//
// Every method of Env, Mutex and Cond is a scheduling point: in a simulated
// world the calling thread may be suspended there and any other runnable
// thread resumed before the call takes effect. Code between two scheduling
// points runs atomically in simulation. Production code must therefore never
// assume that two env calls happen back to back, and must not rely on
// anything else (atomics, plain memory) for cross-thread ordering that the
// simulator should explore; Yield marks such a spot explicitly.
//
// # Time
//
// Now is the only clock. Durations passed to Sleep and WaitFor are relative
// to Now. In simulation, time moves only when no thread can run.
//
// # Blocking
//
// A thread blocks only in Sleep, Mutex.Lock, Cond.Wait and Cond.WaitFor.
// A simulated world with live threads, none runnable and no pending deadline
// is deadlocked and reports it.
package env

import "time"

// Env is the environment that production code runs in.
type Env interface {
	// Now returns the current time (virtual in simulation).
	Now() time.Time
	// Go starts a new thread running fn. The name identifies the thread in
	// traces, deadlock reports and thread counts (for example
	// "checkpoint-dispatcher-3"). Go does not wait for fn to start.
	Go(name string, fn func())
	// Sleep blocks the calling thread for at least d. d <= 0 is a pure
	// scheduling point.
	Sleep(d time.Duration)
	// Yield is a pure scheduling point: it lets another thread run. Use it
	// where the order of two unsynchronised steps matters to correctness
	// (a check-then-act on atomics) so that the simulator explores both
	// orders.
	Yield()
	// NewMutex returns an unlocked mutex. The name is its lock class: the
	// lock-order graph and deadlock reports use it, so locks that play the
	// same role share a name ("coord.lock").
	NewMutex(name string) Mutex
	// NewCond returns a condition variable bound to m.
	NewCond(m Mutex) Cond
}

// Mutex is a non-reentrant mutual exclusion lock.
type Mutex interface {
	// Lock blocks until the lock is held by the caller. Locking a mutex the
	// caller already holds deadlocks (and is reported as such in simulation).
	Lock()
	// Unlock releases the lock. Unlocking a mutex that is not held panics.
	Unlock()
	// TryLock takes the lock if it is free and reports whether it did.
	TryLock() bool
}

// Cond is a condition variable. Its methods other than Signal and Broadcast
// must be called with the bound mutex held. Wake-ups are delivered to
// waiters in the order they started waiting. Callers must re-check their
// condition in a loop: a Wait may return without a matching Signal (the
// simulator can inject spurious wake-ups to prove that callers do).
type Cond interface {
	// Wait atomically releases the mutex and blocks until woken, then
	// re-acquires the mutex before returning.
	Wait()
	// WaitFor is Wait with a deadline d from now. It reports true when it
	// returned because the deadline passed without a wake-up.
	WaitFor(d time.Duration) (timedOut bool)
	// Signal wakes the longest-waiting thread, if any.
	Signal()
	// Broadcast wakes every waiting thread.
	Broadcast()
}

// TimerLeader is an optional interface of an Env whose thread wake-ups are
// expensive for the waker: waking a thread parked in the OS costs the
// caller a system call and, on an idle virtual machine, an interrupt to a
// halted CPU (about 12 µs on the project machine, measured in
// results/README.md). TimerLead is how long before a deadline a timer
// thread should take its entry and promote a successor, so that this cost
// is paid while the deadline is still ahead; the taking thread then waits
// out the rest itself (a short Sleep) and runs the entry on time. A timer
// reads it before each wait: it may change (PreciseWall's adapts, see
// LeadObserver).
type TimerLeader interface {
	TimerLead() time.Duration
}

// TimerLead returns e's TimerLead, or 0 (take entries at their deadline)
// when e does not implement TimerLeader, as Wall and the simulator do not.
func TimerLead(e Env) time.Duration {
	if l, ok := e.(TimerLeader); ok {
		return max(l.TimerLead(), 0)
	}
	return 0
}

// LooseCond is an optional interface of a Cond whose WaitFor spends CPU to
// end on time (PreciseWall's spin phase). WaitForLoose is WaitFor for a
// caller that will be early anyway and waits out the rest itself, as a
// timer thread waiting for TimerLead before a deadline does: it may end as
// late as the OS wakes a sleeping thread (tens of microseconds), and
// spends nothing to be on time.
type LooseCond interface {
	WaitForLoose(d time.Duration) (timedOut bool)
}

// WaitForLoose calls c's WaitForLoose, or WaitFor when c is not a
// LooseCond (Wall's and the simulator's are not).
func WaitForLoose(c Cond, d time.Duration) (timedOut bool) {
	if l, ok := c.(LooseCond); ok {
		return l.WaitForLoose(d)
	}
	return c.WaitFor(d)
}

// LeadObserver is an optional interface of a TimerLeader whose lead adapts
// to what it costs: after taking an entry within the lead, a timer thread
// whose timed wait for that lead ran out reports how much of the lead it
// used, from the time that wait aimed at to being ready to wait out the
// rest (after promoting a follower). More than the lead means the entry
// ran late.
type LeadObserver interface {
	ObserveLead(used time.Duration)
}

// HandOffer is an optional interface of an Env whose threads share
// processors with the threads they wake: a thread that has just handed
// work to another (woken it) and has nothing urgent left of its own calls
// HandedOff, and the env may run the woken thread ahead of the caller's
// remaining work, instead of letting it wait until the caller blocks.
// PreciseWall's yields the processor (runtime.Gosched): a goroutine woken
// by a running one waits in its processor's next slot, which another
// processor steals only after a delay, so without the yield a hand-off
// waits for the waker to block.
type HandOffer interface {
	HandedOff()
}

// HandedOff calls e's HandedOff; it does nothing when e is not a
// HandOffer (Wall and the simulator are not: it is no scheduling point).
func HandedOff(e Env) {
	if h, ok := e.(HandOffer); ok {
		h.HandedOff()
	}
}
