package workloads

import (
	"strings"
	"testing"
)

// TestFoundSeeds replays seeds that once failed on the fixed design; each
// must pass now. The comment says what the seed found. Swarm seeds name
// the configuration swarm drew for them when they were found; since swarm
// draws magnitudes from the fault-kind table (issue 16) the same seed runs
// another configuration, so the core tests named below hold the
// reproduction, and these seeds are two more swarm seeds that must pass.
func TestFoundSeeds(t *testing.T) {
	for _, tc := range []struct {
		scenario string
		seed     uint64
		strategy string
		found    string
		buggify  string // "on": the seed was found with BUGGIFY's sites
	}{
		// A schema change requested while a failover restore was reading
		// the status store (after its clean, before its resume) had both
		// triggers dropped as "shut down" but left schemaChanging set, so
		// guard 6 stopped every periodic trigger of job 1 pipeline 2 after
		// the restore (core/coord, guard 5; TestSchemaChangeDuringRestore).
		// Then (with the lease checks of issue 13): a periodic trigger armed
		// before a schema change and due after its end ran on beside the
		// chain the schema change's end started: two periodic chains for
		// job 0 pipeline 9 from 49 s on (lease-trigger-chains; core/coord
		// armPeriodic).
		{"swarm", 101259, "", "schema change lost in a restore stops checkpoints; two periodic chains after a schema change", ""},
		// A savepoint's completion straddled the job's restore after the
		// savepoint committed and installed the old generation's SAVEPOINT
		// as the restored generation's latest completed: the pipeline looked
		// completed and never triggered again (checkpoint-progress; core/coord
		// installLatest, TestCompletionStraddlingRestoreKeepsRestoredGenerationRunning).
		{"h5-savepoint-under-lock", 500004, "pct", "a completion straddling a restore stops the restored generation", ""},
		{"h5-savepoint-under-lock", 1500001, "pct", "a completion straddling a restore stops the restored generation", ""},
		// A periodic trigger due at a master failover's instant was handed
		// to a dispatch thread, cancelled by the restore's clean (CancelAll,
		// best-effort after the hand-off), passed its chain check (the
		// restore ends the old chain only when it resumes) and triggered a
		// checkpoint in the restored generation: Executor.Execute from a
		// body whose cancel had won (lease-cancel-effect; core/coord
		// staleTrigger, TestTriggerOfEarlierGenerationDoesNothing).
		{"h2-cancel-after-handoff", 3000411, "", "trigger cancelled by a restore after its hand-off triggered in the restored generation", ""},
		{"h2-cancel-after-handoff", 3000415, "", "the same, at 1m34s", ""},
		{"h2-cancel-after-handoff", 3000926, "", "the same, at 1m54s", ""},
		// The COMPLETED_POINT's completion notice failed at one task after
		// two others were told and closed; the generation failed, and the
		// job master's restore returned at once because the latest
		// completed was a COMPLETED_POINT: the pipeline stayed FAILED for
		// good (checkpoint-progress, bounded-finish; 24 of seeds 0-59 before
		// the fix; core/coord redeliverFinal).
		{"idle-close-late", 31, "", "a final notice failed partway leaves the pipeline FAILED", ""},
		{"idle-close-late", 7, "", "the same", ""},
		// Not core bugs: the latency bound's rule. Swarm draws with a
		// step-down and a slowed status store (status_slow) but no retryable
		// status errors: at the step-down every due trigger writes FAILED on
		// its dispatch thread through the slow store, p99 scheduling delay
		// 274-278 ms against 250 ms, the late bodies all due inside step-down
		// windows (20 000-seed swarm run at a30eeb8; the window allowance now
		// includes one status write at its longest, workloads/bounds.go).
		{"swarm", 509694, "", "step-down with status_slow: the bound's window allowance", ""},
		{"swarm", 515328, "", "the same", ""},
		{"swarm", 517186, "", "the same", ""},
		// Not core bugs either, found once swarm drew the scheduler's
		// options (SwarmConfig): with one dispatch thread for 20 leases a
		// trigger that throws (trigger_throw) or whose id fails
		// (id_failure) writes FAILED on that thread through the slowed
		// status store, and every body queued behind it waits (p99
		// scheduling delay 0.91 s and 1.10 s against 250 ms; the bound
		// adds one such write when bodies queue, workloads/bounds.go).
		{"swarm", 172, "", "one dispatch thread held by a FAILED write: the bound's stall", ""},
		{"swarm", 262, "", "the same, leader-follower", ""},
		// Per-pipeline, acks rounded down to 100 ms: the last ack of a
		// checkpoint came at the very instant its watchdog was due, the
		// watchdog ran first and failed the generation, and the store went
		// on after; generation-justified wanted the store after the
		// deadline (workloads/oracle: a store at the deadline counts).
		{"swarm", 360, "", "a watchdog and the last ack at the same instant", ""},
		// The last source's readyToClose ran its COMPLETED_POINT trigger
		// inline and the coordinator executor rejected the creation (BUGGIFY
		// site executor-rejects; in production a master step-down's
		// shut-down executor): the error went back to a report that is sent
		// fire and forget and never repeated, so job 1 pipeline 0 kept
		// checkpointing and never finished (bounded-finish; core/coord
		// ReadyToClose re-arms the trigger on the lease,
		// TestReadyToCloseDuringStepDownStillFinishes).
		{"idle-close-late", 8, "", "a rejected final trigger leaves a bounded pipeline running for good", "on"},
		// A trigger's pending checkpoint was created before the trigger
		// registered its continuation, so the registration ran the
		// continuation's hand-off at once on the dispatch thread inside
		// coord.lock; a step-down had shut the executor down, the hand-off
		// was rejected, and failing the generation there took coord.lock
		// again for the clean: the dispatch thread waited for itself, the
		// job master behind it (deadlock, blocked-forever; found by PCT in
		// the failovers scenario; core/coord startPending fails it on a
		// thread of its own, TestRejectedContinuationUnderLockDoesNotSelfDeadlock).
		{"failovers", 5000517, "pct", "a rejected continuation hand-off under coord.lock: the dispatch thread waits for itself", ""},
		{"failovers", 5000641, "pct", "the same", ""},
		{"failovers", 5000662, "pct", "the same", ""},
		// A failover's restore had installed its generation and was held in
		// its RUNNING write (BUGGIFY status-slow, 2 s) when the last source
		// reported ready to close: the final checkpoint was triggered in
		// the new generation, completed and closed its tasks; then the
		// restore reloaded an older checkpoint from storage and its resume
		// triggered the final again, to the closed tasks
		// (barrier-to-closed-task; 13 of 600 idle-close-late seeds with
		// BUGGIFY on). core/coord: readyToClose's trigger waits for a
		// restore in flight, and a restore reads whether the final
		// completed under coord.generation, with its generation switch.
		{"idle-close-late", 5300012, "", "a final completed during a restore is triggered again to closed tasks", "on"},
		{"idle-close-late", 5300034, "pct", "the same; skipping the trigger during the restore instead lost it (bounded-finish)", "on"},
		{"idle-close-late", 5300087, "", "the same", "on"},
		// A restore's CancelAll ran while a trigger's re-arm was inside
		// Lease.Schedule: the scheduler registered the task after CancelAll
		// took its snapshot, then CancelAll emptied the task set, dropping it
		// uncancelled (core/sched, TestCancelAllKeepsConcurrentSchedule); and
		// the lease decorator counted the task as scheduled before the
		// CancelAll (it numbered it when Schedule began), so its body
		// starting later read as a cancel that did not hold
		// (lease-cancel-before-due, lease-cancel-effect: a false report).
		{"saturation", 5300287, "", "a task scheduled during CancelAll: dropped by core, misnumbered by the decorator", "on"},
		// A failure's clean passed the generation fence, then waited for
		// coord.lock while the job master's restore replaced the generation
		// and resumed it; it then cancelled the restored generation's new
		// periodic trigger and aborted its checkpoints, leaving job 0
		// pipeline 95 alive with nothing armed (checkpoint-progress; PCT with
		// BUGGIFY on: 66 of 300 saturation seeds, 58 of 300 savepoint-storm
		// seeds; core/coord clean re-checks the fence under coord.lock).
		{"saturation", 5300012, "pct", "a clean that waited out a restore cancels the restored generation's trigger", "on"},
		{"savepoint-storm", 5300003, "pct", "the same", "on"},
		// A restore re-delivered the final checkpoint while the original
		// completion was still finishing the generation that restore
		// replaced; the late finish set finishedFinal, the re-delivery's
		// notice failed and failed the new generation, and every later
		// restore returned at once for a "finished" pipeline: FAILED for
		// good (checkpoint-progress, bounded-finish; core/coord Restore
		// restores a finished pipeline whose current generation failed).
		{"idle-close-late", 5600174, "pct", "a finished pipeline whose re-delivery failed is never restored", "on"},
		{"idle-close-late", 5600446, "pct", "the same", "on"},
		// A periodic re-arm held back by BUGGIFY (rearm-races-cancel)
		// reached the lease while a restore's clean ran CancelAll: the old
		// chain looked live beside the restored generation's new one
		// (lease-trigger-chains; 7 of 300 savepoint-storm seeds, then 4 of
		// 300 more after core/coord's re-arm checked the generation too).
		// The scheduler had cancelled the re-arm (its Schedule was in flight,
		// already registered, when CancelAll took its snapshot); the lease
		// decorator missed that cancel and reported the chain (workloads/cluster,
		// TestCancelAllDuringScheduleIsCancelled). With the decorator fixed
		// the four later seeds pass, and the seven earlier ones pass even
		// with the generation check removed (mutant rearm-ignores-generation).
		{"savepoint-storm", 5600063, "", "a re-arm cancelled inside its Schedule counted as a live chain", "on"},
		{"savepoint-storm", 5800036, "", "the same, with the re-arm's generation check", "on"},
		// A store whose reply was lost (BUGGIFY store-fails-after-write:
		// stored, never retained) failed a generation a restore had already
		// replaced: no restore followed, so no rebuild from storage counted
		// the checkpoint, and storage held more than 2N-1 (retention;
		// core/coord reconciles the deque with storage after a failed store).
		{"idle-close", 5400169, "", "a lost store reply in a stale generation leaks a checkpoint", "on"},
		{"idle-close-late", 5700241, "", "the same", "on"},
		// Not a core bug, found once swarm drew redeploy (seed 11, baked:
		// swarm now keeps redeploy in one seed in eight): a master crash
		// hit a savepoint commit step whose error the commit did not
		// report, and the savepoint rot read the crashed file system (a
		// harness panic; workloads/savepoints.go). (Seed 34 then, a
		// redeploy's failed re-commit that generation-justified did not
		// credit, is TestGenerationAttribution's case.)
		{"testdata/swarm-11-rot-after-crash.yaml", 11, "", "savepoint rot after a crashed commit that returned nil", ""},
		// A savepoint requested just before a redeploy waited for the
		// pending checkpoint outside coord.lock; the redeploy's
		// Restore(false) ran meanwhile, and the savepoint was then taken
		// of tasks still waiting for their state, became the latest
		// completed and was handed back to them by Transport.RestoreState
		// (restore-integrity: an id no checkpoint store of the pipeline
		// wrote; core/coord savepointCreate re-checks that the tasks are
		// ready, TestSavepointNotTakenOfRedeployedTasks).
		{"swarm", 246, "", "a savepoint taken of redeployed tasks handed back to them as their state", ""},
		// A clean copied the pending map in one section of coord.map and
		// cleared it in a second; a registration hop landing between the
		// two was cleared without an abort, and the savepoint waiting on
		// its future was never answered (calls-answered, savepoint-outcome,
		// blocked-forever; windows seeds 31, 33, 59, 95 and 119 of 0-199
		// before the fix, BUGGIFY clean-slow and register-late widening the
		// window; core/coord takePending, F041).
		{"windows", 31, "", "a registration between a clean's copy and its clear of the pending map lost", ""},
		{"windows", 33, "", "the same", ""},
		// A restore rebuilt the retained ids from a storage listing while
		// a completion's retention step landed: the step between the
		// listing and the rebuild was lost (an orphan), and one after a
		// listing that held its store counted the id twice (a premature
		// delete) (retention, storage-retention; windows seeds 1, 36, 47,
		// 84, 137 and 149 of 0-199 at 648e6a4, BUGGIFY restore-list-slow
		// and store-slow; core/coord retain and reloadLatest under
		// coord.retention, F042). windows has changed since (whole-job
		// failovers), so these are two more windows seeds that must pass.
		{"windows", 1, "", "a retention step lost to, or counted twice by, a restore's rebuild", ""},
		{"windows", 36, "", "the same", ""},
		// An acknowledgement that prepares an idle task to close found its
		// checkpoint pending, then a restore's clean took it and cleared
		// the idle sets before the acknowledgement recorded the task
		// closed: the task stayed closed in the restored generation, got
		// no barrier again and every later checkpoint was stored without
		// it (stored-without-task; windows seeds 17, 44, 61, 63, 80, 98,
		// 103, 115 and 10 more of 0-199 at the check's commit, BUGGIFY
		// ack-slow; core/coord idleAcked, F043).
		{"windows", 17, "", "an idle close recorded after a clean took its checkpoint", ""},
		{"windows", 44, "", "the same", ""},
		// A savepoint completed in the generation a restore had just
		// installed (during the restore's RUNNING write, BUGGIFY
		// status-slow): its finish cleaned and wrote SUSPEND, then the
		// restore's reload cleared the shutdown flag and resumed, and the
		// ended generation took checkpoints on (ended-stays-ended; windows
		// seeds 0, 10, 12, 13, 17 and 30 more of 0-199 before the fix; with
		// a cancel of the job, cancel-stops: the cancel found the future
		// done and left the chain running; core/coord endedGen, F044).
		{"windows", 0, "", "an ended generation revived by the restore in flight", ""},
		{"windows", 10, "", "the same", ""},
		{"windows", 12, "", "the same", ""},
		// A failure's handler looked at the generation's future, then a
		// cancel of the job cleaned, wrote CANCELED and completed the
		// future, and the handler wrote FAILED after it, lost the future
		// and reported nothing: the store said FAILED for a canceled
		// pipeline no one failed over (status-justified; cancel-at-failure
		// seeds 0, 1, 3 and 22 more of 0-99 before the fix; core/coord
		// updateStatus, F045).
		{"cancel-at-failure", 0, "", "a failure's FAILED written over a cancel's CANCELED", ""},
		{"cancel-at-failure", 1, "", "the same", ""},
		{"cancel-at-failure", 3, "", "the same", ""},
	} {
		var s *Scenario
		var err error
		if strings.HasSuffix(tc.scenario, ".yaml") {
			s, err = LoadFile(tc.scenario)
		} else {
			s, err = Lookup(tc.scenario)
		}
		if err != nil {
			t.Fatal(err)
		}
		if out := Run(s, Options{Seed: tc.seed, Strategy: tc.strategy, Buggify: tc.buggify}); out.Verdict != Pass {
			t.Errorf("%s seed %d (%s): %s %v\nreplay: %s", tc.scenario, tc.seed, tc.found, out.Verdict, out.Violations, out.Replay)
		}
	}
}
