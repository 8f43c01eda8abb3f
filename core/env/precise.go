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
// Spin and Lead adapt by default (zero): each is a high percentile of what
// the process measured over its last 128 waits, plus a margin (see
// adaptive): the 98th or so, and for Poll's lead the 75th (leadPollK).
// Spin covers how late the futex sleep wakes (measured on each futex
// phase that runs to its end); Lead covers how late a timer thread's
// loose wait for the lead ends plus its hand-over to a follower (reported
// by exec.Timer, LeadObserver). Both start at 100 µs and shrink toward
// what the machine shows (10 µs at least); the CPU a firing spins away is
// then the spread of those latenesses, not a fixed 100 µs twice.
//
// The futex sleep is a raw system call when GOMAXPROCS > 1: the Go runtime
// does not see it, so its P stays with the sleeping thread (as it does
// with a spinning one, which slots bounds) and, above all, entering it does
// not wake the runtime's monitor thread (sysmon). A system call that
// the runtime sees does, and sysmon then polls every 20 µs for a
// millisecond or more: on the project machine (a virtual machine, where a
// thread wake-up is costly) that was about 40% of the CPU of a firing. A
// signal (the runtime's preemption, a stop-the-world) interrupts the
// sleep, and the wait loop then yields at its next call. With one P the
// runtime's own system call is used, so that the runtime can take the P
// back.
//
// At most GOMAXPROCS-1 waits (at least one) are in the sleep and spin
// phases at once; a wait that finds them all taken parks in the Go
// runtime to its deadline, as Wall's does (see slots). A wait no longer
// than Spin or Lead from the start only spins, and needs no slot: a
// timer thread waiting out its TimerLead (see TimerLeader) must not park
// for a millisecond because the next leader holds the slot.
//
// The price is CPU: each timed wait that reaches its deadline spins for
// about Spin less the futex's lateness and holds an OS thread for about
// Park, and the futex phase sets the timer slack of whichever runtime
// thread runs it (harmless, and it stays set). Waits that a Signal ends
// early cost nothing extra. SpinBudget caps what the spinning costs the
// process (2% of a core by default); past it, waits end as late as the
// OS wakes them. ReadSpinStats says what was spun and how often the
// budget was spent. Mutex, Now, Go and Yield are Wall's.
//
// The zero value uses the defaults. PreciseWall is Linux-only (futex and
// prctl).
type PreciseWall struct {
	Wall
	// Park is how long before a deadline a waiter stops parking in the Go
	// runtime and sleeps in the kernel (default 2 ms: more than the
	// runtime's idle timer lateness). A Park longer than every wait (the
	// wait then holds its P for all of it) saved 1.3-2.6 context switches
	// and some CPU per firing on the project machine, and lost the timing
	// wherever timed waits overlap, since the slots are then taken for
	// whole intervals (results/bench/experiments/README.md, wakeups, "Holding the P
	// instead").
	Park time.Duration
	// Spin is how long before a deadline it stops sleeping and spins
	// (default: adaptive, from 100 µs, within 10-200 µs: the futex's
	// measured lateness plus 10 µs; with 1 ns slack the median is about
	// 45 µs on the project machine, with a floor near 40 µs).
	Spin time.Duration
	// Lead is its TimerLead (default: adaptive, from 100 µs, within
	// 10-250 µs; negative turns it off). On the project machine re-taking
	// the timer's lock, the heap pop and the promotion's wake-up take about
	// 20 µs at the median, the wake-up (an interrupt to an idle virtual
	// CPU) about 12 µs of it; 50 µs was not always enough on a loaded
	// machine (results/README.md). With a lead, a timer thread waits for
	// it loosely (WaitForLoose: no spin, as it will be early anyway) and
	// the adaptive lead covers that wait's lateness plus the promotion. The
	// taker spins out what is left of the lead.
	Lead time.Duration
	// Poll sleeps the kernel phase on a timerfd read through the Go
	// runtime's network poller instead of a futex in a raw system call,
	// and skips the Go-park phase and the slots (see waitPoll). On in
	// Default; results/bench/experiments/README.md, wakeups, "The poller instead".
	Poll bool
	// SpinBudget is the most of one core the process's waits may spin
	// away, averaged over about a second (default DefaultSpinBudget, 2%;
	// negative: no budget). Past it a wait has no spin phase and the timer
	// lead is 0: the wait sleeps in the kernel to its deadline and ends as
	// late as the OS wakes it (about 100 µs on the project machine), until
	// the spin is paid off. A member that fires a few times a second stays
	// precise; one with hundreds of firings a second (500 pipelines at a
	// 1 s interval) would otherwise spin away 10-20% of a core for
	// microseconds it has no use for (results/bench/experiments/README.md, spin).
	// The budget is the process's: every PreciseWall wait draws on one
	// (see spinBudget), at the rate of the wait's own PreciseWall.
	SpinBudget float64
}

// LooseCond is implemented by PreciseWall's conditions.
var _ LooseCond = (*preciseCond)(nil)

var _ LeadObserver = PreciseWall{}

var _ TimerLeader = PreciseWall{}

var _ Env = PreciseWall{}

// Default phase lengths of a PreciseWall wait: DefaultSpin and DefaultLead
// are where the adaptive ones start.
const (
	DefaultPark = 2 * time.Millisecond
	DefaultSpin = 100 * time.Microsecond
	DefaultLead = 100 * time.Microsecond
)

// The process's adaptive Spin and Lead (the zero PreciseWall's): the
// lateness they follow is the machine's, not one PreciseWall value's.
var (
	adaptSpin = newAdaptive(DefaultSpin, 10*time.Microsecond, 200*time.Microsecond, 10*time.Microsecond, adaptK)
	adaptLead = newAdaptive(DefaultLead, 10*time.Microsecond, 250*time.Microsecond, 10*time.Microsecond, adaptK)
	// Poll's own: the poller's wake-ups have a lateness of their own.
	// The wider ceilings are not tuned: most runs with Poll
	// (results/bench/experiments/README.md, wakeups, "The poller instead") had a
	// fixed Lead, taken before exec.Timer reported the use of a lead that
	// a wait overran (without which an adaptive lead never learns a
	// lateness above its start).
	adaptSpinPoll = newAdaptive(DefaultSpin, 10*time.Microsecond, 500*time.Microsecond, 10*time.Microsecond, adaptK)
	adaptLeadPoll = newAdaptive(DefaultLead, 10*time.Microsecond, 500*time.Microsecond, 10*time.Microsecond, leadPollK)
)

// leadPollK: Poll's adaptive lead is the 32nd largest of its last 128
// samples, about their 75th percentile. The lead is spun away in full on
// every firing it covers, and the loose wait's lateness it covers is wide
// on a virtual machine (a timerfd wake-up 80-250 µs late on the project
// machine, its 10th to 98th percentile): at the 98th percentile the lead
// spun 65-260 µs a firing, a third to a half of its CPU, to keep the
// firings above the median on time too. At the 75th it spun 10-50 µs and
// cost about half the CPU per firing, and the median firing is still
// within microseconds; a quarter of the firings end as late as the wake-up
// beyond the lead, which the p99 shows (results/bench/experiments/README.md, spin).
const leadPollK = 32

func (p PreciseWall) adaptiveSpin() *adaptive {
	if p.Poll {
		return adaptSpinPoll
	}
	return adaptSpin
}

func (p PreciseWall) adaptiveLead() *adaptive {
	if p.Poll {
		return adaptLeadPoll
	}
	return adaptLead
}

// TimerLead is Lead, the adaptive lead when zero, 0 when negative or
// while the spin budget is spent (a lead is spun away).
func (p PreciseWall) TimerLead() time.Duration {
	switch {
	case p.Lead < 0 || !p.spinAllowed():
		return 0
	case p.Lead == 0:
		return p.adaptiveLead().get()
	}
	return p.Lead
}

// ObserveLead feeds the adaptive lead (LeadObserver): used is how much of
// a lead a timer thread used, from the end its loose wait aimed at to
// being ready to wait out the rest.
func (p PreciseWall) ObserveLead(used time.Duration) {
	if p.Lead == 0 {
		p.adaptiveLead().observe(used)
	}
}

// spinRate is the spin budget's rate: SpinBudget, its default when zero,
// 0 (none) when negative.
func (p PreciseWall) spinRate() float64 {
	switch {
	case p.SpinBudget < 0:
		return 0
	case p.SpinBudget == 0:
		return DefaultSpinBudget
	}
	return p.SpinBudget
}

// spinAllowed reports whether the spin budget lets a wait spin now.
func (p PreciseWall) spinAllowed() bool {
	return p.spinRate() == 0 || budget.allow(budgetNow())
}

// waitPhases is phases for one wait, which it counts (SpinStats): no
// spin phase when the budget is spent.
func (p PreciseWall) waitPhases() (park, spin time.Duration) {
	park, spin = p.phases()
	if !p.spinAllowed() {
		overBudget.Add(1)
		return park, 0
	}
	spinWaits.Add(1)
	return park, spin
}

// spent charges d of spinning that ended now to the budget.
func (p PreciseWall) spent(d time.Duration) {
	if d <= 0 {
		return
	}
	spunNs.Add(int64(d))
	if r := p.spinRate(); r > 0 {
		budget.charge(budgetNow(), d, r)
	}
}

func (p PreciseWall) phases() (park, spin time.Duration) {
	park, spin = p.Park, p.Spin
	if park <= 0 {
		park = DefaultPark
	}
	if spin <= 0 {
		spin = p.adaptiveSpin().get()
	}
	return max(park, spin), spin
}

// spinOnly is how short a Sleep only spins: the spin phase, or the
// timer's lead, whichever is longer.
func (p PreciseWall) spinOnly(spin time.Duration) time.Duration {
	return max(spin, p.TimerLead())
}

// Sleep blocks for d, ending within a few microseconds of it.
func (p PreciseWall) Sleep(d time.Duration) {
	if d <= 0 {
		runtime.Gosched()
		return
	}
	t0 := time.Now()
	deadline := t0.Add(d)
	if _, spin := p.phases(); d <= p.spinOnly(spin) && p.spinAllowed() {
		// Spin only, and allocate nothing: nothing can wake a Sleep, and
		// an allocation right after an idle stretch costs microseconds
		// (a cold per-P cache), which a timer thread sleeping out its
		// TimerLead would add to the entry's lateness.
		spinWaits.Add(1)
		for time.Now().Before(deadline) {
		}
		p.spent(time.Since(t0))
		return
	}
	p.wait(newPreciseWaiter(), deadline, false)
}

// NewCond returns a condition variable whose WaitFor ends on time.
func (p PreciseWall) NewCond(m Mutex) Cond { return &preciseCond{m: m, p: p} }

// preciseWaiter is one wait. state is the futex word: 1 once woken.
type preciseWaiter struct {
	state  atomic.Uint32
	asleep atomic.Uint32 // 1 while in the futex phase
	ch     chan struct{} // closed by wake
	// Poll only: the timerfd a wait reads, which wake interrupts. polled
	// is set before fd, so that a wake that finds it unset stored its
	// state before the waiter's next look at it (both are atomics).
	polled atomic.Bool
	fdMu   sync.Mutex // guards fd
	fd     *timerFD
}

func newPreciseWaiter() *preciseWaiter { return &preciseWaiter{ch: make(chan struct{})} }

// wake ends the wait in whatever phase it is. Called at most once.
func (w *preciseWaiter) wake() {
	w.state.Store(1)
	close(w.ch)
	if w.asleep.Load() != 0 {
		futexWake(&w.state)
	}
	if w.polled.Load() {
		w.fdMu.Lock()
		if w.fd != nil {
			w.fd.interrupt()
		}
		w.fdMu.Unlock()
	}
}

// wait waits for a wake-up or the deadline and reports whether it was
// woken. A loose wait has no spin phase: it sleeps in the kernel to the
// deadline and ends as late as the kernel wakes it.
func (p PreciseWall) wait(w *preciseWaiter, deadline time.Time, loose bool) (woken bool) {
	if p.Poll {
		return p.waitPoll(w, deadline, loose)
	}
	var park, spin time.Duration
	if loose {
		park, _ = p.phases() // no spin phase
	} else {
		park, spin = p.waitPhases()
	}
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
		return p.spinUntil(w, deadline) // a wait shorter than the spin phase needs no slot
	}
	if !acquireSlot() {
		return p.park(w, deadline) // every slot taken: wait like Wall
	}
	defer releaseSlot()
	slept := false
	for {
		left := time.Until(deadline) - spin
		if left <= 0 {
			if slept && p.Spin <= 0 {
				adaptSpin.observe(-left) // how late the futex woke
			}
			break
		}
		w.asleep.Store(1)
		if w.state.Load() != 0 {
			return true
		}
		setTimerSlack()
		futexWait(&w.state, left)
		w.asleep.Store(0)
		slept = true
	}
	if loose {
		return w.state.Load() != 0
	}
	return p.spinUntil(w, deadline)
}

// spinUntil spins on the clock until the deadline or a wake-up, and
// charges the spin to the budget.
func (p PreciseWall) spinUntil(w *preciseWaiter, deadline time.Time) (woken bool) {
	t0 := time.Now()
	defer func() { p.spent(time.Since(t0)) }()
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
	raw  bool // futex sleeps hide from the runtime (GOMAXPROCS > 1)
}

func acquireSlot() bool {
	slots.once.Do(func() {
		n := runtime.GOMAXPROCS(0)
		slots.free.Store(int32(max(1, n-1)))
		slots.raw = n > 1
	})
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

func (c *preciseCond) WaitFor(d time.Duration) bool { return c.waitFor(d, false) }

// WaitForLoose is WaitFor without the spin phase (LooseCond).
func (c *preciseCond) WaitForLoose(d time.Duration) bool { return c.waitFor(d, true) }

func (c *preciseCond) waitFor(d time.Duration, loose bool) bool {
	deadline := time.Now().Add(d)
	w := c.enqueue()
	c.m.Unlock()
	defer c.m.Lock()
	if d > 0 && c.p.wait(w, deadline, loose) {
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
	c.wake(w)
}

func (c *preciseCond) Broadcast() {
	c.mu.Lock()
	ws := c.waiters
	c.waiters = nil
	c.mu.Unlock()
	for _, w := range ws {
		c.wake(w)
	}
}

// wake wakes a waiter taken off the list: when the bound mutex is a
// PreciseWall one, at its next Unlock (see preciseMutex).
func (c *preciseCond) wake(w *preciseWaiter) {
	if m, ok := c.m.(*preciseMutex); ok {
		m.wakeAfter(w)
		return
	}
	w.wake()
}

// preciseMutex is Wall's mutex that wakes the waiters its conditions
// signal while it is held at its Unlock, not at once: a waiter woken
// while the signaller still holds the mutex (as exec.Timer's leader does
// while it promotes a follower) wakes on another thread only to block on
// the mutex and be woken again, two more thread wake-ups per promotion
// (about 0.4 per firing measured on the project machine). The waiter has
// to take the mutex before its Wait returns, so waking it when the mutex
// is released loses it nothing.
type preciseMutex struct {
	sync.Mutex
	queued atomic.Int32 // len(woken), read by Unlock without mu
	mu     sync.Mutex
	woken  []*preciseWaiter
}

// NewMutex returns a mutex whose conditions wake waiters at Unlock.
func (PreciseWall) NewMutex(name string) Mutex { return &preciseMutex{} }

func (m *preciseMutex) Unlock() {
	m.Mutex.Unlock()
	if m.queued.Load() != 0 {
		m.deliver()
	}
}

// wakeAfter queues w to be woken at the next Unlock. If the mutex is free
// (a Signal without it held, or its holder unlocked before w was queued)
// it takes and releases it, which delivers.
func (m *preciseMutex) wakeAfter(w *preciseWaiter) {
	m.mu.Lock()
	m.woken = append(m.woken, w)
	m.queued.Store(int32(len(m.woken)))
	m.mu.Unlock()
	// A holder that unlocks after this point sees queued != 0; if the
	// mutex is free now, no Unlock may come, so deliver through one.
	if m.Mutex.TryLock() {
		m.Unlock()
	}
}

func (m *preciseMutex) deliver() {
	m.mu.Lock()
	ws := m.woken
	m.woken = nil
	m.queued.Store(0)
	m.mu.Unlock()
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
//
// With more than one P it sleeps in a raw system call, which does not
// wake the runtime's monitor (sysmon) to retake the P; with one P it tells
// the runtime (syscall.Syscall6), which hands the P on, since a raw sleep
// would stall every other goroutine for up to DefaultPark.
func futexWait(addr *atomic.Uint32, d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	if slots.raw {
		syscall.RawSyscall6(syscall.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWaitOp, 0,
			uintptr(unsafe.Pointer(&ts)), 0, 0)
		return
	}
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

var _ HandOffer = PreciseWall{}

// HandedOff yields the processor (HandOffer), so that the thread the
// caller just woke runs now rather than when the caller next blocks.
func (PreciseWall) HandedOff() { runtime.Gosched() }
