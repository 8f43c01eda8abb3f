package exec

import (
	"errors"
	"strconv"
	"time"

	"github.com/ckptsim/ckptsim/core/env"
)

// Errors returned by Execute.
var (
	ErrClosed    = errors.New("exec: pool shut down")
	ErrSaturated = errors.New("exec: pool saturated")
)

// QueueKind selects how a Pool holds work that no thread can take yet.
type QueueKind int

// The queue kinds.
const (
	// Unbounded queues every submission once Core threads exist.
	Unbounded QueueKind = iota
	// Bounded queues up to QueueCap submissions.
	Bounded
	// Direct hands a submission to an idle thread or a new one, never
	// queueing it (Java's SynchronousQueue).
	Direct
)

// PoolConfig configures a Pool.
type PoolConfig struct {
	Name      string // thread name prefix; threads are Name-1, Name-2, ...
	Core, Max int    // Max < Core is raised to Core
	KeepAlive time.Duration
	ReapCore  bool // idle core threads also exit after KeepAlive
	Queue     QueueKind
	QueueCap  int
	// OnPanic receives a recovered panic and the thread it killed.
	OnPanic func(thread string, v any)
}

// Stats are a Pool's counters.
type Stats struct {
	Threads, Active, Queued, Idle int
	Peak                          int
	Completed, Rejected, Panicked int64
	Started, Reaped, Died         int64
}

type poolState int

const (
	running poolState = iota
	shutdown
	stopped
)

// Pool is a worker pool. Its methods are safe for concurrent use.
type Pool struct {
	e     env.Env
	cfg   PoolConfig
	mu    env.Mutex // guards everything below
	work  env.Cond  // idle threads wait here for work
	ended env.Cond  // AwaitTermination waits here for threads == 0
	queue taskQueue
	state poolState
	next  int // thread number
	s     Stats
}

// NewPool returns a pool with no threads.
func NewPool(e env.Env, cfg PoolConfig) *Pool {
	if cfg.Max < cfg.Core {
		cfg.Max = cfg.Core
	}
	if cfg.Max <= 0 {
		cfg.Max = 1
	}
	p := &Pool{e: e, cfg: cfg, mu: e.NewMutex("exec.pool")}
	p.work = e.NewCond(p.mu)
	p.ended = e.NewCond(p.mu)
	return p
}

// Runner is a function given as a value: Run gets the name of the thread
// that runs it. A caller that already holds a pointer per call (a task
// record) passes it as a Runner and allocates no closure for it.
type Runner interface{ Run(thread string) }

// task is one submission: Execute's fn, ExecuteOn's on or ExecuteRunner's
// r (kept apart, so that nothing is wrapped: a wrapper was one allocation
// per task).
type task struct {
	fn func()
	on func(string)
	r  Runner
}

// taskQueue is the pool's FIFO of queued tasks: a ring over one array,
// which doubles when full. A queue that never quite drains keeps reusing
// its array (a slice taken from the front crept along its array and was
// reallocated at its end).
type taskQueue struct {
	buf  []task
	head int // buf index of the oldest task
	n    int // tasks queued
}

func (q *taskQueue) len() int { return q.n }

func (q *taskQueue) push(t task) {
	if q.n == len(q.buf) {
		buf := make([]task, max(4, 2*len(q.buf)))
		k := copy(buf, q.buf[q.head:])
		copy(buf[k:], q.buf[:q.head])
		q.buf, q.head = buf, 0
	}
	q.buf[(q.head+q.n)%len(q.buf)] = t
	q.n++
}

// pop removes and returns the oldest task; the queue must not be empty.
func (q *taskQueue) pop() task {
	t := q.buf[q.head]
	q.buf[q.head] = task{} // the pool keeps no reference to a task it handed out
	q.head = (q.head + 1) % len(q.buf)
	q.n--
	return t
}

func (t task) none() bool { return t.fn == nil && t.on == nil && t.r == nil }

func (t task) call(name string) {
	if t.r != nil {
		t.r.Run(name)
		return
	}
	if t.on != nil {
		t.on(name)
		return
	}
	t.fn()
}

// Execute runs fn on a pool thread, or returns ErrClosed or ErrSaturated.
func (p *Pool) Execute(fn func()) error {
	if fn == nil {
		return p.submit(task{on: func(string) { fn() }}) // panics on the pool thread, as it did
	}
	return p.submit(task{fn: fn})
}

// ExecuteOn is Execute for a function that wants the name of the thread
// that runs it.
func (p *Pool) ExecuteOn(fn func(thread string)) error { return p.submit(task{on: fn}) }

// ExecuteRunner is ExecuteOn for a Runner (r.Run is the function).
func (p *Pool) ExecuteRunner(r Runner) error {
	if r == nil {
		return p.submit(task{on: func(string) { r.Run("") }}) // panics on the pool thread, as a nil func does
	}
	return p.submit(task{r: r})
}

func (p *Pool) submit(fn task) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.state != running {
		env.Hit(p.e, env.ProbePoolRejectsShutdown)
		p.s.Rejected++
		return ErrClosed
	}
	if p.s.Threads < p.cfg.Core {
		p.startLocked(fn)
		return nil
	}
	if p.offerLocked(fn) {
		if p.s.Threads == 0 {
			p.startLocked(task{})
		}
		return nil
	}
	if p.s.Threads < p.cfg.Max {
		p.startLocked(fn)
		return nil
	}
	env.Hit(p.e, env.ProbePoolRejectsSaturated)
	p.s.Rejected++
	return ErrSaturated
}

// offerLocked queues fn if the queue kind accepts it now.
func (p *Pool) offerLocked(fn task) bool {
	switch p.cfg.Queue {
	case Bounded:
		if p.queue.len() >= p.cfg.QueueCap {
			return false
		}
	case Direct:
		if p.s.Idle <= p.queue.len() {
			return false
		}
	}
	p.queue.push(fn)
	p.s.Queued = p.queue.len()
	p.work.Signal()
	return true
}

func (p *Pool) startLocked(first task) {
	p.next++
	p.s.Threads++
	p.s.Started++
	p.s.Peak = max(p.s.Peak, p.s.Threads)
	var buf [32]byte // "name-n" built in place: one allocation, the string
	name := string(strconv.AppendInt(append(append(buf[:0], p.cfg.Name...), '-'), int64(p.next), 10))
	p.e.Go(name, func() { p.worker(name, first) })
}

func (p *Pool) worker(name string, next task) {
	for {
		if next.none() {
			var ok bool
			if next, ok = p.take(); !ok {
				return
			}
		}
		if !p.run(name, next) {
			p.died()
			return
		}
		next = task{}
	}
}

// take waits for work. It returns false when the thread must exit; the
// thread count has then already been decremented.
func (p *Pool) take() (task, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		if p.state == stopped || (p.state == shutdown && p.queue.len() == 0) {
			p.exitLocked()
			return task{}, false
		}
		if p.queue.len() > 0 {
			fn := p.queue.pop()
			p.s.Queued = p.queue.len()
			return fn, true
		}
		if p.waitLocked() {
			env.Hit(p.e, env.ProbePoolWorkerReaped)
			p.s.Reaped++
			p.exitLocked()
			return task{}, false
		}
	}
}

// waitLocked waits for work and reports whether this idle thread should be
// reaped (its keep-alive passed with nothing to do).
func (p *Pool) waitLocked() bool {
	timed := p.cfg.ReapCore || p.s.Threads > p.cfg.Core
	p.s.Idle++
	defer func() { p.s.Idle-- }()
	if !timed {
		p.work.Wait()
		return false
	}
	timedOut := p.work.WaitFor(p.cfg.KeepAlive)
	// Re-check against the thread count now: several threads may time out
	// together and only those above Core may go.
	stillTimed := p.cfg.ReapCore || p.s.Threads > p.cfg.Core
	reap := timedOut && stillTimed && p.queue.len() == 0 && p.state == running
	if timedOut && !reap && p.state == running {
		env.Hit(p.e, env.ProbePoolReapDeclined) // work queued as it expired, or back within Core
	}
	return reap
}

func (p *Pool) exitLocked() {
	p.s.Threads--
	if p.s.Threads == 0 {
		p.ended.Broadcast()
	}
}

// run runs one task and reports false if it panicked.
func (p *Pool) run(name string, t task) (ok bool) {
	p.mu.Lock()
	p.s.Active++
	p.mu.Unlock()
	defer func() {
		v := recover()
		p.mu.Lock()
		p.s.Active--
		p.s.Completed++
		if v != nil {
			p.s.Panicked++
		}
		p.mu.Unlock()
		if v != nil && p.cfg.OnPanic != nil {
			p.cfg.OnPanic(name, v)
		}
		ok = v == nil
	}()
	t.call(name)
	return true
}

// died replaces a thread killed by a panic, as Java's processWorkerExit.
func (p *Pool) died() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.s.Died++
	p.exitLocked()
	if p.state == stopped || (p.state == shutdown && p.queue.len() == 0) {
		return
	}
	if p.s.Threads < p.cfg.Core || p.queue.len() > 0 {
		p.startLocked(task{})
	}
}

// Shutdown rejects new work and lets queued work finish.
func (p *Pool) Shutdown() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.state == running {
		p.state = shutdown
	}
	p.work.Broadcast()
}

// ShutdownNow rejects new work and returns the queued work it dropped
// (each function takes the thread name; "" is fine). Running functions are
// not interrupted.
func (p *Pool) ShutdownNow() []func(string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.state = stopped
	var dropped []func(string)
	for p.queue.len() > 0 {
		t := p.queue.pop()
		if t.r != nil {
			dropped = append(dropped, t.r.Run)
		} else if t.on != nil || t.fn == nil {
			dropped = append(dropped, t.on)
		} else {
			dropped = append(dropped, func(string) { t.fn() })
		}
	}
	p.queue = taskQueue{}
	p.s.Queued = 0
	p.work.Broadcast()
	return dropped
}

// IsShutdown reports whether Shutdown or ShutdownNow was called.
func (p *Pool) IsShutdown() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.state != running
}

// AwaitTermination waits up to d for every thread to exit after a shutdown
// and reports whether they did.
func (p *Pool) AwaitTermination(d time.Duration) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	deadline := p.e.Now().Add(d)
	for p.s.Threads > 0 {
		left := deadline.Sub(p.e.Now())
		if left <= 0 {
			env.Hit(p.e, env.ProbePoolAwaitTimeout)
			return false
		}
		p.ended.WaitFor(left)
	}
	return true
}

// Stats returns a snapshot of the counters.
func (p *Pool) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.s
}

// Name returns the thread name prefix.
func (p *Pool) Name() string { return p.cfg.Name }
