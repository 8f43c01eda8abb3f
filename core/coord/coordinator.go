package coord

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync/atomic"
	"time"

	"github.com/ckptsim/ckptsim/core/env"
	"github.com/ckptsim/ckptsim/core/variant"
)

// Config is one pipeline's checkpoint configuration (SPEC section C).
type Config struct {
	Interval       time.Duration // 0 disables periodic checkpoints (batch)
	Timeout        time.Duration // default 30 s
	SchemaTimeout  time.Duration // SCHEMA_CHANGE_AFTER timeout, default 30 s
	MinPause       time.Duration // -1 or 0: disabled
	MaxRetained    int           // default 20
	Tasks          int           // tasks of the pipeline, default 1
	StartingTasks  int           // tasks 0..StartingTasks-1 start the pipeline (sources); 0: all. Others may close when idle
	StatusRetries  int           // IMap retries, default 30
	StatusBackoff  time.Duration // default 2 s
	PendingBackoff time.Duration // guard 7 re-arm, default 500 ms
	SavepointPoll  time.Duration // savepoint sleep-poll, default 500 ms
	Variants       variant.Set
	Logger         *slog.Logger
	Observer       Observer
	Hooks          Hooks
}

func (c Config) withDefaults() Config {
	if c.Timeout <= 0 {
		c.Timeout = 30 * time.Second
	}
	if c.SchemaTimeout <= 0 {
		c.SchemaTimeout = 30 * time.Second
	}
	if c.MaxRetained <= 0 {
		c.MaxRetained = 20
	}
	if c.Tasks <= 0 {
		c.Tasks = 1
	}
	if c.StatusRetries <= 0 {
		c.StatusRetries = 30
	}
	if c.StatusBackoff <= 0 {
		c.StatusBackoff = 2 * time.Second
	}
	if c.PendingBackoff <= 0 {
		c.PendingBackoff = 500 * time.Millisecond
	}
	if c.SavepointPoll <= 0 {
		c.SavepointPoll = 500 * time.Millisecond
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// Deps are a coordinator's boundaries.
type Deps struct {
	Env       env.Env
	Lease     Lease           // per pipeline; SchedLease(*sched.Lease) in production
	Executor  func() Executor // the current coordinator executor (replaced on master reactivation)
	Transport Transport
	Storage   Storage
	Status    StatusStore
	IDs       IDCounter
	Master    JobMaster
}

// Coordinator runs the checkpoint protocol of one pipeline of one job.
//
// Locks, in the order they may be taken (never the reverse):
//
//	coord.restore     Restore (a failover and a job-master restore never interleave)
//	coord.completion  completePendingCheckpoint (Java: synchronized on the coordinator)
//	coord.lock        trigger critical section, savepoint wait, clean; re-entrant for the
//	                  barrier-continuation=inline variant only
//	coord.generation  the generation counter and its terminal future
//	coord.pending     the pending map, task status, ready-to-close and idle sets (leaf)
//	coord.periodic    the live periodic trigger chain; held across Lease.Schedule and Cancel
//	coord.ack, coord.future, sched.lease, exec.*   leaves
//
// The manager's "coord.manager" lock is taken only before coord.lock or
// alone. No lock is held while calling the Transport, the Storage or the
// StatusStore except coord.completion (storage writes are serialised by
// it) and coord.lock in the savepoint-wait=under-lock and inline variants,
// which is the hazard those variants reproduce.
type Coordinator struct {
	d        Deps
	e        env.Env
	cfg      Config
	job      int64
	pipeline int
	tasks    []TaskID
	// readyKey is the pipeline's ready-to-close status key; the status key
	// is its prefix (both formatted once, not per status write).
	readyKey string

	restoreMu env.Mutex
	lock      env.Mutex
	complMu   env.Mutex
	retainMu  env.Mutex // coord.retention: a retention step against a rebuild of the retained ids (F042)
	genMu     env.Mutex
	statusMu  env.Mutex     // serialises status writes with their generation check
	gen       uint64        // guarded by genMu
	genNow    atomic.Uint64 // gen, stored under genMu: read without a lock by the trigger fence
	// finishedFinal: a generation finished with the COMPLETED_POINT (its
	// notice reached every task); Restore leaves the pipeline alone then.
	finishedFinal atomic.Bool
	// endedGen is the last generation a finish (SUSPEND, FINISHED) or a
	// cancel began to end: no checkpoint is triggered in it any more,
	// whatever the shutdown flag says (a restore in flight clears that
	// flag after its own clean; F044). Stored before the ending's clean.
	endedGen atomic.Uint64
	fut      *Future[GenStatus] // guarded by genMu; replaced by restore
	mapMu    env.Mutex

	periodicMu   env.Mutex  // "coord.periodic": the live periodic chain
	periodicTok  uint64     // guarded by periodicMu: the live chain's token
	periodicTask Cancelable // guarded by periodicMu: its waiting trigger

	// guarded by mapMu
	pending      map[int64]*Pending
	taskStatus   map[TaskID]TaskState
	readyToClose map[TaskID]bool
	idle         idleSets
	completedIDs []int64 // retention deque; also guarded by complMu for writes
	savepointReq *Future[*Completed]
	spWriter     SavepointWriter
	cleans       uint64 // cleans so far; a pending created before a clean is refused

	effects          atomic.Uint64 // failure effects started, for pairing events
	savepointWaiting atomic.Int32  // savepoints waiting outside coord.lock for the pending checkpoint
	pendingCounter   atomic.Int32
	latestCompleted  atomic.Pointer[Completed]
	latestTrigger    atomic.Int64 // unix ns
	shutdown         atomic.Bool
	allTaskReady     atomic.Bool
	schemaChanging   atomic.Bool
	firstError       atomic.Pointer[string]
	logger           atomic.Pointer[slog.Logger] // log()'s, once made
}

// New returns a coordinator for (job, pipeline). restored, when non-nil,
// is the pipeline state it starts from.
func New(d Deps, job int64, pipeline int, cfg Config, restored *Completed) *Coordinator {
	cfg, d = cfg.withDefaults(), containDeps(d) // a plugin's panic is its call's error (PluginPanic)
	if d.Lease == nil {
		// H7: upstream NPEs later; fail at construction with the reason.
		panic(fmt.Sprintf("coord: nil scheduler lease for job %d pipeline %d", job, pipeline))
	}
	e := d.Env
	c := &Coordinator{d: d, e: e, cfg: cfg, job: job, pipeline: pipeline,
		restoreMu: e.NewMutex("coord.restore"), lock: e.NewMutex("coord.lock"), complMu: e.NewMutex("coord.completion"),
		retainMu: e.NewMutex("coord.retention"),
		genMu:    e.NewMutex("coord.generation"), statusMu: e.NewMutex("coord.status"), mapMu: e.NewMutex("coord.pending"),
		periodicMu: e.NewMutex("coord.periodic"),
		pending:    map[int64]*Pending{}, taskStatus: map[TaskID]TaskState{}, readyToClose: map[TaskID]bool{},
		idle: newIdleSets(), readyKey: fmt.Sprintf("checkpoint_state_%d_%d%s", job, pipeline, readySuffix)}
	c.tasks = make([]TaskID, 0, max(cfg.Tasks, 0)) // ascending: a pending checkpoint's tasks are a subsequence
	for i := range cfg.Tasks {
		c.tasks = append(c.tasks, TaskID(i))
	}
	c.gen = 1
	c.genNow.Store(1)
	c.fut = NewFuture[GenStatus](e)
	if restored != nil {
		r := *restored
		r.Restored = true
		c.latestCompleted.Store(&r)
	}
	c.latestTrigger.Store(e.Now().UnixNano())
	return c
}

// Job and Pipeline identify the coordinator.
func (c *Coordinator) Job() int64    { return c.job }
func (c *Coordinator) Pipeline() int { return c.pipeline }

// Generation returns the current generation and its terminal future.
func (c *Coordinator) Generation() (uint64, *Future[GenStatus]) {
	c.genMu.Lock()
	defer c.genMu.Unlock()
	return c.gen, c.fut
}

// PendingCount returns the single-in-flight counter.
func (c *Coordinator) PendingCount() int { return int(c.pendingCounter.Load()) }

// LatestCompleted returns the latest completed checkpoint (nil: none).
func (c *Coordinator) LatestCompleted() *Completed { return c.latestCompleted.Load() }

// Lease returns the coordinator's scheduler lease.
func (c *Coordinator) Lease() Lease { return c.d.Lease }

func (c *Coordinator) emit(ev Event) {
	if c.cfg.Observer == nil {
		return
	}
	ev.Job, ev.Pipeline = c.job, c.pipeline
	c.cfg.Observer(ev)
}

// log is the logger with the coordinator's job and pipeline, made on first
// use (most coordinators never log) and kept.
func (c *Coordinator) log() *slog.Logger {
	if l := c.logger.Load(); l != nil {
		return l
	}
	l := c.cfg.Logger.With("job", c.job, "pipeline", c.pipeline)
	c.logger.CompareAndSwap(nil, l)
	return l
}

// isCompleted: the latest completed checkpoint is final and not restored.
func (c *Coordinator) isCompleted() bool {
	l := c.latestCompleted.Load()
	return l != nil && l.Type.Final() && !l.Restored
}

var errBuggifyRejected = errors.New("coordinator executor rejected the task (buggify)")

// async runs fn on the coordinator executor.
func (c *Coordinator) async(fn func()) error {
	if env.Buggify(c.e, env.SiteExecutorRejects) {
		return errBuggifyRejected // BUGGIFY: every caller handles a rejection
	}
	return c.d.Executor().Execute(fn)
}

// pendingSnapshot returns the pending checkpoints in id order.
func (c *Coordinator) pendingSnapshot() []*Pending {
	c.mapMu.Lock()
	defer c.mapMu.Unlock()
	return c.pendingLocked()
}

// pendingLocked is pendingSnapshot for a caller that holds coord.map.
func (c *Coordinator) pendingLocked() []*Pending {
	out := make([]*Pending, 0, len(c.pending))
	for _, p := range c.pending {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b *Pending) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

func (c *Coordinator) lookup(id int64) *Pending {
	c.mapMu.Lock()
	defer c.mapMu.Unlock()
	return c.pending[id]
}

const readySuffix = "_ready_to_close"

// statusKey is the pipeline's status key, checkpoint_state_J_P.
func (c *Coordinator) statusKey() string { return c.readyKey[:len(c.readyKey)-len(readySuffix)] }

// readyToCloseKey is the key of the pipeline's ready-to-close set,
// checkpoint_state_J_P_ready_to_close.
func (c *Coordinator) readyToCloseKey() string { return c.readyKey }
