package exec

import (
	"container/heap"
	"fmt"
	"time"

	"github.com/ckptsim/ckptsim/core/env"
)

// TimerConfig configures a Timer.
type TimerConfig struct {
	Name    string // thread name prefix ("checkpoint-timer")
	Threads int    // timer threads, started on demand (default 1)
	OnPanic func(thread string, v any)
	// DieOnPanic makes a panicking function end its thread, which a fresh
	// thread replaces (Stats.Died counts it), as a Java worker dies on an
	// uncaught throwable. By default the thread recovers and keeps serving.
	DieOnPanic bool
	// Lead is how long before a deadline a thread takes its entry and
	// promotes a follower (see env.TimerLeader): it then sleeps out the
	// rest and runs the entry at its deadline, so the promotion's wake-up
	// costs the entry nothing. 0 (the default) takes from the env's
	// TimerLead; negative takes entries at their deadline.
	Lead time.Duration
}

// TimerStats are a Timer's counters.
type TimerStats struct {
	Threads, Pending, Peak     int
	Scheduled, Fired, Canceled int64
	Panicked, Died             int64
	// Followers is how many threads wait untimed to be promoted to leader.
	Followers int
}

// Timer runs functions after a delay on a fixed set of timer threads,
// under the leader/followers discipline: one thread, the leader, waits
// (timed) for the earliest deadline; the others wait untimed. When the
// deadline comes, the leader takes the entry, promotes a follower to
// leader and only then runs the function, so the next deadline is already
// being waited for while it runs, and at most one thread is ever in a
// timed wait for an entry it has not taken.
//
// With a lead (TimerConfig.Lead, env.TimerLeader), the leader takes the
// entry that much before its deadline: the promotion (a wake-up, costly
// for the waker on some machines) happens while the deadline is still
// ahead, and the taker sleeps out the rest and then runs the entry. A
// taken entry can still be cancelled until its deadline, and ShutdownNow
// still drops it.
type Timer struct {
	e      env.Env
	cfg    TimerConfig
	mu     env.Mutex // guards everything below
	lead   env.Cond  // the leader waits here for the earliest deadline
	follow env.Cond  // followers wait here to be promoted
	leader bool      // a thread is leading
	h      entryHeap
	seq    uint64
	next   int // thread number
	closed bool
	ahead  time.Duration // TimerConfig.Lead resolved
	adapt  bool          // ahead follows the env's TimerLead (Lead 0 on a TimerLeader)
	claims int           // entries taken within the lead, not yet due
	s      TimerStats
}

// Handle is a scheduled function.
type Handle struct {
	t     *Timer
	at    time.Time
	seq   uint64
	fn    func(string)
	r     Runner // instead of fn (ScheduleRunnerAt)
	index int    // position in the heap, -1 once taken or cancelled
	fired bool
	// claimed: taken within the lead of its deadline, not yet run (the
	// taker is sleeping out the lead); Cancel and ShutdownNow still stop it.
	claimed bool
	// lead: the lead a leader's timed wait for h ran out with (0 when h was
	// taken otherwise); what it used is reported to an env.LeadObserver
	// (observeLead).
	lead time.Duration
}

// NewTimer returns a timer service with no threads yet.
func NewTimer(e env.Env, cfg TimerConfig) *Timer {
	if cfg.Threads <= 0 {
		cfg.Threads = 1
	}
	t := &Timer{e: e, cfg: cfg, mu: e.NewMutex("exec.timer")}
	switch {
	case cfg.Lead > 0:
		t.ahead = cfg.Lead
	case cfg.Lead == 0:
		t.ahead = env.TimerLead(e)
		_, t.adapt = e.(env.TimerLeader)
	}
	t.lead = e.NewCond(t.mu)
	t.follow = e.NewCond(t.mu)
	return t
}

// Schedule runs fn on a timer thread once d has passed. Entries with equal
// deadlines fire in the order they were scheduled.
func (t *Timer) Schedule(d time.Duration, fn func()) (*Handle, error) {
	return t.ScheduleOn(d, func(string) { fn() })
}

// ScheduleOn is Schedule for a function that wants the timer thread's name.
func (t *Timer) ScheduleOn(d time.Duration, fn func(thread string)) (*Handle, error) {
	return t.ScheduleAt(t.e.Now().Add(max(d, 0)), fn)
}

// ScheduleAt runs fn on a timer thread once the clock reaches at; an at in
// the past is due at once (and keeps its place: earlier deadlines first).
func (t *Timer) ScheduleAt(at time.Time, fn func(thread string)) (*Handle, error) {
	return t.scheduleAt(at, fn, nil)
}

// ScheduleRunnerAt is ScheduleAt for a Runner (r.Run is the function).
func (t *Timer) ScheduleRunnerAt(at time.Time, r Runner) (*Handle, error) {
	return t.scheduleAt(at, nil, r)
}

func (t *Timer) scheduleAt(at time.Time, fn func(thread string), r Runner) (*Handle, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		env.Hit(t.e, env.ProbeTimerScheduleClosed)
		return nil, ErrClosed
	}
	t.seq++
	h := &Handle{t: t, at: at, seq: t.seq, fn: fn, r: r}
	heap.Push(&t.h, h)
	t.s.Scheduled++
	t.s.Pending = len(t.h) + t.claims
	if t.s.Threads < t.cfg.Threads {
		t.startLocked()
	}
	if t.h[0] == h && t.leader {
		t.lead.Signal() // a new earliest deadline: the leader re-arms its wait
	}
	return h, nil
}

func (t *Timer) startLocked() {
	t.next++
	t.s.Threads++
	t.s.Peak = max(t.s.Peak, t.s.Threads)
	name := fmt.Sprintf("%s-%d", t.cfg.Name, t.next)
	t.e.Go(name, func() { t.loop(name) })
}

func (t *Timer) loop(name string) {
	for {
		h, claimed := t.nextDue()
		if h == nil {
			return
		}
		var cr ClaimRunner // a claim handed over: it observes the lead and awaits the deadline itself
		if claimed {
			cr, _ = h.r.(ClaimRunner)
		}
		if cr == nil {
			t.observeLead(h)
			if claimed && !t.awaitClaim(h) {
				continue // cancelled or shut down during the lead
			}
		}
		if !t.fire(name, h, cr) && t.cfg.DieOnPanic {
			t.died()
			return
		}
	}
}

// nextDue waits, as a follower and then as the leader, for the earliest
// entry to come due and removes it; nil once the timer is closed.
//
// A due head is taken by whichever thread comes through here first,
// leader or not: leadership only matters for waiting, so a thread that
// comes free from a function never waits behind a promoted leader that
// has not run yet. Every thread that is neither the leader nor an idle
// follower (it runs a function, is starting, or was just woken) comes back
// through this loop, so whenever there is no leader one of them takes the
// lead; when every thread runs a function, due entries wait in the heap.
func (t *Timer) nextDue() (h *Handle, claimed bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	leading := false
	var waited time.Duration // the lead of a timed wait that ran out, else 0
	for {
		if t.adapt {
			t.ahead = env.TimerLead(t.e) // the env's lead adapts (env.LeadObserver)
		}
		if t.closed {
			t.s.Threads--
			if leading {
				t.leader = false
			}
			return nil, false
		}
		var now time.Time
		if len(t.h) > 0 {
			if now = t.e.Now(); !t.h[0].at.After(now.Add(t.ahead)) {
				h := t.takeLocked(now, leading)
				h.lead = waited
				return h, h.claimed // read under the lock: Cancel may clear it once it is released
			}
		}
		if !leading {
			if t.leader {
				t.s.Followers++
				t.follow.Wait()
				t.s.Followers--
				continue
			}
			leading, t.leader = true, true
		}
		waited = 0
		switch {
		case len(t.h) == 0:
			t.lead.Wait()
		case t.ahead > 0:
			// Loose: the wait ends early anyway, and the taker waits out
			// the rest of the lead on its own (awaitClaim).
			if env.WaitForLoose(t.lead, t.h[0].at.Sub(now)-t.ahead) {
				waited = t.ahead
			}
		default:
			t.lead.WaitFor(t.h[0].at.Sub(now))
		}
	}
}

// takeLocked pops the due head. A leader taking it (or any thread, when
// there is no leader) promotes a follower before the caller runs it: the promoted thread's wake-up happens while
// the function runs, off its critical path. When more entries are already
// due, it also wakes one follower for each (as many as wait), so that
// they take them at the speed of the lock, not of one wake-up per entry in
// a chain.
func (t *Timer) takeLocked(now time.Time, leading bool) *Handle {
	h := heap.Pop(&t.h).(*Handle)
	if h.at.After(now) { // within the lead: run it at its deadline
		h.claimed = true
		t.claims++
	} else {
		h.fired = true
		t.s.Fired++
	}
	t.s.Pending = len(t.h) + t.claims
	// Only up to Followers due entries matter (at most that many are woken):
	// counting stops there, so a burst of n due entries costs O(n·followers),
	// not O(n²). min(F, min(due, F)+x) = min(F, due+x) for x >= 0.
	wake := t.h.countDue(0, now.Add(t.ahead), t.s.Followers) // stops at the root when the next head is not due
	if leading {
		t.leader = false
	}
	if !t.leader {
		wake++ // someone must take the lead (a follower that took a due entry leaves none)
	}
	for range min(t.s.Followers, wake) {
		t.follow.Signal()
	}
	return h
}

// observeLead reports to an env.LeadObserver how much of its lead the
// timed wait that ended in taking h used, outside the timer's lock: the
// lead less what is left of it now, so more than the lead when the wait
// ran past h's deadline. Overruns count too, or an adaptive lead would
// learn only the latenesses below itself and never grow past a tail it
// does not cover.
func (t *Timer) observeLead(h *Handle) {
	if h.lead > 0 {
		if o, ok := t.e.(env.LeadObserver); ok {
			o.ObserveLead(h.lead - h.at.Sub(t.e.Now()))
		}
	}
}

// awaitClaim sleeps until a claimed entry's deadline and reports whether
// it is still to run: false if it was cancelled or the timer shut down
// meanwhile.
func (t *Timer) awaitClaim(h *Handle) bool {
	d := h.at.Sub(t.e.Now())
	if d > 0 {
		t.e.Sleep(d)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !h.claimed {
		return false // Cancel took it
	}
	h.claimed = false
	t.claims--
	if t.closed {
		return false // ShutdownNow counted it as dropped
	}
	h.fired = true
	t.s.Fired++
	t.s.Pending = len(t.h) + t.claims
	return true
}

// A ClaimRunner is a Runner that is handed its entry when a timer thread
// claims it, within the lead of its deadline (TimerConfig.Lead), instead
// of at the deadline. RunClaimed runs on the timer thread at the claim; the
// work it stands for must not start before Claim.Await has returned true,
// which it may call on another thread (a hand-off design passes the claim
// to the thread that runs the work, so that the hand-off's wake-up happens
// while the deadline is still ahead). An entry taken at or after its
// deadline is Run as any Runner's.
type ClaimRunner interface {
	Runner
	RunClaimed(thread string, c Claim)
}

// Claim is an entry a timer thread took within its lead, not yet due.
type Claim struct {
	t *Timer
	h *Handle
}

// Await sleeps until the claimed entry's deadline and reports whether it
// is still to run: false if it was cancelled (Handle.Cancel) or the timer
// shut down meanwhile. It is called once per claim.
//
// The lead the claim used is reported here (to an env.LeadObserver), not
// at the claim: an adaptive lead then covers the hand-off to the thread
// that awaits as well as the timer thread's own lateness.
func (c Claim) Await() bool {
	c.t.observeLead(c.h)
	return c.t.awaitClaim(c.h)
}

// fire runs h's function (cr: its claim, handed over) and reports false if
// it panicked.
func (t *Timer) fire(name string, h *Handle, cr ClaimRunner) (ok bool) {
	defer func() {
		if v := recover(); v != nil {
			ok = false
			t.mu.Lock()
			t.s.Panicked++
			t.mu.Unlock()
			if t.cfg.OnPanic != nil {
				t.cfg.OnPanic(name, v)
			}
		}
	}()
	switch {
	case cr != nil:
		cr.RunClaimed(name, Claim{t, h})
	case h.r != nil:
		h.r.Run(name)
	default:
		h.fn(name)
	}
	return true
}

// died replaces a thread that a panic ended (DieOnPanic).
func (t *Timer) died() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.s.Threads--
	t.s.Died++
	if !t.closed {
		t.startLocked()
	}
}

// Cancel removes the entry if it has not fired and reports whether it did.
func (h *Handle) Cancel() bool {
	t := h.t
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case h.claimed && !t.closed:
		env.Hit(t.e, env.ProbeTimerClaimCancelled)
		h.claimed = false
		t.claims--
	case h.index < 0 || h.fired:
		return false
	default:
		heap.Remove(&t.h, h.index)
	}
	t.s.Canceled++
	t.s.Pending = len(t.h) + t.claims
	return true
}

// Dropped reports whether the timer shut down before the entry fired: it
// never will (ShutdownNow dropped it, or a claim it was sleeping out).
func (h *Handle) Dropped() bool {
	t := h.t
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.closed && !h.fired
}

// Due returns the deadline the entry was scheduled for.
func (h *Handle) Due() time.Time { return h.at }

// Delay returns the time left until the deadline (negative when past).
func (h *Handle) Delay() time.Duration { return h.at.Sub(h.t.e.Now()) }

// ShutdownNow stops the timer threads and returns how many pending entries
// it dropped. Later Schedule calls return ErrClosed.
func (t *Timer) ShutdownNow() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.claims > 0 && !t.closed {
		env.Hit(t.e, env.ProbeTimerClaimDropped)
	}
	t.closed = true
	n := len(t.h) + t.claims // taken within the lead, not yet run: dropped too
	for _, h := range t.h {
		h.index = -1
	}
	t.h = nil
	t.s.Pending = 0
	t.lead.Broadcast()
	t.follow.Broadcast()
	return n
}

// Overdue returns how many entries are due and not yet taken by a thread:
// with every thread busy, the queue of work waiting for one.
func (t *Timer) Overdue() int {
	now := t.e.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.h.countDue(0, now, len(t.h))
}

// Closed reports whether ShutdownNow was called.
func (t *Timer) Closed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.closed
}

// Stats returns a snapshot of the counters.
func (t *Timer) Stats() TimerStats {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.s
}

type entryHeap []*Handle

func (h entryHeap) Len() int { return len(h) }

// countDue counts the entries at or below i that are due at now, up to
// limit; a heap node is never earlier than its parent, so the walk stops
// at the first later one on each branch.
func (h entryHeap) countDue(i int, now time.Time, limit int) int {
	if limit <= 0 || i >= len(h) || h[i].at.After(now) {
		return 0
	}
	n := 1
	n += h.countDue(2*i+1, now, limit-n)
	n += h.countDue(2*i+2, now, limit-n)
	return n
}
func (h entryHeap) Less(i, j int) bool {
	if !h[i].at.Equal(h[j].at) {
		return h[i].at.Before(h[j].at)
	}
	return h[i].seq < h[j].seq
}
func (h entryHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index = i
	h[j].index = j
}
func (h *entryHeap) Push(x any) {
	e := x.(*Handle)
	e.index = len(*h)
	*h = append(*h, e)
}
func (h *entryHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	e.index = -1
	return e
}
