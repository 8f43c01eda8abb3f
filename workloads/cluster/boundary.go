package cluster

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ObsKind names a boundary observation: a call the harness saw the code
// under test make at one of its boundaries, a restore the harness drove,
// or a fault the cluster injected. The oracle's verdicts are built from
// these and virtual time only (workloads/oracle).
type ObsKind uint8

// The observations.
const (
	ObsRestoreBegin    ObsKind = iota // the harness calls Coordinator.Restore (Call numbers the call; Redeploy: Restore(false), a redeploy)
	ObsRestoreEnd                     // that call returned (Value "failed": it returned an error; a whole-job restore's error fails each pipeline's)
	ObsStatusSet                      // StatusStore.Set entered for the pipeline's status key (Value)
	ObsAllocate                       // IDCounter.Next returned ID
	ObsBarrier                        // Transport.TriggerBarrier entered for checkpoint ID, task Task
	ObsStored                         // Storage.Store of ID returned nil (durable)
	ObsFailure                        // JobMaster.HandleCheckpointError called (Value: the reason it was given)
	ObsFault                          // the cluster injected a fault (Fault names it; ID its checkpoint, 0: none)
	ObsNotify                         // Transport.NotifyComplete entered for checkpoint ID, task Task
	ObsCancelAll                      // the pipeline's Lease.CancelAll returned (the end of a clean)
	ObsAck                            // a simulated task acknowledges checkpoint ID (Stamp, Final), before Manager.Acknowledge
	ObsNotified                       // Transport.NotifyComplete of ID returned nil: task Task was told (Stamp, Final, Closes)
	ObsSourcesFinished                // the harness finished the pipeline's sources (bounded workload): it may now finish
	ObsTaskClosed                     // a simulated task closed on a completion notice (ID the checkpoint that closed it)
	ObsStoreBegin                     // Storage.Store entered for ID (Sum: the states it carries)
	ObsStoreFailed                    // Storage.Store of ID returned an error (Value "landed": the write took effect, the reply was lost)
	ObsListed                         // Storage.IDs returned the pipeline's stored ids
	ObsDeleted                        // Storage.Delete returned (IDs: the ids it deleted; Value "failed": the ids a failed call did not delete durably)
	ObsRestoreState                   // Transport.RestoreState entered for checkpoint ID (0: none), task Task, carrying states Sum
	ObsAskClose                       // the harness's idle task Task asks to close (Coordinator.ReadyToCloseIdle called)
	ObsCanceled                       // the harness's cancel of the job (Manager.Cancel) returned: one per pipeline of the job
	// The lease decorator (lease.go) and every boundary call's entry, for
	// the lease checks (workloads/oracle/lease.go). Lease numbers the
	// decorated lease; ID is the task's number on it, from 1.
	ObsCall             // a boundary call entered (Value names it: "Transport.TriggerBarrier", "Lease.Schedule" is ObsLeaseSchedule's)
	ObsLeaseSchedule    // Lease.Schedule entered for task ID with Delay, by the thread named ThreadName
	ObsLeaseScheduled   // that Schedule returned
	ObsLeaseCancel      // task ID's Cancel returned true
	ObsCancelAllBegin   // Lease.CancelAll entered (ObsCancelAll: it returned)
	ObsBodyStart        // task ID's body starts on Thread
	ObsBodyEnd          // task ID's body returned (or panicked)
	ObsLeaseDone        // self-report, after the run: the scheduler's Done says task ID is done
	ObsLeasePending     // self-report, while the scheduler is open: task ID is due, its body not started, its Cancelled false
	ObsLeaseOutstanding // self-report, after the run: the lease's Outstanding count is ID
	ObsJobDeleted       // Storage.DeleteJob removed every checkpoint of the pipeline's job (after a cancel): one per pipeline (Value "failed": it failed, having removed some or none)
	// ObsTaskReport: a task the harness redeployed reports its state
	// (Coordinator.ReportTask; Value ReportWaitingRestore, ReportReadyStart
	// or, for the redeploy's last, ReportLastReadyStart; Call the
	// redeploy's restore call).
	ObsTaskReport
	// ObsCallIn: the harness calls into core (Value names the call,
	// "Manager.Restore", "Coordinator.AcknowledgeBarrier", ...; Call
	// numbers it, from 1, over the run). ObsCallOut: that call was
	// answered: it returned, or, for a call that answers through a future
	// (Manager.TriggerSavepoint), the future the harness holds resolved
	// (Value "failed": with an error).
	ObsCallIn
	ObsCallOut
	// ObsSavepointWrite: core handed the harness's savepoint session the
	// pipeline's part of a savepoint (SavepointSession.WritePipeline
	// entered: ID the pipeline's checkpoint id, Sum its states).
	ObsSavepointWrite
)

// Fault names carried by ObsFault.
const (
	FaultStorage     = "storage"          // Storage.Store fails (ID)
	FaultReplyLost   = "store-reply-lost" // Storage.Store's write of ID took effect, its reply is lost (the caller sees an error)
	FaultBitRot      = "bit-rot"          // the stored bytes of ID rotted after the store committed
	FaultTorn        = "storage-torn"     // the committed file of ID lost its tail (file storage): a rot, for the checks
	FaultRead        = "storage-read"     // a read of checkpoint storage fails (Storage.Latest, Load, IDs; ID: the id Load was asked for)
	FaultDelete      = "storage-delete"   // a delete of checkpoint storage fails (Storage.Delete, DeleteJob)
	FaultBarrier     = "barrier"          // Transport.TriggerBarrier fails (ID)
	FaultTaskError   = "task-error"       // a task will report an error for ID instead of acknowledging
	FaultAckDrop     = "ack-drop"         // a task will never acknowledge ID
	FaultNotify      = "notify"           // Transport.NotifyComplete fails (ID)
	FaultNotifyStart = "notify-start"     // Transport.NotifyStart fails (Task: the task told)
	FaultID          = "id"               // IDCounter.Next fails
	FaultTrigger     = "trigger"          // the trigger path throws (H4 hook)
	FaultStatus      = "status"           // a status-store call fails with a retryable error
	FaultSavepoint   = "savepoint-write"  // the savepoint store refused a pipeline's write (ID; reported by the harness's SavepointWriter)
	FaultStepDown    = "step-down"        // the coordinator executor shuts down (Pipeline -1: every pipeline)
	FaultReactivate  = "reactivated"      // a fresh executor replaces it (the end of a step-down window)
	FaultPanic       = "boundary-panic"   // a boundary call panicked instead of returning an error (Value: the call)
	// FaultSaturated: the coordinator executor (Config.ExecutorMax) rejected
	// a submission for want of a thread (exec.ErrSaturated), on the thread
	// that submitted it (Pipeline -1: the executor does not know whose it was).
	FaultSaturated = "executor-saturated"
)

// Obs is one boundary observation.
type Obs struct {
	Kind     ObsKind
	Job      int64
	Pipeline int // -1: every pipeline of every job
	ID       int64
	Task     int
	Call     int64 // ObsRestoreBegin/End: the restore call
	Thread   int32 // the simulated thread that made the call
	Fault    string
	Value    string
	// Stamp: the trigger timestamp a task receives (Barrier.Timestamp on
	// ObsBarrier and ObsAck, Completed.TriggeredAt on ObsNotify and
	// ObsNotified, Unix ns): what tells two checkpoints with one id apart.
	Stamp int64
	// Final: ObsBarrier, ObsAck, ObsNotify and ObsNotified of a
	// COMPLETED_POINT (the barrier's or completion's type, as the task
	// receives it). Closes: ObsNotified whose completion names the task
	// among those it closes (Completed.Closed, as the task receives it).
	// Prepares: ObsAck of a barrier whose PrepareClose names the task.
	Final, Closes, Prepares bool
	// Sum: ObsStoreBegin's, ObsNotify's and ObsRestoreState's digest of
	// the checkpoint's task states as the call carried them (StateSum).
	Sum uint64
	// IDs: ObsListed's reply, ObsDeleted's argument.
	IDs []int64
	// InLeaseBody: the calling thread was running a lease task body (a
	// trigger or watchdog on the scheduler's dispatch threads) when it
	// made the call, as the lease decorator saw it.
	InLeaseBody bool
	// Lease, Delay, ThreadName: the lease observations' lease number, the
	// delay ObsLeaseSchedule was given and the name of the thread that
	// called it.
	Lease      int
	Delay      time.Duration
	ThreadName string
	// Redeploy: ObsRestoreBegin and ObsRestoreEnd of a redeploy
	// (Coordinator.Restore(false), RedeployPipeline): the tasks are handed
	// their state by Transport.RestoreState after the call, on their
	// WAITING_RESTORE reports, not by a re-commit.
	Redeploy bool
}

func (o Obs) String() string {
	names := [...]string{"restore-begin", "restore-end", "status-set", "allocate", "barrier", "stored", "failure", "fault", "notify", "cancel-all",
		"ack", "notified", "sources-finished", "task-closed",
		"store-begin", "store-failed", "listed", "deleted", "restore-state", "ask-close", "canceled",
		"call", "lease-schedule", "lease-scheduled", "lease-cancel", "cancel-all-begin", "body-start", "body-end", "lease-done", "lease-pending", "lease-outstanding",
		"job-deleted", "task-report", "call-in", "call-out", "savepoint-write"}
	return fmt.Sprintf("%s job %d pipeline %d id %d call %d %s%s", names[o.Kind], o.Job, o.Pipeline, o.ID, o.Call, o.Fault, o.Value)
}

// observe hands o to its observers: a lease observation (LeaseOnly) to
// the lease observers only, every other one to the boundary observers, and
// ObsCancelAll to both.
func (c *Cluster) observe(o Obs) {
	lease := o.Kind.LeaseOnly()
	if len(c.onBoundary) == 0 && len(c.onLease) == 0 {
		return
	}
	o.Thread = c.W.ThreadID()
	if !lease {
		for _, f := range c.onBoundary {
			f(o)
		}
	}
	if lease || o.Kind == ObsCancelAll {
		for _, f := range c.onLease {
			f(o)
		}
	}
}

// LeaseOnly reports whether k is one of the lease decorator's and boundary
// calls' observations (ObsCall to ObsLeaseOutstanding), which only the
// lease observers (OnLease) receive.
func (k ObsKind) LeaseOnly() bool { return k >= ObsCall && k <= ObsLeaseOutstanding }

// OnLease subscribes f to the lease observations and ObsCancelAll,
// synchronously on the simulated thread that made the call. Subscribe
// before Start.
func (c *Cluster) OnLease(f func(Obs)) { c.onLease = append(c.onLease, f) }

// call observes the entry of a boundary call named what (ObsCall): the lease
// checks judge a body that acts after its cancel won by them.
func (c *Cluster) call(what string) { c.observe(Obs{Kind: ObsCall, Pipeline: -1, Value: what}) }

// OnBoundary subscribes f to every boundary observation, synchronously on
// the simulated thread that made the call. Subscribe before Start.
func (c *Cluster) OnBoundary(f func(Obs)) { c.onBoundary = append(c.onBoundary, f) }

// injected draws a fault of probability p and reports it when it fires.
func (c *Cluster) injected(p float64, fault string, job int64, pipeline int, id int64) bool {
	if !c.fault(p) {
		return false
	}
	c.observe(Obs{Kind: ObsFault, Job: job, Pipeline: pipeline, ID: id, Fault: fault})
	return true
}

// panicAt draws the BoundaryPanic fault for the boundary call what and,
// when it fires, reports it and panics: the call throws an unchecked
// exception instead of returning an error. Only a call on a core thread
// (a coordinator executor worker or a scheduler task body) draws it.
func (c *Cluster) panicAt(what string, job int64, pipeline int, id int64) {
	if c.cfg.Faults.BoundaryPanic <= 0 || !c.onCoreThread() || !c.fault(c.cfg.Faults.BoundaryPanic) {
		return
	}
	c.observe(Obs{Kind: ObsFault, Job: job, Pipeline: pipeline, ID: id, Fault: FaultPanic, Value: what})
	if c.Panicked == nil {
		c.Panicked = map[string]int{}
	}
	c.Panicked[what]++
	c.W.Note("fault: %s panics job %d pipeline %d id %d", what, job, pipeline, id)
	panic(fmt.Sprintf("simulated %s: unchecked exception (job %d pipeline %d id %d)", what, job, pipeline, id))
}

// onCoreThread reports whether the calling simulated thread is one of
// core's: a coordinator executor worker or a scheduler task body.
func (c *Cluster) onCoreThread() bool {
	return strings.HasPrefix(c.W.ThreadName(), "coordinator-executor-") || c.leases.InBody()
}

// Restore restores every pipeline of a job, one after another, as a
// master failover does (coord.Manager.Restore), observing each call.
func (c *Cluster) Restore(job int64) error {
	if c.canceled[job] {
		c.W.Note("job %d is canceled: no restore", job)
		return nil
	}
	var errs []string
	for p := range c.cfg.Pipelines {
		if err := c.RestorePipeline(job, p); err != nil {
			errs = append(errs, fmt.Sprintf("pipeline %d: %v", p, err))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
	return nil
}

// RestoreJob is a whole-job failover through core's own loop,
// coord.Manager.Restore: every pipeline's restore is observed as begun
// before the call and ended after it (each pipeline's window is the whole
// job's restore).
func (c *Cluster) RestoreJob(job int64) error {
	if c.canceled[job] {
		c.W.Note("job %d is canceled: no restore", job)
		return nil
	}
	c.restoring[job]++
	defer func() { c.restoring[job]-- }()
	calls := make([]int64, c.cfg.Pipelines)
	for p := range c.cfg.Pipelines {
		c.restoreCalls++
		calls[p] = c.restoreCalls
		c.observe(Obs{Kind: ObsRestoreBegin, Job: job, Pipeline: p, Call: calls[p]})
	}
	answer := c.Into("Manager.Restore", job, -1)
	err := c.Managers[job].Restore()
	answer.Give(err)
	for p := range c.cfg.Pipelines {
		c.observe(Obs{Kind: ObsRestoreEnd, Job: job, Pipeline: p, Call: calls[p], Value: restoreOutcome(err)})
	}
	return err
}

// CancelJob is an operator's cancel of a job (coord.Manager.Cancel): the
// harness's job master stops restoring the job first and lets its
// restores in flight end (polling every 10 ms), then cancels every
// pipeline; ObsCanceled marks each pipeline once the call returned. From
// then on no restore of the job starts (failover, step-down, the job
// master, a savepoint's resume). Its checkpoints are cleaned up last
// (Storage.DeleteJob), retried until the cleanup succeeds.
func (c *Cluster) CancelJob(job int64) {
	c.canceled[job] = true
	for c.restoring[job] > 0 {
		c.W.Sleep(10 * time.Millisecond)
	}
	c.W.Note("cancel job %d", job)
	answer := c.Into("Manager.Cancel", job, -1)
	c.Managers[job].Cancel()
	answer.Give(nil)
	for p := range c.cfg.Pipelines {
		c.observe(Obs{Kind: ObsCanceled, Job: job, Pipeline: p})
	}
	// Job-terminal cleanup; the operator retries a failed one every
	// second until it succeeds (storage_delete_failure).
	for {
		err := c.Storage.DeleteJob(job)
		if err == nil {
			break
		}
		c.W.Note("delete the checkpoints of canceled job %d: %v; retrying in 1s", job, err)
		c.W.Sleep(time.Second)
	}
}

// Canceled reports whether the harness canceled the job.
func (c *Cluster) Canceled(job int64) bool { return c.canceled[job] }

// RestorePipeline is the harness's restore of one pipeline (restoreCoordinator(true),
// or (false) while the pipeline is redeploying).
func (c *Cluster) RestorePipeline(job int64, pipeline int) error {
	if c.canceled[job] {
		c.W.Note("job %d is canceled: no restore of pipeline %d", job, pipeline)
		return nil
	}
	// A pipeline whose redeploy is in flight has tasks still reporting
	// (WAITING_RESTORE, READY_START): it is not running, and the job
	// master restores it as not started (upstream's alreadyStarted is the
	// pipeline's RUNNING status) and redeploys its tasks again: the
	// redeploy sends no report while the restore runs, and as the
	// restore's clean forgets the reports so far, they start over once it
	// returned (redeployRestarted), and its last READY_START,
	// not this restore, starts the pipeline checkpointing again. Restored
	// as started, it checkpointed and took savepoints of tasks still
	// waiting for their state (restore-integrity: redeploy-savepoint seed
	// 7, a savepoint's resume meeting a redeploy).
	k := PipelineID{job, pipeline}
	started := c.redeploying[k] == 0
	if !started {
		c.W.Note("pipeline %d-%d is redeploying: restored as not started", job, pipeline)
		c.redeployHeld[k]++ // the redeploy sends no report until this restore returned
	}
	c.restoring[job]++
	defer func() { c.restoring[job]-- }()
	c.restoreCalls++
	call := c.restoreCalls
	c.observe(Obs{Kind: ObsRestoreBegin, Job: job, Pipeline: pipeline, Call: call, Redeploy: !started})
	answer := c.Into("Coordinator.Restore", job, pipeline)
	err := c.Managers[job].Coordinator(pipeline).Restore(started)
	answer.Give(err)
	c.observe(Obs{Kind: ObsRestoreEnd, Job: job, Pipeline: pipeline, Call: call, Value: restoreOutcome(err), Redeploy: !started})
	if !started {
		c.redeployHeld[k]--
		c.redeployRestart[k] = call
	}
	return err
}

// SavepointWrite observes core handing the harness's savepoint session a
// pipeline's part of a savepoint (ObsSavepointWrite).
func (c *Cluster) SavepointWrite(job int64, pipeline int, id int64, sum uint64) {
	c.observe(Obs{Kind: ObsSavepointWrite, Job: job, Pipeline: pipeline, ID: id, Sum: sum})
}

// Into records a call the harness makes into core, named what (ObsCallIn
// now; ObsCallOut when the returned Answer's Give is called, with the error
// the call answered, or nil). Every call the harness makes into core goes
// through it, so that the check calls-answered can tell a call core never
// answered.
func (c *Cluster) Into(what string, job int64, pipeline int) Answer {
	return c.IntoFor(what, job, pipeline, 0)
}

// IntoFor is Into for a call about checkpoint id (ObsCallIn's ID).
func (c *Cluster) IntoFor(what string, job int64, pipeline int, id int64) Answer {
	c.inCalls++
	call := c.inCalls
	c.observe(Obs{Kind: ObsCallIn, Job: job, Pipeline: pipeline, Call: call, Value: what, ID: id})
	return Answer{c: c, job: job, pipeline: pipeline, call: call}
}

// Answer is a call into core in flight (Into): Give records its answer. A
// value, not a closure: every acknowledgement makes one, and a closure
// cost an allocation each (BenchmarkSim's allocs/step).
type Answer struct {
	c        *Cluster
	job      int64
	pipeline int
	call     int64
}

// Give records the call's answer: ObsCallOut, with the error it answered
// (Value "failed") or nil.
func (a Answer) Give(err error) {
	a.c.observe(Obs{Kind: ObsCallOut, Job: a.job, Pipeline: a.pipeline, Call: a.call, Value: restoreOutcome(err)})
}

// restoreOutcome is ObsRestoreEnd's Value: "failed" when the restore
// returned an error, "" otherwise.
func restoreOutcome(err error) string {
	if err != nil {
		return "failed"
	}
	return ""
}

// statusPipeline parses a coordinator status key (checkpoint_state_J_P,
// and so also checkpoint_state_J_P_ready_to_close: what follows P is
// ignored). It accepts exactly what fmt.Sscanf(key,
// "checkpoint_state_%d_%d") accepts on such keys (a test compares them),
// without Sscanf's allocations and deep stack: every status-store call
// parses its key.
func statusPipeline(key string) (job int64, pipeline int, ok bool) {
	const prefix = "checkpoint_state_"
	if len(key) < len(prefix) || key[:len(prefix)] != prefix {
		return 0, 0, false
	}
	j, rest, ok := scanDecimal(key[len(prefix):])
	if !ok || len(rest) == 0 || rest[0] != '_' {
		return 0, 0, false
	}
	p, _, ok := scanDecimal(rest[1:])
	if !ok || p != int64(int(p)) {
		return 0, 0, false
	}
	return j, int(p), true
}

// scanDecimal reads an optionally signed decimal int64 at the start of s,
// as Sscanf's %d does (no leading space in a status key).
func scanDecimal(s string) (int64, string, bool) {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == start {
		return 0, s, false
	}
	v, err := strconv.ParseInt(s[:i], 10, 64)
	if err != nil {
		return 0, s, false
	}
	return v, s[i:], true
}

// PipelineStatus is the value the simulated status store holds for a
// pipeline's status key now, read as the harness does (Peek: no latency,
// no fault, no scheduling point).
func (c *Cluster) PipelineStatus(job int64, pipeline int) string {
	return c.Status.Peek(fmt.Sprintf("checkpoint_state_%d_%d", job, pipeline))
}
