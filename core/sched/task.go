package sched

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/ckptsim/ckptsim/core/env"
	"github.com/ckptsim/ckptsim/core/exec"
)

// Task is a scheduled body and the future of its outcome.
type Task struct {
	id        uint64
	lease     *Lease
	body      func() error
	cancelled atomic.Bool
	due       time.Time // when it was due to fire
	armed     time.Time // when it was scheduled
	fired     time.Time

	// guarded by lease.mu
	timer  *exec.Timer // the timer it is armed on (per-pipeline: a reset replaces the lease's)
	handle *exec.Handle

	claim exec.Claim // the timer's claim, handed to a dispatcher (claimedDispatch)
	done  bool
	err   error
}

func (t *Task) attach(h *exec.Handle) {
	l := t.lease
	l.mu.Lock()
	t.handle = h
	l.mu.Unlock()
	if t.cancelled.Load() {
		h.Cancel() // the cancel raced the attach
	}
}

// Cancel cancels the task and reports whether this call did it. A cancel
// before the timer fires keeps the body from ever reaching the dispatch
// pool; after the hand-off it is best-effort (see the package doc).
func (t *Task) Cancel() bool { return t.cancel(true) }

// cancel is Cancel; probe is false for settleDropped's cancels, whose
// entries a reset dropped rather than fired.
func (t *Task) cancel(probe bool) bool {
	if !t.cancelled.CompareAndSwap(false, true) {
		return false
	}
	l := t.lease
	l.mu.Lock()
	h, done := t.handle, t.done
	l.mu.Unlock()
	if h != nil && h.Cancel() {
		l.s.c.canceledBeforeFire.Add(1)
	} else if h != nil && probe && !done && !l.s.Closed() {
		env.Hit(l.s.e, env.ProbeTaskCancelAfterFire) // fired, not settled: its body is queued or running
	}
	t.settle(ErrCanceled)
	return true
}

// settle completes the future (first outcome wins) and removes the task
// from its lease.
func (t *Task) settle(err error) {
	l := t.lease
	l.mu.Lock()
	defer l.mu.Unlock()
	if !t.done {
		t.done, t.err = true, err
	}
	delete(l.tasks, t.id)
	l.settled.Broadcast()
}

// Cancelled reports whether Cancel succeeded.
func (t *Task) Cancelled() bool { return t.cancelled.Load() }

// Done reports whether the task settled (ran, failed or was cancelled).
func (t *Task) Done() bool {
	l := t.lease
	l.mu.Lock()
	defer l.mu.Unlock()
	return t.done
}

// Err returns the task's failure: nil after a successful run, the body's
// error or panic, or ErrCanceled.
func (t *Task) Err() error {
	l := t.lease
	l.mu.Lock()
	defer l.mu.Unlock()
	return t.err
}

// Await waits up to d for the task to settle and reports whether it did.
func (t *Task) Await(d time.Duration) bool {
	l := t.lease
	e := l.s.e
	deadline := e.Now().Add(d)
	l.mu.Lock()
	defer l.mu.Unlock()
	for !t.done {
		left := deadline.Sub(e.Now())
		if left <= 0 {
			return false
		}
		l.settled.WaitFor(left)
	}
	return true
}

// Due returns when the task was due to fire.
func (t *Task) Due() time.Time { return t.due }

// Delay returns the time left until the task is due (0 once due).
func (t *Task) Delay() time.Duration {
	return max(t.due.Sub(t.lease.s.e.Now()), 0)
}

// run is the dispatch-side body: check the cancel flag, run, settle.
func (t *Task) run(thread string) {
	s := t.lease.s
	f := Firing{Job: t.lease.job, Pipeline: t.lease.pipeline, Due: t.due, Armed: t.armed, Fired: t.fired, Thread: thread}
	if closed := s.Closed(); closed || t.cancelled.Load() {
		if !closed {
			env.Hit(s.e, env.ProbeTaskSkippedCancelled)
		}
		t.Cancel()
		s.c.skipped.Add(1)
		f.Skipped = true
		s.observe(f)
		return
	}
	s.e.Yield() // a cancel may land here: the best-effort window (H2)
	f.Started = s.e.Now()
	if t.cancelled.Load() {
		env.Hit(s.e, env.ProbeTaskRunsAfterCancel)
		s.c.ranAfterCancel.Add(1)
	}
	err := t.call()
	f.Ended, f.Err = s.e.Now(), err
	t.finish(err)
	s.observe(f)
	if err != nil && s.cfg.TaskFailure == KillWorker {
		panic(err) // PR-B: the re-throw kills the dispatch worker (H3)
	}
}

// markFired stamps the task fired, now, and counts it (Stats.Fired): on
// the timer thread at the deadline, or on the dispatcher that was handed
// the claim (claimedDispatch).
func (t *Task) markFired() {
	s := t.lease.s
	t.fired = s.e.Now()
	s.c.fired.Add(1)
}

func (t *Task) finish(err error) {
	s, l := t.lease.s, t.lease
	if err == nil {
		s.c.completed.Add(1)
	} else {
		s.c.failed.Add(1)
		s.cfg.Logger.Error("checkpoint task failed", "job", l.job, "pipeline", l.pipeline, "err", err)
	}
	t.settle(err)
}

// call runs the body, turning a panic into an error.
func (t *Task) call() (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("sched: task panicked: %v", v)
		}
	}()
	return t.body()
}

func (b *base) observe(f Firing) {
	if b.cfg.Observe != nil {
		b.cfg.Observe(f)
	}
}

// timerFire and dispatch are a Task as the timer's and the dispatch pool's
// exec.Runner: firing and running a task allocate no closure for it.
type (
	timerFire       Task
	dispatch        Task
	claimedDispatch Task
)

func (a *timerFire) Run(thread string) { t := (*Task)(a); t.lease.fire(t, thread) }
func (d *dispatch) Run(thread string)  { (*Task)(d).run(thread) }

// RunClaimed takes the task when its timer claimed it within the lead
// (exec.ClaimRunner): the lease's claimed hook when it has one, else the
// timer thread sleeps out the lead and fires it, as for any Runner.
func (a *timerFire) RunClaimed(thread string, c exec.Claim) {
	t := (*Task)(a)
	if t.lease.claimed != nil {
		t.lease.claimed(t, thread, c)
		return
	}
	if c.Await() {
		t.lease.fire(t, thread)
	}
}

// Run on a dispatcher: sleep out the claim, then fire and run the task
// there (the shared design with a lead; see shared.claimed).
func (d *claimedDispatch) Run(thread string) {
	t := (*Task)(d)
	if !t.claim.Await() {
		return // cancelled or the timer shut down during the lead: as the timer thread would
	}
	t.markFired()
	t.lease.s.c.dispatched.Add(1)
	t.run(thread)
}
