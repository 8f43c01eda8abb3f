package coord

import (
	"slices"
	"sync/atomic"
	"time"

	"github.com/ckptsim/ckptsim/core/env"
)

// Future is a once-settled value, a small CompletableFuture. Callbacks
// registered with WhenDone run on the thread that settles it (or on the
// caller, if already settled); callers that need a hop submit from there.
type Future[T any] struct {
	e   env.Env
	mu  env.Mutex // "coord.future": a leaf lock
	cv  env.Cond
	set bool
	val T
	err error
	cbs []func(T, error)
	// inline holds the first callbacks (most futures get one or two), so
	// that registering them allocates nothing.
	inline [2]func(T, error)
}

// NewFuture returns an unsettled future.
func NewFuture[T any](e env.Env) *Future[T] {
	f := &Future[T]{}
	f.init(e)
	return f
}

// init makes the zero Future f an unsettled future (for a future embedded
// in the struct that owns it).
func (f *Future[T]) init(e env.Env) {
	f.e, f.mu = e, e.NewMutex("coord.future")
	f.cv = e.NewCond(f.mu)
}

// Complete settles the future with v; it reports false if already settled.
func (f *Future[T]) Complete(v T) bool { return f.settle(v, nil) }

// Fail settles the future with err; it reports false if already settled.
func (f *Future[T]) Fail(err error) bool {
	var zero T
	return f.settle(zero, err)
}

func (f *Future[T]) settle(v T, err error) bool {
	f.mu.Lock()
	if f.set {
		f.mu.Unlock()
		return false
	}
	f.set, f.val, f.err = true, v, err
	cbs := f.cbs
	f.cbs = nil
	f.cv.Broadcast()
	f.mu.Unlock()
	for _, cb := range cbs {
		cb(v, err)
	}
	clear(f.inline[:]) // release the callbacks that ran (nothing registers after set)
	return true
}

// WhenDone runs cb once the future settles.
func (f *Future[T]) WhenDone(cb func(T, error)) {
	f.mu.Lock()
	if !f.set {
		if f.cbs == nil {
			f.cbs = f.inline[:0]
		}
		f.cbs = append(f.cbs, cb)
		f.mu.Unlock()
		return
	}
	v, err := f.val, f.err
	f.mu.Unlock()
	cb(v, err)
}

// Done reports whether the future is settled.
func (f *Future[T]) Done() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.set
}

// Get waits for the future and returns its outcome.
func (f *Future[T]) Get() (T, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for !f.set {
		f.cv.Wait()
	}
	return f.val, f.err
}

// GetFor waits up to d for the future's outcome; ok is false on timeout.
func (f *Future[T]) GetFor(d time.Duration) (v T, ok bool, err error) {
	deadline := f.e.Now().Add(d)
	f.mu.Lock()
	defer f.mu.Unlock()
	for !f.set {
		left := deadline.Sub(f.e.Now())
		if left <= 0 {
			return v, false, nil
		}
		f.cv.WaitFor(left)
	}
	return f.val, true, f.err
}

// watchdogRef holds a Pending's watchdog task for an atomic pointer.
type watchdogRef struct{ task Cancelable }

// cancelWatchdog cancels the watchdog if it is armed yet (one armed
// later re-checks that its checkpoint is still pending and does nothing).
func (p *Pending) cancelWatchdog() {
	if w := p.watchdog.Load(); w != nil {
		w.task.Cancel()
	}
}

// Pending is a checkpoint that was triggered and is waiting for acks.
type Pending struct {
	ID          int64
	Type        Type
	TriggeredAt time.Time
	Gen         uint64 // generation that created it
	cleans      uint64 // cleans seen when it was created
	job         int64
	pipeline    int
	mu          env.Mutex          // "coord.ack": states and acks; a leaf lock
	states      map[TaskID][]byte  // the acks so far; the Completed's from the last on (not touched here after)
	acks        int                // len(states) until the last ack
	fut         Future[*Completed] // nil value: aborted by RESET or PIPELINE_END
	// watchdog is the timeout watchdog, set by the continuation after the
	// barriers went out and read by the completion and a clean, which may
	// run on other threads by then (a data race under go test -race when
	// acks come back before the watchdog is armed).
	watchdog     atomic.Pointer[watchdogRef]
	tasks        []TaskID // the tasks it waits for and sends barriers to, in ascending order
	prepareClose []TaskID // idle tasks its barrier prepares to close
	closed       []TaskID // tasks closed when it was created
	// stored settles once completion persisted the checkpoint (its value)
	// or will not (an error; nil after a RESET): a savepoint is answered
	// from it, so the manager commits only bundles every pipeline wrote.
	stored Future[*Completed]
}

func newPending(e env.Env, job int64, pipeline int, id int64, typ Type, ts time.Time, gen uint64, tasks []TaskID) *Pending {
	p := &Pending{ID: id, Type: typ, TriggeredAt: ts, Gen: gen, job: job, pipeline: pipeline, tasks: tasks,
		mu: e.NewMutex("coord.ack"), states: make(map[TaskID][]byte, len(tasks))}
	p.fut.init(e) // fut and stored live in the Pending: one allocation for the three
	p.stored.init(e)
	return p
}

// ack records a task's acknowledgement and reports whether it was the last.
func (p *Pending) ack(task TaskID, state []byte) (last, dup bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.acks == len(p.tasks) || !p.awaitsLocked(task) {
		return false, true // every ack after the last is a duplicate
	}
	p.states[task] = state
	p.acks++
	return p.acks == len(p.tasks), false
}

// awaitsLocked reports, before the last ack, whether task is one p waits
// for and has not acked yet. p.tasks is in ascending order: the
// coordinator's tasks (0..n-1), filtered in order by idleSnapshot.
func (p *Pending) awaitsLocked(task TaskID) bool {
	if _, ok := slices.BinarySearch(p.tasks, task); !ok {
		return false
	}
	_, acked := p.states[task]
	return !acked
}

// FullyAcked reports whether every task acknowledged.
func (p *Pending) FullyAcked() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.acks == len(p.tasks)
}

func (p *Pending) completed(now time.Time) *Completed {
	p.mu.Lock()
	defer p.mu.Unlock()
	// Called once, by the last ack's caller: from then on the pending
	// neither reads nor writes states (every later ack is a duplicate), so
	// the map is handed over, not copied.
	states := p.states
	c := &Completed{Job: p.job, Pipeline: p.pipeline, ID: p.ID, Type: p.Type, TriggeredAt: p.TriggeredAt,
		CompletedAt: now, States: states, Generation: p.Gen, Closed: slices.Clone(p.prepareClose)}
	c.Sum = Checksum(c)
	return c
}

// Future is the pending checkpoint's completion.
func (p *Pending) Future() *Future[*Completed] { return &p.fut }
