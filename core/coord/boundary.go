package coord

import (
	"time"

	"github.com/ckptsim/ckptsim/core/sched"
)

// Transport reaches the pipeline's tasks. In a cluster these are RPCs; in
// the simulator they are simulated tasks. A method returns once the
// operation is dispatched, not when it lands (seed 000, #12111).
type Transport interface {
	TriggerBarrier(job int64, pipeline int, task TaskID, b Barrier) error
	NotifyComplete(job int64, pipeline int, task TaskID, c *Completed) error
	NotifyStart(job int64, pipeline int, task TaskID) error
	RestoreState(job int64, pipeline int, task TaskID, c *Completed) error
}

// Storage is checkpoint storage. Store must make the checkpoint durable
// before it returns: a completed checkpoint is reported only after.
type Storage interface {
	Store(c *Completed) error
	Delete(job int64, pipeline int, ids []int64) error
	Latest(job int64, pipeline int) (*Completed, error)
	// IDs lists stored checkpoint ids oldest first (rebuilds retention
	// after a coordinator is recreated).
	IDs(job int64, pipeline int) ([]int64, error)
	// Load reads one stored checkpoint (nil: not stored); a restore falls
	// back to an older one through it when the latest fails its checksum.
	Load(job int64, pipeline int, id int64) (*Completed, error)
}

// SavepointWriter receives one pipeline's savepoint; the manager commits
// the bundle once every pipeline wrote.
type SavepointWriter interface {
	WritePipeline(c *Completed) error
}

// StatusStore is the engine's replicated map ("IMap"). Get and Set may fail
// with an error wrapping ErrRetryable, which callers retry.
type StatusStore interface {
	Get(key string) (string, error)
	Set(key, value string) error
	Delete(key string) error
}

// IDCounter allocates checkpoint ids per pipeline, starting at 1.
type IDCounter interface {
	Next(job int64, pipeline int) (int64, error)
	Set(job int64, pipeline int, next int64) error
}

// JobMaster is told when a pipeline's coordinator fails, so that it can
// fail over (restore) the pipeline.
type JobMaster interface {
	HandleCheckpointError(job int64, pipeline int, gen uint64, reason Reason)
}

// Lease is the part of a scheduler lease a coordinator uses: the
// production one is a *sched.Lease (adapt it with SchedLease); the
// simulator decorates it to check the scheduler's contract from outside.
//
// The contract the coordinator relies on: Schedule runs body once after
// delay unless cancelled; a Cancel that returns true before the task is
// due keeps the body from starting, and one that lands after the hand-off
// is best-effort (the body may start once, and must re-validate);
// CancelAll cancels every task scheduled before it returned; Closed
// reports a shut-down scheduler. Safe for concurrent use.
type Lease interface {
	Schedule(delay time.Duration, body func() error) Cancelable
	CancelAll()
	Closed() bool
}

// Cancelable is a scheduled task as the coordinator sees it.
type Cancelable interface{ Cancel() bool }

// SchedLease adapts a *sched.Lease to Lease (nil stays nil).
func SchedLease(l *sched.Lease) Lease {
	if l == nil {
		return nil
	}
	return schedLease{l}
}

type schedLease struct{ *sched.Lease }

func (l schedLease) Schedule(delay time.Duration, body func() error) Cancelable {
	return l.Lease.Schedule(delay, body)
}

// Executor is the master's coordinator executor (SPEC 1.13): core 10, no
// maximum, direct hand-off, rejects only after shutdown. *exec.Pool fits.
type Executor interface {
	Execute(fn func()) error
}

// Hooks are fault injection points the simulator sets; nil hooks do
// nothing. A hook models an exception raised at that point of the
// upstream code.
type Hooks struct {
	// TriggerFault is called in the trigger path before the lock (H4).
	TriggerFault func(job int64, pipeline int) error
	// Relabel, nil in production, plants the relabelling mutant of the
	// harness's own tests (issue 13): a failing expiry reports as the
	// generation that armed it the one Relabel returns from (armed,
	// current), so that a stale expiry looks fenced to any check that
	// trusts the label. It adds no scheduling point.
	Relabel func(armed, current uint64) uint64
}

// EventKind names an observable coordinator step.
type EventKind int

// The events a coordinator reports to its Observer.
const (
	EvTriggered      EventKind = iota // pending checkpoint created (ID, Type)
	EvCompleted                       // stored and about to be reported (ID)
	EvAborted                         // pending aborted (ID, Reason)
	EvGenFailed                       // a deferred effect failed generation Gen (ArmedGen)
	EvStaleDropped                    // a deferred effect of ArmedGen dropped (Gen current)
	EvRestored                        // new generation Gen; ID = latest completed read (0: none)
	EvExpiryFallback                  // executor rejected the expiry; ran inline
	EvTriggerArmed                    // a periodic trigger was armed (Delay)
	EvTriggerStopped                  // trigger path returned without re-arming (Reason)
	EvCanceled
	EvFinished // generation reached FINISHED or SUSPEND
	EvPendingCount
	EvGeneration         // a restore installed generation Gen (under coord.generation)
	EvEffect             // a deferred failure effect armed in ArmedGen starts (Op pairs it with its end)
	EvEffectNoop         // the effect Op did nothing: the generation had already ended
	EvInlineContinuation // inline variant: the continuation ran on the trigger thread (H6 window)
)

var eventNames = [...]string{"triggered", "completed", "aborted", "gen-failed", "stale-dropped", "restored",
	"expiry-fallback", "trigger-armed", "trigger-stopped", "canceled", "finished", "pending-count",
	"generation", "effect", "effect-noop", "inline-continuation"}

func (k EventKind) String() string { return eventNames[k] }

// Event is one observable step of a coordinator.
type Event struct {
	Kind     EventKind
	Job      int64
	Pipeline int
	Gen      uint64 // generation current when it happened (or failed)
	ArmedGen uint64 // for deferred effects: generation that armed it
	ID       int64
	Type     Type
	Reason   Reason
	Delay    time.Duration
	Count    int
	Op       uint64 // pairs an EvEffect with its end (EvGenFailed, EvStaleDropped, EvEffectNoop)
}

// Observer receives events synchronously on the thread that caused them.
// It must not call back into the coordinator.
type Observer func(Event)
