package oracle

// Check ids. They are names users depend on (the verdict's "checks" field,
// the hazard catalog's "detected by" column, testdata/mutants): keep them.
const (
	// Generation truth (generation.go): boundary observations only.
	GenerationJustified     = "generation-justified"
	OneFailurePerGeneration = "one-failure-per-generation"

	// A pipeline's checkpoint sequence (checkpoints.go): boundary
	// observations only. (one-pending and generation-fence, which read the
	// coordinator's own counter and generation labels, are retired.)
	IncreasingIDs      = "increasing-ids"
	GenerationOrder    = "generation-order"
	OneOutstanding     = "one-outstanding"
	BarrierInLeaseBody = "barrier-in-lease-body"

	// Scheduler and pool threads (threads.go): the world's thread table.
	TimerThreads  = "timer-threads"
	DispatchBound = "dispatch-bound"
	WorkerDied    = "worker-died"

	// The scheduler's contract, from outside the lease (lease.go, fed by
	// the lease decorator's observations, cluster.Leases).
	LeaseCancelEffect    = "lease-cancel-effect"
	LeaseCancelBeforeDue = "lease-cancel-before-due"
	LeaseOutstanding     = "lease-outstanding"
	LeaseTriggerChains   = "lease-trigger-chains"

	// Stores (storage.go; the savepoint store's, savepoints.go).
	Retention          = "retention"
	StorageRetention   = "storage-retention"
	RestoreIntegrity   = "restore-integrity"
	RestoreNewest      = "restore-newest"
	SavepointRetention = "savepoint-retention"
	SavepointCrash     = "savepoint-crash"

	// Porcupine models over boundary histories (models.go).
	ModelGeneration = "model-generation"
	ModelRegister   = "model-register"
	ModelSavepoints = "model-savepoints"
	ModelWatermark  = "model-watermark"

	// The simulated broker and pipeline runtime (broker.go, fed by the
	// pipelines' observations, cluster.PipeObs).
	WatermarkStaleCommit      = "watermark-stale-commit"
	WatermarkUnassignedCommit = "watermark-unassigned-commit"
	WatermarkBackwards        = "watermark-backwards"
	WatermarkUnread           = "watermark-unread"
	WatermarkExtend           = "watermark-extend"
	WatermarkLeakedAck        = "watermark-leaked-ack"
	WatermarkCeiling          = "watermark-ceiling"
	WatermarkMisuse           = "watermark-misuse"
	WatermarkUnderCommit      = "watermark-under-commit"

	// Idle-task closing (workloads/cluster/idle.go): what the simulated tasks see
	// at the transport and what storage holds.
	IdleCloseUncommitted = "idle-close-uncommitted"
	StoredWithoutTask    = "stored-without-task"
	FaultSurfaces        = "fault-surfaces"
	BarrierToClosed      = "barrier-to-closed-task"
	FinishBeforeClose    = "finish-before-close"
	FinishUnasked        = "finish-unasked"

	// The simulated world (world.go).
	Deadlock  = "deadlock"
	LockOrder = "lock-order"

	// Liveness (progress.go; watermark_progress.go, latency_bound.go,
	// blocked.go, savepoints.go).
	CheckpointProgress = "checkpoint-progress"
	WatermarkProgress  = "watermark-progress"
	LatencyBound       = "latency-bound"
	BoundedFinish      = "bounded-finish"
	BlockedForever     = "blocked-forever"
	SavepointOutcome   = "savepoint-outcome"
	CallsAnswered      = "calls-answered"
	StatusJustified    = "status-justified"
	EndedStaysEnded    = "ended-stays-ended"

	// Lifecycle calls the harness drove (progress.go).
	CancelStops = "cancel-stops"
)

// checks is the registry: one entry per check, the single list CHECKS.md
// renders (TestChecksDoc keeps them equal). Add a check here, with the
// planted bug that proves it.
var checks = []Check{
	{GenerationJustified, Safety, Harness | Boundary | ThreadTable | VirtualTime,
		"JobMaster.HandleCheckpointError calls; restores the harness drove, split at the restore's first status write; IDCounter.Next and Transport.TriggerBarrier (trigger time), Storage.Store returns, every fault the cluster injected and into which pipeline and checkpoint, with BUGGIFY on every site firing, the thread that took it and the threads that thread started (the simulator's thread table), each rejection of a saturated coordinator executor (`executor-saturated`, `cluster.executor_max`) and the thread it rejected, virtual time",
		"every failure notification has a cause inside the generation it fails: a checkpoint triggered in that generation and not stored before its deadline (one stored at the very instant its watchdog is due may lose that tie to it: swarm seed 360), whose timeout had elapsed; or a fault injected into that generation (its checkpoint's, or its restore's; a `boundary_panic` counts as the failure of the call that panicked); or, on the failing thread (or one it started) before its next boundary call, a BUGGIFY executor-rejects or store-fails-after-write firing or a saturated executor's rejection",
		"stale deferred work failing a newer generation; callers that carry no generation; relabelled generations",
		"H1 (`expiry-fence=none`), H9 (`deferred-fence=none`); mutants `expiry-relabel` (the relabelling change), `task-error-relabel`, `expiry-fence-dropped`, `fence-compare-inverted`"},
	{OneFailurePerGeneration, Safety, Harness | Boundary,
		"JobMaster.HandleCheckpointError calls per harness generation",
		"at most one failure notification per generation (the first error wins)",
		"a generation failed twice: a lost first-error latch, a stale effect failing an already failed generation",
		"H1, H9 (a stale effect hitting a failed generation); mutants `second-failure-notified`, `master-notified-before-latch`"},
	{IncreasingIDs, Safety, Boundary,
		"checkpoint ids per pipeline: IDCounter.Next returns, ids a barrier (Transport.TriggerBarrier) or Storage.Store carries that the counter did not hand out, and a known id carried by a barrier with another trigger timestamp (a new checkpoint under an old id); COMPLETED_POINT's fixed id aside",
		"every new checkpoint's id is above every id the pipeline saw before, across restores",
		"id reuse: an id computed instead of drawn from the counter, an id handed out twice",
		"mutants `savepoint-id-after-latest`, `schema-after-reuses-id`"},
	{GenerationOrder, Safety, Harness | Boundary,
		"IDCounter.Next returns per pipeline, split by the restores the harness drove (Coordinator.Restore calls)",
		"after a restore, the counter hands out ids above every id it handed out before it: a restore never rewinds the pipeline's checkpoint sequence",
		"generation regress: a restore that re-seeds the counter from the latest completed checkpoint or from storage",
		"mutants `restore-reseeds-ids`, `restore-resets-empty-counter`"},
	{OneOutstanding, Safety, Boundary,
		"per pipeline: the first Transport.TriggerBarrier of each checkpoint id, Storage.Store returns, Transport.NotifyComplete calls, and the lease's CancelAll returns (the end of every clean, as the lease decorator sees it)",
		"when a checkpoint's first barrier goes out, no other checkpoint of the pipeline is outstanding (its barriers sent after the last CancelAll, neither stored nor notified complete since)",
		"two checkpoints in flight at once: a pending guard off by one, a savepoint that does not wait, a pending counter driven below zero",
		"mutants `pending-guard-off-by-one`, `pending-decrement-unconditional`, `savepoint-skips-wait`"},
	{BarrierInLeaseBody, Safety, Boundary,
		"Transport.TriggerBarrier calls and the calling simulated thread, against the lease decorator's account of which threads are running a lease task body",
		"no barrier is dispatched from inside a lease task body: barrier dispatch is handed off to the coordinator executor, never run on the scheduler's shared dispatch thread (where a trigger body holds coord.lock)",
		"a continuation run inline on the trigger's dispatch thread inside coord.lock (thenAccept instead of thenAcceptAsync): dispatch threads blocked in barrier I/O, and a checkpoint completed before its trigger counted it pending",
		"H6 (`barrier-continuation=inline`), mutants `continuation-skips-hop`, `continuation-without-hop` (both PCT only)"},
	{TimerThreads, Safety, ThreadTable | VirtualTime,
		"the simulator's thread table (sim.World.Threads): spawn and exit of every scheduler timer thread, over the whole run; the role comes from the thread's spawn record (a core/exec Timer spawning on behalf of core/sched, workloads/roles.go), never from its name",
		"at most 2 timer threads alive at once (shared designs), none beside the leader-follower pool (exits count before spawns within one virtual instant)",
		"timer thread leaks, timers that start more threads than configured", "mutants `timer-extra-thread`, `timer-starts-when-busy`"},
	{DispatchBound, Safety, ThreadTable | VirtualTime,
		"the simulator's thread table: spawn and exit of every dispatch thread (the shared design's core/exec Pool, the leader-follower's Timer threads, spawned on behalf of core/sched: the role from the spawn record, never the name), over the whole run; the configured bound",
		"never more dispatch threads alive at once than the configured bound",
		"unbounded or mis-sized dispatch pools", "mutants `pool-core-off-by-one`, `pool-grows-when-busy`"},
	{WorkerDied, Safety, Harness | Boundary | ThreadTable | VirtualTime,
		"the simulator's thread table (each scheduler thread's spawn and exit; scheduler threads told by their spawn records), the lease decorator's end of the last body each thread ran, the harness's scheduler close, the configured keep-alive",
		"no scheduler thread ends while the scheduler is open less than the keep-alive after its last work (an idle reap waits the keep-alive; a death follows its body at once)",
		"a failing body that kills its worker; a pool that drops threads with work still coming",
		"H3 (`task-failure=kill-worker`), mutants `task-rethrow`, `task-no-recover`"},
	{LeaseCancelEffect, Safety, Boundary | VirtualTime,
		"the lease decorator: Cancel/CancelAll results, body start per simulated thread; every boundary call (transport, storage, status, ids, job master, executor hand-off, lease) made from inside a body",
		"a body that starts after its cancel won (best-effort after the hand-off) makes no boundary call",
		"cancelled deferred work acting: a late watchdog expiring, a late trigger arming", "H2 (`watchdog-recheck=none` alone), mutant `trigger-generation-fence-off`"},
	{LeaseCancelBeforeDue, Safety, Boundary | VirtualTime,
		"the lease decorator: schedule time and delay, Cancel/CancelAll returns, body starts, virtual time",
		"a task cancelled strictly before it was due never starts its body",
		"a cancel that does not reach the timer or the dispatch check", "mutants `cancel-all-forgets-scheduled`, `cancel-flag-only`"},
	{LeaseOutstanding, Safety, Harness | Boundary | VirtualTime | SelfReport,
		"the lease decorator's tasks and which simulated threads run their bodies; while the scheduler is open (once a virtual second and before the close), each due task's Cancelled flag, which the scheduler keeps about itself (an atomic: no scheduling point); after the run (scheduler closed, 5 s grace) each task's Done and the lease's Outstanding, which the scheduler computes about itself (a task the decorator saw neither run nor cancelled is excused when Done says true)",
		"every task settled (ran, cancelled, or rejected after close) and Outstanding is 0; and while the scheduler is open no task stays due for 5 s, its body not started and its cancel not won, while the threads that would run it (the lease's own with the per-pipeline design, else the scheduler's) run no body",
		"lost tasks: a close or CancelAll that drops tasks without settling them; a task dropped while the scheduler is open (the timer it was armed on retired), which a later CancelAll or the close would settle unseen",
		"found the Close bug (TestCloseSettlesWaitingTasks); mutants `close-skips-settle` (that bug planted back), `close-drops-unsettled` (Outstanding 0, Done false); the per-pipeline reset that dropped a task armed during CancelAll (TestCancelAllSettlesConcurrentSchedule), mutant `per-pipeline-reset-drops-armed`, while the scheduler is open: savepoint-storm `design=per-pipeline` with BUGGIFY on (the site `reset-swap-late` opens the window), seed 1 (`simrun run --scenario savepoint-storm --variant design=per-pipeline --buggify on --seeds 20`)"},
	{LeaseTriggerChains, Safety, Harness | Boundary,
		"the lease decorator: which body (by simulated thread) scheduled each task; chains by causality; roots scheduled by the harness's schema-change thread are not periodic; a task whose Schedule call a CancelAll overlapped is not counted live (the scheduler may have cancelled it, which the boundary cannot tell: its Cancelled is not read)",
		"at most one live periodic trigger chain per pipeline (live: a task scheduled, not settled, not cancelled)",
		"double trigger chains after a reset or restore",
		"found the double chain after a schema change (TestOnePeriodicChainAfterSchemaChange); mutants `arm-keeps-live-chain`, `schema-end-arms-directly` (swarm); its own miscount of a re-arm a CancelAll cancelled while the re-arm's Schedule was in flight, reported as a second chain (BUGGIFY rearm-races-cancel, savepoint-storm seeds 5600063 and 5800036; TestCancelAllDuringScheduleIsCancelled): the seeds of mutant `rearm-ignores-generation` pass since"},
	{Retention, Safety, Boundary | VirtualTime,
		"Storage: checkpoints held per pipeline, each virtual second; Storage.Store, Storage.IDs and Storage.Delete calls (storage.go: the retention step that follows a landed write)",
		"at most 2N-1 with max-retained N; 2N only while a retention step is open (a store's write landed, the storing thread has made no boundary call since but Storage.IDs) or while a reconcile listing that failed in one waits for the pipeline's next listing (storage_read_failure); the ids a failed Storage.Delete did not delete (stranded, storage_delete_failure) do not count until a listing shows them stored",
		"retention desync", "H10 (`retention=memory`); mutants `lost-reply-never-reconciled` (storage holds 2N at rest, which the earlier bound of 2N let pass), `stored-never-retained`, `retained-never-deleted` (smoke, default campaign)"},
	{StorageRetention, Safety, Harness | Boundary | VirtualTime,
		"per pipeline: Storage.Store calls and outcomes (a write that landed, its reply returned or lost; a write that failed), Storage.IDs replies, Storage.Delete calls, the restores the harness drove, a canceled job's cleanup (Storage.DeleteJob: core's Checkpoints.DeleteJob in file storage), failed or not; the storage_read_failure fault on the storing thread inside a retention step; what the simulated storage holds (read without a scheduling point) each virtual second and at the end of the run",
		"at every quiescent point (no store in flight, no restore in flight, no retention step open) and at the end, storage holds exactly what the retention rule keeps of the writes that landed (in landing order, reordered by id at each listing; all but the newest N deleted once 2N or more; nothing of a canceled job once its cleanup ran but what lands after it): no orphan, no premature delete. A failed delete is no delete: Storage.Delete reports the ids it deleted, and those a failed call did not delete durably are stranded, neither orphans nor missing, until a listing shows them stored (the caller rebuilds its retention from the listing: they are retained again, with every listed id that landed and whose delete has not come yet, in id order, and trimmed in turn; one retained again may still vanish, its removal unsynced, and is never missing early) or a later delete removes them; a failed job cleanup strands what the job kept until the operator's retry succeeds; a reconcile listing that fails inside a retention step (a lost reply's, storage_read_failure) leaves the trim, and the judgement, to the pipeline's next listing (the restore its failure leads to) or the end of the run",
		"retention that forgets a lost reply's write (orphans), deletes too early or too much, or never deletes; job-terminal cleanup that leaves checkpoints behind; a delete that failed and was reported done",
		"mutant `checkpoint-delete-error-swallowed` (Checkpoints.Delete returns nil on a failed remove: lifecycle seeds 0-19, all 20, control passing); mutants `retention-deletes-early` (a premature delete the count bound cannot see), `lost-reply-never-reconciled` (orphans of lost replies, storage_reply_lost); Checkpoints.DeleteJob planted to remove the next job's directory fails lifecycle seeds 0-19 (`storage holds [38 39 40] where retention (max-retained 2) keeps []`)"},
	{RestoreIntegrity, Safety, Harness | Boundary,
		"the states digest each Storage.Store call carried, for the writes that landed; the states every Transport.NotifyComplete and Transport.RestoreState hands a task; the bit_rot fault (one byte of a committed checkpoint's stored copy flips; a legacy v0 file, which has no checksum, loses its tail instead, which DecodeLegacy must refuse); the states digest of each savepoint payload the harness wrote and of what savepoint.Restore loads after each savepoint that commits; the savepoint_rot fault (one state bit of a committed savepoint's payload file flips, one bit of its manifest flips, or a payload file loses its tail)",
		"every checkpoint handed to a task whose id a landed store wrote carries the states that store carried, every Transport.RestoreState hand-over (a redeploy's) carries an id a landed checkpoint store of the pipeline wrote, or none, and every restore from the job's savepoints loads the states the savepoint writer wrote: a restore skips or refuses a corrupt checkpoint or savepoint, never loads it",
		"restores that load rotted bytes (no checksum, or one never compared); a redeployed task handed a state its pipeline never stored",
		"TestRestoreSkipsCorruptCheckpoint (core), mutant `checksum-never-compared`; TestEveryByteFlipIsDetected (core/savepoint), TestSavepointRotIsNeverLoaded, mutant `savepoint-checksum-never-compared` (savepoint-storm); TestSavepointRotForms, mutant `savepoint-short-payload-accepted` (savepoint-storm); TestLegacyTearRefused (workloads/cluster), mutant `legacy-torn-field-accepted` (lifecycle); found a savepoint taken of redeployed tasks still waiting for their state (its wait for the pending checkpoint outside coord.lock let the redeploy in) and handed back to them as that state: swarm seed 246 of 0-399 (`simrun run --scenario swarm --seeds 400`; core/coord savepointCreate, TestSavepointNotTakenOfRedeployedTasks); mutant `savepoint-after-wait-skips-ready` (that look again under the lock removed): redeploy-savepoint seeds 2, 12, 14, 15, 23 and 8 more of 0-49, the unpatched tree passing them (`simrun run --scenario redeploy-savepoint --seeds 50`); with StartSavepoint's own refusal removed instead, no check fires (0 of 50): the look under the lock refuses the same savepoint"},
	{RestoreNewest, Safety, Harness | Boundary,
		"each restore the harness drove (from its Coordinator.Restore or Manager.Restore call to its return, and whether it returned an error); the Transport.NotifyComplete calls made on the thread that called it meanwhile (the restore's re-commit, not a concurrent completion); each redeploy the harness drove (Coordinator.Restore(false), the redeploy fault) and every Transport.RestoreState hand-over (the state each redeployed task is handed on its WAITING_RESTORE report, after the call); the Storage.Store writes that landed (reply lost or not), in the order they landed; Storage.Delete and the job's cleanup; the bit_rot and storage_torn faults",
		"a restore hands the tasks a checkpoint at least as new as the newest one that landed before the restore began and is stored intact (not deleted, not rotted) at the hand-over; one that returns without error having handed none while such a checkpoint is stored is a violation too (a pipeline whose sources the harness finished is exempt: it is not restored). A write landing during the restore may be picked or not. Likewise every Transport.RestoreState hand-over of a pipeline carries a checkpoint at least as new as the newest intact one that landed before the pipeline's latest redeploy began: not nil while one is stored, not an older one",
		"restores that silently skip a readable checkpoint (a decoder or checksum that rejects an intact one, a fall-back that goes one too far, a read that failed taken for a corrupt file) or restart from empty, re-commit or redeploy alike: the pipeline re-processes data and no other check fires",
		"found core's Checkpoints.Latest skipping a checkpoint whose read failed with an I/O error (storage_read_failure) as if it were corrupt, restoring an older one (fixed in 160616c, TestLatestFailsOnAReadError); mutant `latest-skips-unreadable` (that skip planted back, the code before the fix): lifecycle seeds 3, 6, 8, 10-19 of 0-19, control passing (`simrun run --scenario lifecycle --seeds 20`); mutants `restore-skips-newest-intact` (an older checkpoint handed), `restore-starts-empty` (none handed), both failovers seed 0 under random and PCT, control passing; mutant `redeploy-restores-empty` (RestoreState hands nil for a checkpoint read back from storage): failovers seeds 0-2, 4-10, 12-22, 24-29 of 0-29 under random and PCT, the unpatched tree passing all 30 (`simrun run --scenario failovers --seeds 30 --strategy random|pct`); under `--profile upstream` it does not fire on restore-load=once's aborted restore (F001): upstream's caller redeploys the pipeline, and the redeployed tasks get the latest completed checkpoint whether or not `restoreCoordinator` finished (`restoreTaskState` and `allTaskReady`'s re-commit read the coordinator's field, CheckpointCoordinator.java@0032ddc5), so the once path re-commits it as that redeploy does (`core/coord` `redeployAfterAbort`, `TestAbortedRestoreStillHandsTheLatest`); it fired on swarm seeds 0, 1, 2, 5 and 6 before, when the aborted restore handed nothing, and fires on none of seeds 0-7 now (`simrun run --scenario swarm --profile upstream --seeds 8`)"},
	{SavepointRetention, Safety, Harness | Boundary,
		"the savepoint store's listing after the run, against the commits it acknowledged and the operator's disposals (after each commit: Store.List, then Store.Delete of all but the listing's newest); the savepoint_rot fault (a state bit of a payload or a bit of the manifest flips, or a payload loses its tail)",
		"only explicit deletes remove a committed savepoint, a delete that returned removed it, and the operator's listing puts the newest committed savepoint first; a savepoint the rot hit is never listed again, whichever file rotted (core's Store.List verifies every bundle as Store.Read does: manifest envelope checksum, ids, each payload's length, SHA-256, decoding and ids; it skips one that fails, so a bundle whose manifest rotted drops out of the listing like one whose payload did, and counts as deleted; one it could not read, savepoint_failure, fails the listing, which the operator then does not act on). A delete that failed (savepoint_failure) is retried at once until it returns nil; a commit that failed after its marker's rename is of unknown outcome (may be listed or not)", "savepoints lost to rotation or cleanup; deletes that leave the bundle listed; a listing that leaves out a bundle it could not read",
		"mutants `savepoint-list-newest-only`, `savepoint-list-skips-dirs`, `savepoint-manifest-checksum-dropped` (a manifest whose envelope checksum fails stays listed; TestSavepointRotForms); fires (not named) on `savepoint-list-skips-unreadable` (lifecycle seed 3); Store.Delete planted to delete bundle id+1 fails savepoint-storm seeds 2, 3, 4 of 0-5 (`savepoint 20000001 of job 1 is still listed after its delete returned`, and model-savepoints); Store.List planted to sort oldest first fails seeds 2, 3 and one more of 0-5 (`the listing of job 1 puts savepoint 20000001 first, the newest committed is 40000002`)"},
	{SavepointCrash, Safety, Harness | Boundary,
		"the master_crash fault: the savepoint file system crashes at a random step of a commit and restarts, the store is re-opened; the payloads the harness wrote and the commits it saw succeed",
		"only whole bundles are listed (each committed, or hit by the crash, and holding the checkpoint the harness wrote for every pipeline), no committed one is lost, and the newest listed is the newest whole one",
		"torn or partial bundles made visible, commit points before the data is durable, lost commits",
		"TestMasterCrashChecks (planted: the marker written before the payloads are synced); mutants `savepoint-marker-first`, `savepoint-marker-unsynced`"},
	{ModelGeneration, Safety, Harness | Boundary,
		"restore calls the harness made (with its own generation count), failure notifications (from the failure's FAILED status write to the JobMaster call), id allocations while no restore is in flight (Trigger) and the status store's value then (Status); porcupine, per pipeline",
		"the history linearizes against the generation model: ids increase within a generation, the status store says FAILED exactly when the current generation has failed",
		"stale status writes, generation regressions", "the stale FAILED write found in core (TestStaleFailedStatusDoesNotOverwriteRunning), mutants `status-write-unserialised`, `restore-keeps-failed-status`"},
	{ModelRegister, Safety, Boundary,
		"Storage.Store calls, each from its call to its durable return (ObsStored; a store that fails is cut: it may or may not count), and Storage.Latest reads (porcupine, per pipeline); never the coordinator's EvCompleted",
		"a restore reads the latest stored checkpoint: once a store returned durable, every later read of the latest sees it or a newer one", "lost or stale latest-completed", "mutants `retention-drops-newest`, `retention-rebuild-appends`"},
	{ModelSavepoints, Safety, Harness | Boundary,
		"savepoint commits and listings (porcupine, per job); a commit the master_crash fault hit, or that the savepoint_failure fault failed after its marker's rename, is of unknown outcome", "committed savepoints stay listed", "savepoint loss",
		"mutants `savepoint-list-stops-at-skip`, `savepoint-publish-skips-rename`, `savepoint-list-skips-unreadable` (Store.List skips a bundle it failed to read: lifecycle seeds 3, 6, 15, 16 of 0-19, control passing); fires (not named) on `savepoint-list-newest-only`, `savepoint-list-skips-dirs`, `savepoint-marker-unsynced`. It reads the same end-of-run listing as savepoint-retention, so on a loss the two fire together; what only it can see (a listed savepoint whose commit failed, one id committed twice) no planted bug reaches: the harness's savepoint ids are unique and its simulated file system fails a step outside a crash only under savepoint_failure, whose commit failing after the marker's rename is recorded as of unknown outcome"},
	{ModelWatermark, Safety, Harness | Boundary,
		"epochs, revokes, sink resolutions and broker commits (porcupine, per partition)",
		"commits never pass an unresolved or failed batch; monotone within an epoch", "data loss in the offset checkpointer",
		"`PlantCommitPastWatermark`"},
	{WatermarkStaleCommit, Safety, Harness | Boundary, "broker commits", "a commit is for the current epoch", "stale epoch commits",
		"mutants `watermark-empty-epoch-skipped`, `watermark-shrink-keeps-epoch`; fires (not named) on `watermark-same-assignment-keeps-epoch`"},
	{WatermarkUnassignedCommit, Safety, Harness | Boundary, "broker commits", "only assigned partitions commit", "commits after revoke",
		"mutants `watermark-revoke-keeps-tracking`, `watermark-revoke-by-index`"},
	{WatermarkBackwards, Safety, Harness | Boundary, "broker commits", "no commit goes backwards within an epoch", "regressing offsets",
		"mutants `watermark-quarantine-offset-reset`, `watermark-moved-always`; fires (not named) on `watermark-mislabelled-partition`"},
	{WatermarkUnread, Safety, Harness | Boundary, "broker commits and the source's reads", "never commit past what was read",
		"commit past watermark", "mutants `watermark-registers-next-offset`, `watermark-mislabelled-partition`; `PlantCommitPastWatermark`"},
	{WatermarkExtend, Safety, Harness | Boundary, "ExtendEpoch results", "a fresh re-admission is accepted", "refused re-admissions",
		"mutants `watermark-admitted-across-epochs`, `watermark-extend-empty-is-no-epoch`; fires (not named) on `watermark-empty-epoch-skipped`, `watermark-same-assignment-keeps-epoch`, `watermark-shrink-keeps-epoch`"},
	{WatermarkLeakedAck, Safety, Harness | Boundary | VirtualTime,
		"the harness's sink resolutions (each batch the source issued in the current epoch, Done or Fail, recorded right after the call returned) against the watermarks TakeWatermarks returns after a Drain at each commit; without quarantine, the StalledPartitions the runtime's probe sees against the failed batch the harness's record puts at a partition's head",
		"after a Drain each assigned partition's watermark reaches one past the longest prefix, from its admission in the epoch, of batches the sink resolved OK (under DeadLetter, failed too); a failed head batch is reported Failed within stallGrace + probeEvery",
		"lost or held-back resolutions (leaked acks) and hidden failures, whatever the checkpointer reports about itself",
		"mutants `watermark-fail-not-queued`, `watermark-bounded-resolutions`; `PlantLostResolution` (TestWatermarkLeakedAckFromSinkRecord), `PlantLostFailure` (TestWatermarkLeakedAckHiddenFailure)"},
	{WatermarkUnderCommit, Safety, Harness,
		"after the liveness phase the harness stops its sources and lets commits catch up; then each source's read position and the simulated broker's committed offset",
		"every assigned partition's committed offset is one past the last batch its source read (all resolved): no under-commit, nothing lost",
		"a checkpointer or runtime that commits less than it could",
		"mutants `watermark-under-commit`, `watermark-advance-keeps-last`; `PlantCommitBehindWatermark` (TestWatermarkUnderCommit)"},
	{WatermarkCeiling, Safety, Harness | Boundary,
		"what the harness's source hands the checkpointer (Issue: partition, last offset; the epoch of the ack it gets back) and the watermarks TakeWatermarks returns to its runtime; revokes and re-admissions it drives",
		"a source that polls only while AtCeiling says false never holds more than PendingCeiling batches of a partition issued since its admission and not passed by a returned watermark",
		"a ceiling the source cannot rely on: unbounded pending batches",
		"mutants `watermark-ceiling-off-by-one`, `watermark-retired-across-epochs`; fires (not named) on `watermark-quarantine-offset-reset`, `watermark-moved-always`"},
	{WatermarkMisuse, Safety, Harness | Boundary,
		"each ack Issue returns to the harness's source: its batch id and last offset, against the partition, last offset and epoch the harness gave",
		"every ack names the partition and last offset it was issued for, in the epoch the runtime began, and no batch id is handed out twice in an epoch",
		"duplicate or mislabelled batch ids (resolutions then land on the wrong batch)",
		"mutants `watermark-seq-restarts`, `watermark-same-assignment-keeps-epoch`; fires (not named) on `watermark-shrink-keeps-epoch`"},
	{FaultSurfaces, Safety, Harness | Boundary,
		"per pipeline: every fault the cluster injected (ObsFault) of a kind core must fail the generation for on the thread that met it (barrier, storage, store-reply-lost, notify, notify-start, id, trigger), the checkpoint it hit and that thread; IDCounter.Next returns; the restores and cancels the harness drove; step-down windows; StatusStore.Set of FAILED and the thread that wrote it; JobMaster.HandleCheckpointError calls with their reasons",
		"a fault injected into a live generation (no restore in flight, no step-down, no cancel, its checkpoint allocated after the last restore began) surfaces as itself: a generation failed for CHECKPOINT_EXPIRED while such a fault is open has had a FAILED write from the thread that met the fault (its own failure began, and lost the race or won it)",
		"an error core swallows that a later timeout then fails the generation for (generation-justified accepts the expiry as a cause): a barrier error ignored, a trigger error only logged",
		"mutant `barrier-error-swallowed` (windows seeds 1, 3, 4, 6, 7, ... of 0-39, swarm seeds 1, 2, 3, 4, 7, ... of 0-149, no other check firing; the unpatched tree passing them)"},
	{StoredWithoutTask, Safety, Harness | Boundary,
		"per pipeline: each Storage.Store call's checkpoint id (ObsStoreBegin), the acknowledgements the harness's tasks sent (ObsAck), the completion notices that closed them (ObsTaskClosed), their requests to close (ObsAskClose) and their acknowledgements of barriers preparing them to close, with Storage.Store returns (oracle.Idle)",
		"a checkpoint is stored only once every task of its pipeline that may still be open acknowledged it: every task but those a completion notice closed and those that asked to close and acknowledged a barrier preparing them to close of a checkpoint that was stored",
		"a task dropped from the checkpoints while open (its state lost on the next restore): a close recorded for a checkpoint a clean aborted, a task excluded from the barriers by stale idle state",
		"found the idle acknowledgement recorded after a clean took its checkpoint (F043: windows seeds 17, 44, 61, 63, ... of 0-199; BUGGIFY ack-slow); mutant `idle-ack-after-clean` (F043 back: windows seed 17, the unpatched tree passing it)"},
	{IdleCloseUncommitted, Safety, Harness | Boundary,
		"the harness's idle tasks: their requests to close (ReadyToCloseIdle), their acknowledgements of barriers whose PrepareClose names them, the completion notices they received naming them among those they close (Transport.NotifyComplete returned); Storage.Store returns (oracle.Idle)",
		"a task closes only when a stored checkpoint it acknowledged ready to close (PrepareClose) tells it, and only after it asked to close",
		"closing on an aborted or unstored checkpoint; closing tasks that never went idle", "mutants `idle-prepares-unasked` (tasks that never asked), `store-error-logged` (an unstored checkpoint)"},
	{BarrierToClosed, Safety, Harness | Boundary,
		"Transport.TriggerBarrier calls against the tasks that closed (the harness's tasks, closed on a completion notice naming them or on the final checkpoint they acknowledged) (oracle.Idle)", "no barrier is dispatched to a closed task",
		"closed-idle state lost on restore; a final checkpoint completed during a restore and the pipeline resumed after it", "`idle-restore=forget` (idle-close scenario); found the final completed during a restore in flight (BUGGIFY status-slow, idle-close-late seeds 5300012 and 12 others; TestFinalDuringRestoreEndsThePipeline); mutants `idle-stored-forgets-done`, `idle-clean-clears-done`, `final-during-restore` (BUGGIFY on)"},
	{FinishBeforeClose, Safety, Harness | Boundary,
		"StatusStore.Set of FINISHED for a pipeline whose sources the harness finished; each task's acknowledgements of final (COMPLETED_POINT) barriers and the completion notices it received (Transport.NotifyComplete returned: its type and trigger timestamp); the idle tasks that closed (ObsTaskClosed: whether on a stored checkpoint is idle-close-uncommitted's)",
		"a pipeline is told FINISHED only once every task acknowledged a final barrier and was told of that final checkpoint (same trigger timestamp), or closed as idle",
		"a final checkpoint that skips a task, or finishes before its notices went out; tasks excluded from the final checkpoint while still open",
		"mutants `finish-before-notify`, `idle-clean-keeps-closed`. In idle-close the final checkpoint runs with every reader closed and without faults (readers go idle at 5-100 s and close, faults stop at 2 m, sources finish at 125-140 s): planted bugs that leave open readers out of COMPLETED_POINT (957 random, 1000 PCT seeds) or ignore its failed notify (1000 random seeds) are not reached"},
	{FinishUnasked, Safety, Harness | Boundary,
		"StatusStore.Set of FINISHED per pipeline; the harness's own record of the pipelines whose sources it finished (ObsSourcesFinished)",
		"only a pipeline whose sources the harness finished is ever told FINISHED: every other pipeline must stay alive",
		"a pipeline that stops on its own and says it finished (which checkpoint-progress would otherwise excuse)",
		"mutant `finish-after-first-checkpoint` (every pipeline finishes after its first completed checkpoint)"},
	{Deadlock, Safety, ThreadTable | VirtualTime, "the simulator's threads: nothing runnable, no deadline, threads alive; and, at the end of every run, threads each waiting for a lock the next one holds (sim.Result.WaitCycle: a cycle hit while the monitor's deadline kept the world running)",
		"no deadlock: no wait cycle, whole-world or partial", "lock cycles actually hit, a thread re-locking a lock it holds",
		"found the rejected continuation that failed its generation inside coord.lock (PCT, failovers seeds 5000517, 5000641, 5000662; TestRejectedContinuationUnderLockDoesNotSelfDeadlock); mutants `clean-waits-completion`, `restore-status-under-generation`, `continuation-rejection-under-lock` (each a thread re-locking its own lock); TestWaitCycleWhileTheWorldRuns (two threads). A whole-world deadlock cannot end a scenario run (the monitor sleeps in a loop), and no planted two-lock inversion was hit in 100-200 seeds (they are found by lock-order)"},
	{LockOrder, Safety, ThreadTable, "lock acquisitions over the run (lock-order graph)", "no ordering cycle",
		"potential deadlocks not hit in this run", "mutants `arm-periodic-under-lock`, `savepoint-create-waits-completion`"},
	{CheckpointProgress, Liveness, Harness | Boundary | VirtualTime,
		"Storage.Store returning a checkpoint durably (ObsStored), per pipeline, with its virtual time; when the harness stopped its faults; the pipelines whose sources the harness finished (its own intent, ObsSourcesFinished), never the status core writes; for redeploys, the harness's task reports (the last READY_START), IDCounter.Next returning (ObsAllocate), the restores it drove, failure notifications, step-downs and cancels",
		"every pipeline whose sources the harness did not finish stores a checkpoint durably within the liveness window after faults stop (the heal phase, or checks.liveness_within), whatever its status says; and, with the redeploy fault, a redeployed pipeline triggers a checkpoint within 2 x (interval + min_pause) + 10 s of its last READY_START, unless a restore, failure notification, step-down, cancel or the end of its sources comes first within that time",
		"stalled triggers, lost expiries, pipelines that look completed after a restore",
		"H4 (`trigger-errors=silent`), H11 (`expiry-fallback=drop`), mutants `trigger-no-rearm`, `expiry-dropped-on-reject`; found the completion straddling a restore (TestCompletionStraddlingRestoreKeepsRestoredGenerationRunning); found a failure's clean that outlived a restore (PCT with BUGGIFY on, saturation seed 5300012), mutant `clean-outlives-restore`; the silent mutants `chain-dies-after-restore` (failovers), `barrier-skips-last-task`, `completion-never-stored` and, with finish-unasked, `finish-after-first-checkpoint` (smoke), each caught by the default campaign; `redeploy-never-arms` (the last READY_START of a redeploy arms no trigger): failovers seeds 0-2, 4, 5, 7-10, 12-19, 21, 25-29 of 0-29 under random and PCT (23 of 30; by the heal-phase rule alone 16, the redeployed pipelines no later failover restored), the unpatched tree passing all 30 (`simrun run --scenario failovers --seeds 30 --strategy random|pct`)"},
	{WatermarkProgress, Liveness, Harness | Boundary | VirtualTime, "broker commits after faults stop",
		"every assigned partition commits after faults stop", "stalled watermarks",
		"mutants `watermark-stall-never-stamped`, `watermark-retire-inverted`"},
	{LatencyBound, Liveness, Harness | Boundary | VirtualTime,
		"due time (schedule + delay) and body start of every lease task (the lease decorator); per pipeline, a checkpoint's first Transport.TriggerBarrier to its durable Storage.Store return, and each Coordinator.Restore the harness called to the next durable store (oracle.Latency: no coordinator event)",
		"each p99 within the bound its scenario's configuration implies (REFERENCE.md: 3x the derived latency + 250 ms), and the worst scheduling delay within checks.max_delay when set",
		"saturation, long lock holds, an order-of-magnitude slowdown anywhere on the checkpoint path",
		"H5 (`savepoint-wait=under-lock`), H8 (`design=shared`); TestBoundsCatchSlowdown"},
	{BlockedForever, Liveness, ThreadTable | VirtualTime | SelfReport,
		"the simulator's thread states at the end of a run; the coordinator executor's own count of queued tasks and threads (exec.Pool.Stats, which the pool computes about itself) to tell a pool worker with queued work from an idle one",
		"no thread is blocked without a deadline (lock wait, untimed condition wait) from before faults stopped to the end, except idle pool, timer and pipeline-runtime waits; a coordinator-executor worker waiting for work is not idle while the executor holds more queued tasks than workers not waiting (a pool worker with queued work)",
		"lost wake-ups, savepoint waiters never answered, lock holders that never return",
		"TestBlockedForeverFires, TestBlockedForeverPoolWorkerWithQueuedWork; mutants `future-wakes-only-callbacks`, `future-signals-one`, `pool-enqueue-no-signal`"},
	{SavepointOutcome, Liveness, Harness | Boundary,
		"each savepoint the harness requested (Manager.TriggerSavepoint) and the outcome its future returned; the savepoint store's Commit calls the harness's session saw return nil (SavepointSession.Commit)",
		"every requested savepoint completes or fails with an error by the end of the run, and one that completes has a commit of its job's savepoint store that returned nil between the request and the answer: a savepoint whose write or commit failed (savepoint_failure) is reported failed to its caller",
		"savepoint requests dropped on a reset or restore; a failed savepoint reported complete", "mutants `savepoint-never-completes`, `savepoint-start-error-leaves-request`, `savepoint-commit-error-dropped` (the manager drops the commit's error: lifecycle seeds 2, 4, 5, 10, 12, 19 of 0-19, control passing)"},
	{CallsAnswered, Liveness, Harness | VirtualTime,
		"every call the harness makes into core (cluster.Cluster.Into: Manager.Restore, Manager.Cancel, Manager.AcknowledgeBarrier, Manager.TriggerSavepoint, Coordinator.Restore, ReportTask, ReportTaskError, ReadyToClose, ReadyToCloseIdle, SchemaChangeBefore and After), its thread and virtual time, and its answer: the call's return, or for a savepoint request the resolution of the future the harness holds",
		"every call made 30 s or more before the end of the run has been answered by its end. A periodic checkpoint a clean aborts leaves no boundary mark (core, as SeaTunnel, tells its tasks nothing of an abort), so a pending checkpoint core loses instead of aborting is judged through the calls that wait for it: a savepoint request's future",
		"calls core never answers: a pending checkpoint dropped without its future completing (a savepoint waiting on it never answered), a call blocked on a lock or a future for good",
		"found the clean that dropped a registration landing between its copy and its clear of the pending map (F041: windows seeds 31 and 33 of the default campaign at 606128e; BUGGIFY clean-slow and register-late widen it); mutants `clean-copies-then-clears` (F041 back: windows seeds 129, 168, 178 of 0-199, the unpatched tree passing them), `savepoint-never-completes`"},
	{StatusJustified, Safety, Harness | Boundary | VirtualTime,
		"each pipeline's status key in the simulated status store at the end of the run, the status writes (ObsStatusSet), the failures reported to the job master (ObsFailure), the restores the harness began (ObsRestoreBegin) and its cancels of jobs (ObsCallIn Manager.Cancel)",
		"a pipeline left FAILED had a failure reported to the job master since its last restore began; one left CANCELED had its job canceled by the harness (a status written in the last 30 s of the run is not judged)",
		"a failure that writes FAILED and then returns without reporting it (the generation's future ended by a cancel or a finish during the write: probes fail-lost-the-future, fail-after-end), a stale FAILED or CANCELED write",
		"found the cancel-versus-failure race (F045: a failure that looked at the future before a cancel completed it wrote FAILED after the cancel's CANCELED, lost the future to it and reported nothing): cancel-at-failure, which cancels jobs at a failure's instant (run.cancel.at_failure), fired it on 25 of seeds 0-99 in the default campaign at 06cc296, before the fix (seed 0 first); windows with a job cancel at 30 s had not entered it in 200 seeds. Mutants `failure-status-after-end` (F045 back: 25 of cancel-at-failure's seeds 0-99, the unpatched tree passing them), `expiry-failure-unreported` (expiries and smoke seeds 0-9 all fire it, with checkpoint-progress; the unpatched tree passes them)"},
	{EndedStaysEnded, Safety, Harness | Boundary,
		"the status writes (ObsStatusSet: SUSPEND after a savepoint, FINISHED and CANCELED end a generation, RUNNING begins a restored one), the restores the harness drove (ObsRestoreBegin, ObsRestoreEnd), IDCounter.Next returns (ObsAllocate) and the first Transport.TriggerBarrier of each id (ObsBarrier), per pipeline",
		"once the status store is told a pipeline's generation ended, no checkpoint is taken for it (an id allocated and sent in a barrier) until a restore begins or writes RUNNING. An id allocated after the end and never sent is no checkpoint: a trigger that passed its guards under coord.lock just before a cancel allocates on the executor after it, and register refuses it (cleanup seeds 5, 6, 57 of 0-299 under PCT). An end written while a restore is in flight and has not written RUNNING may be the old generation's, the whole-job restore not yet at this pipeline: ids taken until that restore returns are not judged (the restore installs the generation that takes them, which the boundary does not see: windows seed 160); an end written after the restore's RUNNING is the generation the restore installed, ended by a savepoint before the restore resumed it, and is judged at once (F044)",
		"a trigger chain that outlives its generation's end: revived by a restore in flight (F044), left armed by a finish or a cancel",
		"found a savepoint that completed during a restore's RUNNING write, the restore then clearing the shutdown flag its finish had set (F044)"},
	{CancelStops, Safety, Harness | Boundary,
		"the harness's cancel of a job (ObsCanceled, after coord.Manager.Cancel returned, run.cancel) and IDCounter.Next returns (ObsAllocate) per pipeline",
		"a pipeline whose job's cancel returned allocates no checkpoint id afterwards (and is exempt from checkpoint-progress and bounded-finish)",
		"a cancel that leaves a trigger chain armed, a restore or re-arm that revives a canceled pipeline",
		"TestCancelStops; the harness's cancel planted without its Manager.Cancel call (ObsCanceled alone) fails lifecycle seeds 0 and 1 (`checkpoint 41 allocated after the harness's cancel of the job returned at 3m30s`)"},
	{BoundedFinish, Liveness, Harness | Boundary,
		"the harness's intent (the pipelines whose sources it finished: ObsSourcesFinished, workload.finish_after; the jobs it canceled), each task's end as the boundary showed it (told of a final checkpoint it acknowledged: ObsAck, ObsNotified; or closed idle: ObsTaskClosed) and each pipeline's status key in the simulated status store at the end of the run (the value the job master reads)",
		"every pipeline whose sources the harness finished ends with every task seen to close and FINISHED in the status store (its COMPLETED_POINT completed and no later write undid it)", "a final checkpoint lost to a clean, a restore or a rejected trigger",
		"found the final trigger lost to a rejection (BUGGIFY executor-rejects, idle-close-late seed 8; TestReadyToCloseDuringStepDownStillFinishes) and a finished pipeline left FAILED by a failed re-delivery (idle-close-late PCT seeds 5600174, 5600446); mutants `completed-point-never-finishes`, `final-trigger-not-rearmed`, `ready-to-close-trigger-dropped`, `finished-never-restored` (both BUGGIFY on)"},
}
