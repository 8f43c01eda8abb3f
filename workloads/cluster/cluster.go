package cluster

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/ckptsim/ckptsim/core/coord"
	"github.com/ckptsim/ckptsim/core/exec"
	"github.com/ckptsim/ckptsim/core/sched"
	"github.com/ckptsim/ckptsim/sim"
)

// Workload shapes the simulated tasks and stores.
type Workload struct {
	AckLatency      Dist // barrier received to acknowledgement
	DispatchLatency Dist // a barrier RPC dispatch (the caller blocks)
	NotifyLatency   Dist
	StatusLatency   Dist // each status-store call
	StorageLatency  Dist // each checkpoint store
	RestartDelay    Dist // job master: failure reported to restore
	BodySlowness    Dist // blocking work in each dispatched trigger body
	StatusSlow      Dist // extra status-store latency while faults are on
	// Sources, sinks and offset checkpointers (pipeline.go); 0 partitions: none.
	Partitions  int
	BatchRate   float64 // batches per second per partition
	SinkFailure float64 // probability a sink fails a batch while faults are on
	SinkFanout  float64 // probability a batch goes to two sink writes (Ack.Add: two holders)
	// PlantCommitPastWatermark (test only) commits one offset past each watermark.
	PlantCommitPastWatermark bool
	// Idle tasks and bounded sources (idle.go): each non-starting task asks
	// to close IdleAfter after the start; each pipeline's sources finish
	// FinishAfter after the start (zero: never).
	IdleAfter   Dist
	FinishAfter Dist
	// PlantCommitBehindWatermark (test only) commits one offset short of each watermark.
	PlantCommitBehindWatermark bool
	// PlantLostResolution (test only): each pipeline's sink drops the
	// first resolution it makes 5 s or more after the start (neither Done
	// nor Fail is called) while recording it as made, as a checkpointer
	// that loses a resolution would look from the sink.
	PlantLostResolution bool
	// PlantLostFailure (test only): each pipeline without quarantine drops
	// the first Fail its sink makes 5 s or more after the start while
	// recording it as made, as a checkpointer that hides a failure would
	// look from the sink: StalledPartitions never reports it Failed.
	PlantLostFailure bool
}

// FaultRates are per-operation fault probabilities; the swarm switches
// them on and off per seed.
type FaultRates struct {
	StatusRetryable float64 // status Set/Get fails with a retryable error
	StorageFail     float64 // checkpoint store fails
	StoreReplyLost  float64 // a checkpoint store's write lands but its reply is lost (the call returns an error)
	BitRot          float64 // a stored checkpoint's bytes rot once committed (one state byte flips)
	IDFail          float64 // id allocation fails
	AckDrop         float64 // a task never acknowledges a barrier (expiry)
	BarrierFail     float64 // barrier dispatch fails
	NotifyFail      float64 // notify-complete fails
	// NotifyStartFail: a Transport.NotifyStart call fails (the start
	// notice of allTaskReady), drawn from sim.StreamNotifyStart.
	NotifyStartFail float64
	TriggerThrow    float64 // an exception in the trigger path (H4)
	TaskError       float64 // a task reports a checkpoint error instead of acknowledging
	// SavepointRot: a committed savepoint rots (a state bit of a payload
	// or a bit of the manifest flips, or a payload loses its tail). The harness's savepoint store draws it (workloads), not the
	// cluster: the cluster stores no savepoint.
	SavepointRot float64
	// BoundaryPanic: a boundary call made on a core thread (a coordinator
	// executor worker or a scheduler task body: Storage.Store,
	// Transport.TriggerBarrier and NotifyComplete, StatusStore.Set) panics
	// instead of returning an error, as a Java plugin throws an unchecked
	// exception. A call from a harness thread (a restore, a cancel) never
	// panics: the harness is the job master, not a plugin's caller.
	BoundaryPanic float64
	// StorageReadFail: a read of checkpoint storage fails (Storage.Latest,
	// Load, IDs): in file storage one read of core's store (the listing,
	// the newest file's read, or every file read of the call) fails with
	// an I/O error; in memory the call fails.
	StorageReadFail float64
	// StorageDeleteFail: a delete of checkpoint storage fails
	// (Storage.Delete, DeleteJob): in file storage one step of core's
	// delete (a remove or the directory sync) fails; in memory the call
	// fails and deletes nothing.
	StorageDeleteFail float64
	// StorageTorn (file storage only): a committed checkpoint file loses
	// its tail, durably (a short file core must refuse).
	StorageTorn float64
	// SavepointFail: one operation of the harness's savepoint store (Begin,
	// WritePipeline, Commit, List, Read, Delete, DeleteAll, Restore) fails
	// at one of its file-system steps or reads. The harness's savepoint
	// store draws it (workloads), not the cluster.
	SavepointFail float64
}

// Config configures a cluster.
type Config struct {
	Jobs, Pipelines, Tasks int
	StartingTasks          int // tasks 0..StartingTasks-1 are sources; 0: all (no idle tasks)
	Coord                  coord.Config
	Sched                  sched.Config
	Workload               Workload
	Faults                 FaultRates
	ExecutorCore           int // coordinator executor core threads (10)
	// ExecutorMax bounds the coordinator executor's threads (0: no
	// maximum, SeaTunnel's default max-thread-num); a submission that
	// finds every one busy is rejected (exec.ErrSaturated).
	ExecutorMax int
	// ExecutorKeepAlive is how long an idle thread above the executor's
	// core threads lives (60 s).
	ExecutorKeepAlive time.Duration
	// FileStorage stores checkpoints through core's production checkpoint
	// store (savepoint.Checkpoints) on a crashable simulated file system
	// instead of an in-memory map (filestore.go).
	FileStorage bool
	// LegacyUntil (file storage only): checkpoints stored before this
	// virtual instant are written in the legacy v0 layout, as the engine
	// version before an upgrade wrote them (legacy.go); restores after it
	// read files of both layouts.
	LegacyUntil time.Duration
	// RewriteEvent, when set (tests only), rewrites every coordinator
	// event before anything in the harness sees it: a decorator that
	// proves no verdict depends on the coordinator's labels.
	RewriteEvent func(coord.Event) coord.Event
}

// Cluster is one simulated member running jobs.
type Cluster struct {
	W      *sim.World
	cfg    Config
	work   *rand.Rand
	faults *rand.Rand
	// notifyStart: sim.StreamNotifyStart, made at the first NotifyStart
	// the fault is on for (NotifyStartFail).
	notifyStart *rand.Rand
	Storage     *Storage
	Status      *StatusStore
	IDs         *IDs
	Sched       sched.Scheduler
	Managers    []*coord.Manager
	Recorder    *Recorder
	exec        *exec.Pool
	// ExecutorPanics counts the coordinator executor's tasks that panicked.
	ExecutorPanics int
	// Panicked counts the BoundaryPanic faults injected, by boundary call.
	Panicked map[string]int
	// ExecutorSaturated counts the submissions the coordinator executor
	// rejected for want of a thread (Config.ExecutorMax).
	ExecutorSaturated int
	healed            bool
	leases            *Leases
	stateBuf          []byte // acknowledged task states are carved from it (taskState)

	onBoundary   []func(Obs)
	onLease      []func(Obs)
	onPipe       []func(PipeObs)
	restoreCalls int64
	inCalls      int64          // calls the harness made into core (Into)
	canceled     map[int64]bool // jobs the harness canceled (CancelJob)
	restoring    map[int64]int  // job -> the harness's restores of it in flight
	// failureDue: job -> the virtual instants at which a task of it will
	// report an injected error (TaskError) or a barrier's dispatch to it
	// ends, failed or not (BarrierFail), while TrackFailures is on, for
	// NextFailureDue
	failureDue    map[int64][]time.Duration
	trackFailures bool
	// redeploying: pipeline -> its redeploys in flight (RedeployPipeline),
	// whose tasks have not all reported READY_START
	redeploying map[PipelineID]int
	// redeployRestart: pipeline -> the restore (its call) that restarts
	// the reports of its redeploy in flight (RestorePipeline); 0: none
	redeployRestart map[PipelineID]int64
	// redeployHeld: pipeline -> the restores of RestorePipeline in flight
	// that hold its redeploy's reports
	redeployHeld map[PipelineID]int

	// Pipelines are the sources and sinks (nil without partitions).
	Pipelines *Pipelines
	idle      *idleTasks // nil without idle tasks or bounded sources
	// OnTask, when set, sees each barrier a task receives and each
	// acknowledgement it sends (a timeline of the run collects them).
	OnTask func(TaskEvent)
}

// TaskEvent is a barrier reaching a task or its acknowledgement leaving.
type TaskEvent struct {
	At       time.Duration
	Job      int64
	Pipeline int
	Task     coord.TaskID
	ID       int64 // checkpoint id
	Ack      bool  // false: barrier received
}

func (c *Cluster) taskEvent(job int64, pipeline int, task coord.TaskID, id int64, ack bool) {
	if c.OnTask != nil {
		c.OnTask(TaskEvent{At: c.W.Elapsed(), Job: job, Pipeline: pipeline, Task: task, ID: id, Ack: ack})
	}
}

// New builds the cluster's stores, scheduler, executor and job managers.
// Call it from a simulated thread.
func New(w *sim.World, cfg Config) (*Cluster, error) {
	c := &Cluster{W: w, cfg: cfg, work: w.Rand(sim.StreamWorkload), faults: w.Rand(sim.StreamFaults),
		canceled: map[int64]bool{}, restoring: map[int64]int{}, failureDue: map[int64][]time.Duration{}, redeploying: map[PipelineID]int{},
		redeployRestart: map[PipelineID]int64{}, redeployHeld: map[PipelineID]int{}}
	c.Recorder = newRecorder(w)
	c.leases = NewLeases(w, c.observe)
	c.Storage = newStorage(c)
	c.Status = &StatusStore{c: c, m: map[string]string{}, mu: w.NewMutex("sim.status")}
	c.IDs = &IDs{c: c, next: map[PipelineID]int64{}, mu: w.NewMutex("sim.ids")}
	s, err := sched.New(w, cfg.Sched)
	if err != nil {
		return nil, err
	}
	c.Sched = s
	c.exec = c.newExecutor()
	ccfg := cfg.Coord
	ccfg.Tasks, ccfg.StartingTasks = cfg.Tasks, cfg.StartingTasks
	c.Pipelines = newPipelines(c)
	c.idle = newIdleTasks(c)
	obs := c.idle.chain(c.Pipelines.chain(c.Recorder.observe))
	if rw := cfg.RewriteEvent; rw != nil {
		inner := obs
		obs = func(ev coord.Event) { inner(rw(ev)) }
	}
	ccfg.Observer = obs
	ccfg.Hooks.TriggerFault = c.triggerFault
	for j := range cfg.Jobs {
		deps := coord.ManagerDeps{Scheduler: s, WrapLease: c.leases.Wrap, Deps: coord.Deps{
			Env: w, Executor: c.executor, Transport: &Transport{c: c, job: int64(j)},
			Storage: c.Storage, Status: c.Status, IDs: c.IDs, Master: &Master{c: c},
		}}
		c.Managers = append(c.Managers, coord.NewManager(deps, int64(j), cfg.Pipelines, ccfg))
	}
	return c, nil
}

func (c *Cluster) newExecutor() *exec.Pool {
	core := c.cfg.ExecutorCore
	if core <= 0 {
		core = 10
	}
	keep := c.cfg.ExecutorKeepAlive
	if keep <= 0 {
		keep = 60 * time.Second
	}
	maxThreads := c.cfg.ExecutorMax
	if maxThreads <= 0 {
		maxThreads = 1 << 30
	}
	return exec.NewPool(c.W, exec.PoolConfig{Name: "coordinator-executor", Core: core, Max: maxThreads,
		KeepAlive: keep, Queue: exec.Direct, OnPanic: c.executorPanicked})
}

// executorPanicked is the coordinator executor's OnPanic: a task handed
// to it panicked and killed its worker (the pool starts another). Core is
// to contain a plugin's panic before it gets here (coord's boundary
// calls), so this is noted in the trace and counted.
func (c *Cluster) executorPanicked(thread string, v any) {
	c.W.Note("coordinator executor thread %s died: panic: %v", thread, v)
	c.ExecutorPanics++
}

func (c *Cluster) executor() coord.Executor { return effectExec{c} }

// effectExec is the coordinator executor as the coordinator sees it: a
// hand-off to it is a boundary call (the lease checks watch them).
type effectExec struct{ c *Cluster }

func (x effectExec) Execute(fn func()) error {
	x.c.call("Executor.Execute")
	err := x.c.exec.Execute(fn)
	if errors.Is(err, exec.ErrSaturated) {
		x.c.W.Note("coordinator executor saturated: a task was rejected")
		x.c.ExecutorSaturated++
		x.c.observe(Obs{Kind: ObsFault, Job: -1, Pipeline: -1, Fault: FaultSaturated})
	}
	return err
}

// Quiesce closes the scheduler and waits QuiesceGrace for every task to
// settle; call it from a simulated thread at the end of a run, then
// SelfReport after it.
func (c *Cluster) Quiesce() {
	c.leases.Pending() // the last look while the scheduler is open
	c.W.Note("quiesce: scheduler closed")
	c.Sched.Close()
	c.W.Sleep(QuiesceGrace)
}

// LeasePending hands the lease observers, while the scheduler is open, the
// due tasks that neither started nor were cancelled (Leases.Pending).
func (c *Cluster) LeasePending() { c.leases.Pending() }

// NextLeaseDue returns the earliest virtual instant after after at which
// a lease task that neither started nor was cancelled is due, while the
// scheduler is open (Leases.NextDue); no scheduling point.
func (c *Cluster) NextLeaseDue(after time.Duration) (time.Duration, bool) {
	return c.leases.NextDue(after)
}

// TrackFailures has the cluster note, from now on, the instants at which a
// failure may reach core: a task's report of an injected error
// (Coordinator.ReportTaskError) and the end of a barrier's dispatch, which
// fails under BarrierFail (NextFailureDue).
func (c *Cluster) TrackFailures() { c.trackFailures = true }

// noteFailureDue notes, under TrackFailures, that a failure may reach
// core from a task of job at virtual instant at.
func (c *Cluster) noteFailureDue(job int64, at time.Duration) {
	if c.trackFailures {
		c.failureDue[job] = append(c.failureDue[job], at)
	}
}

// NextFailureDue returns the earliest virtual instant at or after after
// at which a failure may reach core from a task of job (TrackFailures),
// forgetting the ones before it; no scheduling point.
func (c *Cluster) NextFailureDue(job int64, after time.Duration) (time.Duration, bool) {
	due := slices.DeleteFunc(c.failureDue[job], func(t time.Duration) bool { return t < after })
	c.failureDue[job] = due
	if len(due) == 0 {
		return 0, false
	}
	return slices.Min(due), true
}

// SelfReport hands the lease observers, after the run, what the scheduler
// says about its tasks beyond the lease's interface (Leases.SelfReport).
func (c *Cluster) SelfReport() { c.leases.SelfReport() }

// Executor returns the current coordinator executor.
func (c *Cluster) Executor() *exec.Pool { return c.exec }

// StepDown shuts the coordinator executor down (a master step-down, H11);
// Reactivate installs a fresh one.
func (c *Cluster) StepDown() {
	c.W.Note("fault: master step-down")
	c.observe(Obs{Kind: ObsFault, Job: -1, Pipeline: -1, Fault: FaultStepDown})
	c.exec.ShutdownNow()
}

// StepDownGraceful shuts the coordinator executor down gracefully
// (exec.Pool.Shutdown: work handed to it runs, new work is refused) and
// waits up to d for its threads to end (AwaitTermination); it reports
// whether they did.
func (c *Cluster) StepDownGraceful(d time.Duration) bool {
	c.W.Note("fault: master step-down (graceful)")
	c.observe(Obs{Kind: ObsFault, Job: -1, Pipeline: -1, Fault: FaultStepDown})
	c.exec.Shutdown()
	ok := c.exec.AwaitTermination(d)
	c.W.Note("step-down: executor threads ended: %v", ok)
	return ok
}

// Reactivate replaces a shut-down coordinator executor.
func (c *Cluster) Reactivate() {
	if c.exec.IsShutdown() {
		c.W.Note("fault: master reactivated")
		c.exec = c.newExecutor()
		c.observe(Obs{Kind: ObsFault, Job: -1, Pipeline: -1, Fault: FaultReactivate})
	}
}

// Heal switches every fault off (the liveness phase).
func (c *Cluster) Heal() {
	c.W.Note("heal: faults off")
	c.healed = true
	c.W.Harness().PauseBuggify()
	c.Reactivate()
}

// Healed reports whether faults are off.
func (c *Cluster) Healed() bool { return c.healed }

func (c *Cluster) fault(p float64) bool { return !c.healed && chance(c.faults, p) }

func (c *Cluster) sleep(d Dist) {
	if v := d.Draw(c.work); v > 0 {
		c.W.Sleep(v)
	}
}

func (c *Cluster) triggerFault(job int64, pipeline int) error {
	c.sleep(c.cfg.Workload.BodySlowness)
	if c.injected(c.cfg.Faults.TriggerThrow, FaultTrigger, job, pipeline, 0) {
		c.W.Note("fault: trigger throws job %d pipeline %d", job, pipeline)
		return fmt.Errorf("injected exception in trigger path")
	}
	return nil
}

// Start reports every task ready so that checkpointing begins.
func (c *Cluster) Start() {
	c.Pipelines.start()
	for _, m := range c.Managers {
		m.Start()
	}
	c.idle.start()
}

// ClosedTasks returns how many simulated tasks closed, and how many of
// them closed as idle before their pipeline's final checkpoint.
func (c *Cluster) ClosedTasks() (closed, idle int) { return c.idle.counts() }

// Coordinators returns every coordinator, job by job.
func (c *Cluster) Coordinators() []*coord.Coordinator {
	var out []*coord.Coordinator
	for _, m := range c.Managers {
		out = append(out, m.Coordinators()...)
	}
	return out
}
