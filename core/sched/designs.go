package sched

import (
	"fmt"
	"time"

	"github.com/ckptsim/ckptsim/core/env"
	"github.com/ckptsim/ckptsim/core/exec"
)

// shared is the member-wide design, with or without the hand-off.
type shared struct {
	base
	timer  *exec.Timer
	pool   *exec.Pool // nil for shared-inline
	inline bool
}

func newShared(e env.Env, cfg Config) *shared {
	s := &shared{base: newBase(e, cfg), inline: cfg.Design == SharedInline}
	s.timer = exec.NewTimer(e, exec.TimerConfig{Name: "checkpoint-timer", Threads: cfg.TimerThreads, OnPanic: s.onPanic, Lead: cfg.TimerLead})
	if !s.inline {
		n := cfg.Bound()
		s.pool = exec.NewPool(e, exec.PoolConfig{
			Name: "checkpoint-dispatcher", Core: n, Max: n, KeepAlive: cfg.KeepAlive,
			ReapCore: true, Queue: exec.Unbounded, OnPanic: s.onPanic,
		})
	}
	return s
}

func (s *shared) Lease(job int64, pipeline int) *Lease {
	l := newLease(&s.base, job, pipeline)
	l.timer = func() *exec.Timer { return s.timer }
	l.fire = s.fire
	if !s.inline {
		l.claimed = s.claimed
	}
	return l
}

// claimed runs on a timer thread that took t within the lead of its
// deadline: it hands t to a dispatcher now, with the claim, and the
// dispatcher sleeps out the lead and runs it at the deadline
// (claimedDispatch). The hand-off's wake-up then happens while the
// deadline is still ahead, as the timer's promotion of a follower does,
// instead of between the deadline and the body. A cancel or ShutdownNow
// during the lead still stops the task (Claim.Await).
func (s *shared) claimed(t *Task, thread string, c exec.Claim) {
	t.claim = c
	if err := s.pool.ExecuteRunner((*claimedDispatch)(t)); err != nil {
		env.Hit(s.e, env.ProbeClaimHandOffRefused)
		s.cfg.Logger.Debug("checkpoint dispatcher rejected a task", "job", t.lease.job, "pipeline", t.lease.pipeline, "err", err)
		t.Cancel() // takes the claim back from the timer
		return
	}
	env.HandedOff(s.e) // let the woken dispatcher run before this thread re-arms
}

// fire runs on a timer thread: it only stamps and hands off (or, inline,
// runs the body itself).
func (s *shared) fire(t *Task, thread string) {
	t.markFired()
	if s.inline {
		t.run(thread)
		return
	}
	if err := s.pool.ExecuteRunner((*dispatch)(t)); err != nil {
		s.cfg.Logger.Debug("checkpoint dispatcher rejected a task", "job", t.lease.job, "pipeline", t.lease.pipeline, "err", err)
		t.Cancel()
		return
	}
	s.c.dispatched.Add(1)
	env.HandedOff(s.e) // let the woken dispatcher run before this thread re-arms
}

func (s *shared) Close() {
	if s.closed.Swap(true) {
		return
	}
	s.timer.ShutdownNow()
	if s.pool != nil && s.cfg.CloseTasks == CloseDrops {
		s.pool.ShutdownNow() // upstream discards the list (SCS L200, F010)
	} else if s.pool != nil {
		for _, fn := range s.pool.ShutdownNow() {
			fn("closed") // run sees the scheduler closed and cancels the task
		}
	}
	s.settleAll()
}

func (s *shared) Stats() Stats {
	var st Stats
	s.c.into(&st)
	st.TimerThreads = s.timer.Stats().Threads
	if s.pool != nil {
		ps := s.pool.Stats()
		st.DispatchThreads, st.PeakDispatchThreads, st.Queued = ps.Threads, ps.Peak, ps.Queued
		st.WorkerDeaths = ps.Died
	}
	return st
}

// resetSwapLate is how late a per-pipeline reset swaps its fresh timer in
// when BUGGIFY reset-swap-late fires: the coordinator's default pending
// back-off, as long as rearm-races-cancel holds a re-arm back, so that a
// re-arm held back when CancelAll began reaches the lease before the swap.
const resetSwapLate = 500 * time.Millisecond

// perPipeline gives every lease its own two-thread timer that runs bodies
// itself (the design before the change).
type perPipeline struct {
	base
	mu     env.Mutex // "sched.registry": timers; a leaf lock
	timers []*exec.Timer
}

func newPerPipeline(e env.Env, cfg Config) *perPipeline {
	return &perPipeline{base: newBase(e, cfg), mu: e.NewMutex("sched.registry")}
}

func (p *perPipeline) newTimer(job int64, pipeline int) *exec.Timer {
	tm := exec.NewTimer(p.e, exec.TimerConfig{
		Name:    fmt.Sprintf("checkpoint-pipeline-%d-%d-timer", job, pipeline),
		Threads: p.cfg.TimerThreads, OnPanic: p.onPanic, Lead: p.cfg.TimerLead,
	})
	p.mu.Lock()
	p.timers = append(p.timers, tm)
	p.mu.Unlock()
	return tm
}

func (p *perPipeline) Lease(job int64, pipeline int) *Lease {
	l := newLease(&p.base, job, pipeline)
	cur := p.newTimer(job, pipeline)
	l.timer = func() *exec.Timer { return cur } // l.mu held
	l.fire = func(t *Task, thread string) {
		t.markFired()
		t.run(thread)
	}
	l.reset = func() {
		fresh := p.newTimer(job, pipeline)
		if env.Buggify(p.e, env.SiteResetSwapLate) {
			// BUGGIFY: the fresh timer is slow to start, so the swap comes
			// late; a Schedule racing CancelAll still arms on old meanwhile.
			p.e.Sleep(resetSwapLate)
		}
		l.mu.Lock()
		old := cur
		cur = fresh
		l.mu.Unlock()
		old.ShutdownNow()
		l.settleDropped(old) // a task armed on old during the swap would never settle
	}
	return l
}

func (p *perPipeline) Close() {
	if p.closed.Swap(true) {
		return
	}
	p.mu.Lock()
	timers := p.timers
	p.mu.Unlock()
	for _, tm := range timers {
		tm.ShutdownNow()
	}
	p.settleAll()
}

func (p *perPipeline) Stats() Stats {
	var st Stats
	p.c.into(&st)
	p.mu.Lock()
	defer p.mu.Unlock()
	live := p.timers[:0]
	for _, tm := range p.timers {
		ts := tm.Stats()
		st.TimerThreads += ts.Threads
		if ts.Threads > 0 || !tm.Closed() {
			live = append(live, tm) // prune timers replaced by a reset once their threads exit
		}
	}
	p.timers = live
	return st
}

// leaderFollower is one pool of at most Bound() threads under the
// leader/followers discipline (exec.Timer's): the leader waits for the
// earliest deadline, takes the entry, promotes a follower and runs the
// body itself, so no hand-off sits between the deadline and the body.
// When every thread runs a body, due tasks wait in the deadline heap, as
// the shared design's dispatch queue holds them.
type leaderFollower struct {
	base
	pool *exec.Timer
}

func newLeaderFollower(e env.Env, cfg Config) *leaderFollower {
	s := &leaderFollower{base: newBase(e, cfg)}
	s.pool = exec.NewTimer(e, exec.TimerConfig{
		Name: "checkpoint-scheduler", Threads: cfg.Bound(), OnPanic: s.onPanic, Lead: cfg.TimerLead,
		DieOnPanic: cfg.TaskFailure == KillWorker, // the PR-B re-throw (H3); the thread is replaced
	})
	return s
}

func (s *leaderFollower) Lease(job int64, pipeline int) *Lease {
	l := newLease(&s.base, job, pipeline)
	l.timer = func() *exec.Timer { return s.pool }
	l.fire = func(t *Task, thread string) {
		t.markFired()
		t.run(thread)
	}
	return l
}

func (s *leaderFollower) Close() {
	if s.closed.Swap(true) {
		return
	}
	s.pool.ShutdownNow()
	s.settleAll()
}

// Stats reports the pool's threads as dispatch threads (they run bodies)
// and no timer threads: the leader is one of them.
func (s *leaderFollower) Stats() Stats {
	var st Stats
	s.c.into(&st)
	ts := s.pool.Stats()
	st.DispatchThreads, st.PeakDispatchThreads = ts.Threads, ts.Peak
	st.WorkerDeaths = ts.Died
	st.Queued = s.pool.Overdue()
	return st
}
