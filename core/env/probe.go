package env

// Probe names a rare window or outcome in core code that a campaign must
// enter (FoundationDB's TEST/CODE_PROBE). Core calls Hit(e, probe) at the
// point of the window: between two sections of one operation under the
// same lock, where work handed to another thread can arrive late, in a
// fallback branch, where one part of a fan-out fails while others run, in
// each branch of the offset checkpointer's epoch handling. The simulator
// counts each probe's hits in a run; a campaign reports them, and the
// probe the default campaign leaves unhit fails `make test`
// (workloads/probes.go says which scenario must hit each one).
//
// A probe observes and never changes behaviour: Hit is not a scheduling
// point, draws no randomness and writes nothing to the trace. In wall
// mode it costs one type assertion (no allocation, no lock).
//
// The table is the list: one constant each, its comment naming the
// window and, where a BUGGIFY site widens it, the site (or why no site
// can widen it without changing what production does).
type Probe uint16

// The probes. Their names are stable: campaign reports and
// workloads/probes.go use them.
const (
	// ProbeRegisterLate: a pending checkpoint's registration hop reached
	// the pending map after a clean had run since the checkpoint was
	// created; it is refused and its future ends (coord register).
	// Widened by SiteRegisterLate (the hop arrives one pending back-off
	// late) and SiteCleanSlow (the clean holds coord.lock and is slow to
	// reach the pending map).
	ProbeRegisterLate Probe = iota + 1
	// ProbeTriggerStaleAfterLock: a trigger body passed the generation
	// fence at its start, then waited for coord.lock across a restore and
	// stops at the fence under the lock (coord triggerLocked). Widened by
	// SiteTriggerSlow (the body pauses before the lock).
	ProbeTriggerStaleAfterLock
	// ProbeRearmSuperseded: a periodic trigger passed its chain check at
	// the start of its body, and a newer chain was armed before its re-arm
	// took coord.periodic (coord rearm). Widened by SiteRearmRacesCancel.
	ProbeRearmSuperseded
	// ProbeRearmStaleGeneration: a re-arm reached coord.periodic after a
	// restore switched the generation (coord rearm). Widened by
	// SiteRearmRacesCancel.
	ProbeRearmStaleGeneration
	// ProbeCleanFencedAtBegin: a failure's clean found at its start that a
	// restore replaced the generation it was to clean (coord beginClean).
	// Widened by SiteStatusSlow (the failure's status write, before the
	// clean, is slow).
	ProbeCleanFencedAtBegin
	// ProbeCleanReplacedWhileWaiting: a failure's clean passed the fence,
	// then waited for coord.lock while a restore replaced the generation
	// (coord clean). Widened by SiteCleanSlow (the restore's own clean
	// holds coord.lock longer).
	ProbeCleanReplacedWhileWaiting
	// ProbeFailReplacedDuringStatus: a failure passed the generation fence,
	// then a restore switched the generation before its status write
	// (coord failGeneration -> updateStatus). Widened by SiteStatusSlow.
	ProbeFailReplacedDuringStatus
	// ProbeFailLostTheFuture: a failure saw its generation's future open,
	// wrote FAILED, and then found the future ended by another (a cancel, a
	// finish, another failure) during the write (coord failGeneration).
	// Widened by SiteStatusSlow.
	ProbeFailLostTheFuture
	// ProbeExpiryStale: a watchdog found its checkpoint pending, handed the
	// expiry to the executor, and the checkpoint was gone when the expiry
	// ran (coord failExpired). Widened by SiteExpiryLate.
	ProbeExpiryStale
	// ProbeExpiryInline: the executor rejected an expiry, which ran inline
	// (coord expire). Widened by SiteExecutorRejects.
	ProbeExpiryInline
	// ProbeWatchdogFullyAcked: a watchdog fired while its checkpoint was
	// fully acknowledged, the completion still in flight (coord watchdog).
	// Widened by SiteCompletionAfterClean (the completion arrives one
	// timeout late).
	ProbeWatchdogFullyAcked
	// ProbeContinuationFallback: the executor rejected a continuation's
	// hand-off and the failure ran on a thread of its own (coord
	// startPending). Widened by SiteExecutorRejects.
	ProbeContinuationFallback
	// ProbeCompletionInline: the executor rejected a completion handler,
	// which ran inline on the thread that settled the checkpoint (coord
	// onPendingDone). Widened by SiteExecutorRejects.
	ProbeCompletionInline
	// ProbeAckAfterAbort: a last acknowledgement found its checkpoint
	// pending, and a clean aborted it before the acknowledgement completed
	// it (coord acknowledge). Widened by SiteAckSlow.
	ProbeAckAfterAbort
	// ProbeIdleAckAfterClean: an acknowledgement that prepares a task to
	// close found its checkpoint pending, and a clean took it before the
	// acknowledgement recorded the task closed (coord idleAcked). Widened
	// by SiteAckSlow.
	ProbeIdleAckAfterClean
	// ProbeCompleteStaleGeneration: a completion handler reached
	// coord.completion after a restore replaced its generation (coord
	// complete). Widened by SiteCompletionAfterClean.
	ProbeCompleteStaleGeneration
	// ProbeCompleteReplacedDuringStore: a restore replaced the generation
	// while a completion's store was in flight; the checkpoint is stored
	// but not installed (coord complete -> installLatest). Widened by the
	// storage latency of the windows scenario and SiteRestoreListSlow.
	ProbeCompleteReplacedDuringStore
	// ProbeCompleteAfterClean: a stored checkpoint's completion found its
	// pending entry taken by a clean (coord complete). Widened by
	// SiteCompletionAfterClean.
	ProbeCompleteAfterClean
	// ProbeBarrierPartial: a barrier failed for a task after earlier tasks
	// of the same checkpoint got theirs (coord continuation: the fan-out
	// over tasks fails part-way).
	ProbeBarrierPartial
	// ProbeNotifyPartial: a completion notice failed for a task after
	// earlier tasks were told (coord notifyCompleted: the fan-out fails
	// part-way).
	ProbeNotifyPartial
	// ProbeNotifyStartFails: the start notice to a task failed once every
	// task reported READY_START (coord allTaskReadyCheck): the generation
	// fails before its first trigger is armed. No site: the fault is the
	// transport's (workloads' notify_start_failure widens it).
	ProbeNotifyStartFails
	// ProbeTaskErrorStale: a task's error report named a checkpoint no
	// longer pending and was dropped as stale (coord ReportTaskError).
	ProbeTaskErrorStale
	// ProbeSavepointAborted: a savepoint's pending checkpoint was aborted
	// (a clean, a restore) and the request failed (coord StartSavepoint).
	ProbeSavepointAborted
	// ProbeSavepointPartFails: one pipeline's part of a job's savepoint
	// failed to start while other parts had not answered (coord
	// Manager.savepoint: the fan-out fails part-way).
	ProbeSavepointPartFails
	// ProbeSavepointNotReady: a savepoint request reached a pipeline
	// restored for a redeploy whose tasks have not all reported
	// READY_START, and is refused (coord StartSavepoint). Widened by the
	// harness: a redeploy meets a savepoint request of its job
	// (workloads savepointAtRedeploy).
	ProbeSavepointNotReady
	// ProbeSavepointNotReadyAfterWait: a savepoint waited outside
	// coord.lock for the pending checkpoint while a redeploy replaced the
	// pipeline's tasks, and is refused under the lock (coord
	// savepointCreate). Widened as ProbeSavepointNotReady.
	ProbeSavepointNotReadyAfterWait
	// ProbeJobRestorePartFails: one pipeline's restore of a whole-job
	// failover failed and the loop went on to the next pipelines (coord
	// Manager.Restore: the fan-out fails part-way).
	ProbeJobRestorePartFails
	// ProbeRetainListed: a completion's retention step found its id already
	// in the retained ids, because a restore's rebuild listed the store that
	// landed before it (coord retain; F042). Widened by SiteRestoreListSlow
	// and SiteStoreSlow.
	ProbeRetainListed
	// ProbeTriggerGenerationEnded: a trigger passed the shutdown flag but
	// its generation had ended (a savepoint's SUSPEND, a final's FINISHED or
	// a cancel began ending it): a restore in flight had cleared the flag
	// after a savepoint completed in the generation it installed (coord
	// triggerLocked; F044). Widened by SiteStatusSlow (the restore's
	// RUNNING write, during which the savepoint completes).
	ProbeTriggerGenerationEnded
	// ProbeRestoreSkipsCorrupt: a restore whose latest stored checkpoint
	// failed its checksum found an older one that fails it too (or is gone
	// since the listing) and skipped it for an older one still (coord
	// latestIntact). Widened by the harness: bit_rot may rot a checkpoint
	// while another of the pipeline's newest max_retained stays intact
	// (workloads/cluster mayRot), so that two of them rot (scenario
	// bit-rot); no site.
	ProbeRestoreSkipsCorrupt
	// ProbeSavepointMarkerRemoveFails: a savepoint delete failed to remove
	// the bundle's marker (savepoint Store.Delete). Widened by the
	// harness: savepoint_failure fails one of an operation's first two
	// steps half the time (workloads faulty; scenario cleanup); no site.
	ProbeSavepointMarkerRemoveFails
	// ProbeSavepointDeleteSyncFails: a savepoint delete removed the marker
	// and then failed to sync the bundle directory, leaving a savepoint
	// that no longer lists (savepoint Store.Delete). Widened as
	// ProbeSavepointMarkerRemoveFails.
	ProbeSavepointDeleteSyncFails
	// ProbeSavepointDeleteAllListFails: the listing of a job's savepoints
	// that begins DeleteAll failed (savepoint Store.DeleteAll). Widened as
	// ProbeSavepointMarkerRemoveFails.
	ProbeSavepointDeleteAllListFails
	// ProbeSavepointParentSyncFails: a savepoint delete removed the bundle
	// (or DeleteAll the job's folder) and then failed to sync the folder
	// above it: the removal may not be durable, and the delete reports an
	// error the operator retries (savepoint Store.syncIfExists). Widened
	// by the cleanup scenario's deletes under savepoint_failure.
	ProbeSavepointParentSyncFails
	// ProbeCheckpointJobSyncFails: a job's checkpoint cleanup removed its
	// directory and failed to sync the checkpoint root (savepoint
	// Checkpoints.DeleteJob). Widened by storage_delete_failure during a
	// cancel's cleanup (scenario cleanup); no site.
	ProbeCheckpointJobSyncFails
	// ProbeTaskCancelAfterFire: a Cancel found its task's timer entry
	// already fired and the task not yet settled: its body is queued for
	// a dispatch thread (whose check may still skip it) or running (a
	// clean's CancelAll reaching the body that runs it), so the cancel is
	// best effort (sched Task.Cancel, h.Cancel() false). Widened by busy
	// dispatch threads and failovers' cleans; no site.
	ProbeTaskCancelAfterFire
	// ProbeTaskSkippedCancelled: a dispatch (or inline timer) thread found
	// its task cancelled before the body and skipped it (sched Task.run),
	// the scheduler still open. No site: the cancels of a queued body in
	// smoke's failovers enter it.
	ProbeTaskSkippedCancelled
	// ProbeTaskRunsAfterCancel: a cancel landed after the dispatch thread
	// checked the flag and the body ran anyway (sched Task.run, the H2
	// best-effort window at its Yield). No site: the Yield is the window.
	ProbeTaskRunsAfterCancel
	// ProbeLeaseArmRefused: a Schedule found the scheduler open, and the
	// timer refused the task's entry because a close shut it down in
	// between (sched Lease.ScheduleAt: the task is cancelled). Widened by
	// the harness: the scheduler closes at the instant a lease task is
	// due, when bodies re-arm (workloads closeAtFiring); no site.
	ProbeLeaseArmRefused
	// ProbeClaimHandOffRefused: a timer thread claimed a task within the
	// lead and the dispatch pool, shut down by a close meanwhile, refused
	// the claim's hand-off (sched shared.claimed: the task is cancelled).
	// Only with a timer lead; widened by the harness's close a lead before
	// a lease task is due (workloads closeAtFiring); no site.
	ProbeClaimHandOffRefused
	// ProbePoolReapDeclined: an idle pool thread's keep-alive ran out but
	// it stays, because work was queued as it expired or it is back
	// within Core (exec Pool.waitLocked). Widened by short keep-alives
	// (swarm draws them); no site.
	ProbePoolReapDeclined
	// ProbePoolWorkerReaped: an idle pool thread's keep-alive ran out and
	// it exited (exec Pool.take). Widened by short keep-alives and idle
	// stretches (swarm); no site.
	ProbePoolWorkerReaped
	// ProbePoolRejectsSaturated: a pool at Max threads with no idle one
	// (Direct) or a full queue (Bounded) refused work (exec Pool.submit).
	// Widened by a small executor Max (swarm draws it); no site in the
	// pool itself (SiteExecutorRejects rejects before it in coord).
	ProbePoolRejectsSaturated
	// ProbePoolRejectsShutdown: a pool refused work after Shutdown or
	// ShutdownNow (exec Pool.submit): a hand-off racing a step-down or a
	// scheduler close. Widened by failovers' executor shut-downs; no site.
	ProbePoolRejectsShutdown
	// ProbePoolAwaitTimeout: a wait for a shut-down pool's threads to end
	// ran out with threads still running (exec Pool.AwaitTermination).
	// Widened by a short grace on a graceful step-down (workloads'
	// step_down grace) while coordinator work is in flight; no site.
	ProbePoolAwaitTimeout
	// ProbeTimerClaimCancelled: a cancel took a timer entry that a thread
	// had claimed within the lead and was sleeping out (exec
	// Handle.Cancel). Only with a timer lead (swarm draws one); no site.
	ProbeTimerClaimCancelled
	// ProbeTimerClaimDropped: ShutdownNow dropped an entry a thread had
	// claimed within the lead (exec Timer.ShutdownNow). Only with a timer
	// lead; no site.
	ProbeTimerClaimDropped
	// ProbeTimerScheduleClosed: a schedule reached a timer that ShutdownNow
	// had closed and was refused with ErrClosed (exec Timer.scheduleAt): a
	// re-arm racing a scheduler close (as ProbeLeaseArmRefused) or a
	// per-pipeline reset. Widened as ProbeLeaseArmRefused; no site.
	ProbeTimerScheduleClosed
	// ProbeEpochDropsPending: BeginEpoch replaced an epoch with batches
	// still registered and unresolved or unadvanced; they resolve as stale
	// and are re-delivered (watermark Checkpointer.BeginEpoch). Widened by
	// restores and eager rebalances under sink latency; no site.
	ProbeEpochDropsPending
	// ProbeEpochDropsPartition: BeginEpoch left out a partition tracked in
	// the epoch it replaced, revoking it implicitly (watermark
	// Checkpointer.BeginEpoch). Widened by eager rebalances.
	ProbeEpochDropsPartition
	// ProbeEpochExtended: ExtendEpoch admitted partitions mid-epoch,
	// beside batches in flight for the others (watermark
	// Checkpointer.ExtendEpoch). Widened by cooperative rebalances.
	ProbeEpochExtended
	// ProbeRevokeWithPending: Revoke dropped a partition with batches
	// still pending; their resolutions become stale (watermark
	// Checkpointer.Revoke). Widened by cooperative rebalances under sink
	// latency.
	ProbeRevokeWithPending
	// ProbeStaleRegistration: Drain discarded a registration of an
	// earlier epoch or of a revoked partition: issued before the epoch
	// changed and drained after (watermark Checkpointer.drainRegs).
	ProbeStaleRegistration
	// ProbeStaleResolution: Drain discarded a resolution of an earlier
	// epoch or of a revoked partition (watermark Checkpointer.apply).
	ProbeStaleResolution
	// ProbeStallBegins: a failed batch reached its partition's head
	// without quarantine and the stall began (watermark
	// Checkpointer.noteStalls).
	ProbeStallBegins
	// ProbeQuarantine: a failed head batch was passed to the dead-letter
	// handler and advanced past (watermark Checkpointer.advance).
	ProbeQuarantine
	// ProbeIssuerEpochResync: an issuer saw a newer published epoch and
	// restarted its sequences (watermark Issuer.syncEpoch).
	ProbeIssuerEpochResync
	// ProbeFailAfterEnd: a failure saw its generation's future open, then
	// found, at its status write, that a cancel or a finish had begun to
	// end the generation, and wrote no FAILED over the ending's status
	// (coord updateStatus, F045). Widened by run.cancel.at_failure (the
	// cancel lands at a failure's instant or a few milliseconds before
	// it) and SiteStatusSlow.
	ProbeFailAfterEnd
	probeEnd
)

var probeNames = [...]string{"", "register-late", "trigger-stale-after-lock", "rearm-superseded",
	"rearm-stale-generation", "clean-fenced-at-begin", "clean-replaced-while-waiting",
	"fail-replaced-during-status", "fail-lost-the-future", "expiry-stale", "expiry-inline",
	"watchdog-fully-acked", "continuation-fallback", "completion-inline", "ack-after-abort",
	"idle-ack-after-clean", "complete-stale-generation", "complete-replaced-during-store",
	"complete-after-clean", "barrier-partial", "notify-partial", "notify-start-fails", "task-error-stale",
	"savepoint-aborted", "savepoint-part-fails", "savepoint-not-ready", "savepoint-not-ready-after-wait",
	"job-restore-part-fails",
	"retain-listed", "trigger-generation-ended", "restore-skips-corrupt", "savepoint-marker-remove-fails",
	"savepoint-delete-sync-fails", "savepoint-delete-all-list-fails", "savepoint-parent-sync-fails",
	"checkpoint-job-sync-fails",
	"task-cancel-after-fire", "task-skipped-cancelled", "task-runs-after-cancel", "lease-arm-refused",
	"claim-hand-off-refused", "pool-reap-declined", "pool-worker-reaped", "pool-rejects-saturated",
	"pool-rejects-shutdown", "pool-await-timeout", "timer-claim-cancelled", "timer-claim-dropped",
	"timer-schedule-closed", "epoch-drops-pending",
	"epoch-drops-partition", "epoch-extended", "revoke-with-pending", "stale-registration",
	"stale-resolution", "stall-begins", "quarantine", "issuer-epoch-resync", "fail-after-end"}

func (p Probe) String() string {
	if p == 0 || p >= probeEnd {
		return "probe?"
	}
	return probeNames[p]
}

// Probes returns every probe, in declaration order.
func Probes() []Probe {
	out := make([]Probe, 0, probeEnd-1)
	for p := Probe(1); p < probeEnd; p++ {
		out = append(out, p)
	}
	return out
}

// ParseProbe returns the probe with the given name.
func ParseProbe(name string) (Probe, bool) {
	for p := Probe(1); p < probeEnd; p++ {
		if probeNames[p] == name {
			return p, true
		}
	}
	return 0, false
}

// Prober is implemented by environments that count probe hits
// (sim.World). Probe must not be a scheduling point.
type Prober interface {
	Probe(p Probe)
}

// Hit records that core reached probe p. It does nothing unless e is a
// Prober: in wall mode it costs one type assertion.
func Hit(e Env, p Probe) {
	if pr, ok := e.(Prober); ok {
		pr.Probe(p)
	}
}
