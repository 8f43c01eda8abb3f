package sched

import (
	"fmt"
	"time"

	"github.com/ckptsim/ckptsim/core/env"
	"github.com/ckptsim/ckptsim/core/exec"
)

// Lease is one pipeline's view of the scheduler: it tracks only its own
// outstanding tasks. Its methods are safe for concurrent use.
type Lease struct {
	s        *base
	job      int64
	pipeline int
	mu       env.Mutex // "sched.lease": tasks, task handles and results; a leaf lock
	settled  env.Cond  // broadcast whenever a task settles
	tasks    map[uint64]*Task
	nextID   uint64
	timer    func() *exec.Timer // the timer to arm on, called with mu held (per-pipeline: replaced by reset)
	fire     func(t *Task, thread string)
	// claimed, when set, takes a task its timer claimed within the lead
	// (exec.ClaimRunner) in place of Claim.Await and fire on the timer
	// thread: the shared design hands the claim to a dispatcher.
	claimed func(t *Task, thread string, c exec.Claim)
	reset   func() // per-pipeline: rebuild the timer after CancelAll
}

func newLease(s *base, job int64, pipeline int) *Lease {
	l := &Lease{s: s, job: job, pipeline: pipeline, tasks: map[uint64]*Task{}}
	l.mu = s.e.NewMutex("sched.lease")
	l.settled = s.e.NewCond(l.mu)
	s.register(l)
	return l
}

// Job and Pipeline identify the lease.
func (l *Lease) Job() int64    { return l.job }
func (l *Lease) Pipeline() int { return l.pipeline }

// Schedule runs body after delay. It never returns nil; after the
// scheduler is closed the task is already cancelled and never runs.
func (l *Lease) Schedule(delay time.Duration, body func() error) *Task {
	return l.ScheduleAt(l.s.e.Now().Add(max(delay, 0)), body)
}

// ScheduleAt runs body once the clock reaches due. A due in the past runs
// at once but keeps due as the task's due time, so a fixed-rate caller
// (due = t0 + k x interval) sees its firings' delays measured from the
// intended schedule, not from a late re-arm. Otherwise as Schedule.
func (l *Lease) ScheduleAt(due time.Time, body func() error) *Task {
	t := &Task{lease: l, body: body, due: due}
	if l.s.Closed() {
		t.cancelled.Store(true)
		t.done, t.err = true, ErrCanceled
		return t
	}
	l.mu.Lock()
	l.nextID++
	t.id = l.nextID
	l.tasks[t.id] = t
	tm := l.timer() // with the registration: a reset that retires tm finds t (settleDropped)
	t.timer = tm
	l.mu.Unlock()
	t.armed = l.s.e.Now()
	h, err := tm.ScheduleRunnerAt(due, (*timerFire)(t))
	if err != nil {
		env.Hit(l.s.e, env.ProbeLeaseArmRefused)
		l.s.cfg.Logger.Debug("checkpoint timer rejected a task", "job", l.job, "pipeline", l.pipeline, "err", err)
		t.Cancel()
		return t
	}
	l.s.c.scheduled.Add(1)
	t.attach(h)
	return t
}

// CancelAll cancels this lease's outstanding tasks. The lease stays
// usable. A task scheduled while it runs still settles: it is cancelled,
// or it stays outstanding and runs (or a later CancelAll reaches it).
// (Each cancelled task leaves the set as it settles; emptying the set
// afterwards dropped such a task uncancelled, out of reach of every later
// CancelAll: TestCancelAllKeepsConcurrentSchedule. The per-pipeline reset
// shut down the old timer with such a task's entry on it, never run and
// never cancelled: TestCancelAllSettlesConcurrentSchedule.)
func (l *Lease) CancelAll() {
	l.mu.Lock()
	snapshot := sorted(l.tasks)
	l.mu.Unlock()
	for _, t := range snapshot {
		t.Cancel()
	}
	if l.s.cfg.CancelAll == CancelAllClears {
		// upstream's trailing clear() (PCS L95, F026): it removes only
		// tasks scheduled after the snapshot, never cancelled.
		l.mu.Lock()
		clear(l.tasks)
		l.mu.Unlock()
	}
	if l.reset != nil {
		l.reset()
	}
}

// settleDropped cancels the outstanding tasks armed on tm, a timer a reset
// shut down, that will never fire: the entries ShutdownNow dropped (a task
// scheduled while CancelAll ran, after its snapshot) and the tasks not yet
// attached to theirs (whose entry may have been dropped too, or whose
// ScheduleRunnerAt on tm fails and cancels them anyway; one whose entry
// already fired is cancelled best-effort, as CancelAll's own are). An
// attached task tm fired is left to run and settle.
func (l *Lease) settleDropped(tm *exec.Timer) {
	type armed struct {
		t *Task
		h *exec.Handle
	}
	var on []armed
	l.mu.Lock()
	for _, t := range sorted(l.tasks) {
		if t.timer == tm {
			on = append(on, armed{t, t.handle})
		}
	}
	l.mu.Unlock()
	for _, a := range on {
		if a.h == nil || a.h.Dropped() {
			a.t.cancel(false)
		}
	}
}

// cancelOutstanding settles the outstanding tasks as cancelled once the
// scheduler is closed (their timer entries are gone), in one critical
// section: no timer handle is left to cancel. The loop makes no env call
// and its result does not depend on the map's order.
func (l *Lease) cancelOutstanding() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for id, t := range l.tasks {
		t.cancelled.Store(true)
		if !t.done {
			t.done, t.err = true, ErrCanceled
		}
		delete(l.tasks, id)
	}
	l.settled.Broadcast()
}

// Outstanding returns how many tasks are scheduled and not yet settled.
func (l *Lease) Outstanding() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.tasks)
}

// Closed reports whether the scheduler behind the lease is closed.
func (l *Lease) Closed() bool { return l.s.Closed() }

func (l *Lease) String() string { return fmt.Sprintf("lease(job %d, pipeline %d)", l.job, l.pipeline) }
