// Package oracle is the one home of ckptsim's checks: the registry of
// every check that can give a run a safety or liveness verdict (checks.go,
// rendered as CHECKS.md beside this file), the Finding a fired check
// produces, and the checks themselves or the hooks they report through.
//
// # The principle
//
// A verdict is derived only from what the harness observes at the
// boundaries of the code under test (Transport, Storage, SavepointWriter,
// StatusStore, IDCounter, JobMaster, the executor, the lease and timer
// hand-offs, the offset checkpointer and the simulated broker), from the
// harness's own actions (the restores, cancels and faults it drove, what
// its tasks, sources and sinks did), from the simulator's thread table and
// from virtual time: the feeds (Feed). Each check declares the feeds it
// subscribes to in the registry, and its Source label in CHECKS.md is
// derived from them. The cluster hands them over typed: cluster.Obs on
// OnBoundary and OnLease (the lease decorator, cluster.Leases, and the
// entry of every boundary call), cluster.PipeObs on OnPipeline.
//
// coord.Event feeds traces and diagnostics, never a check of this package:
// TestChecksReadOnlyTheFeed (imports_test.go) fails on any file here that
// uses coord.Event, the cluster's Recorder, anything of core/coord or
// core/watermark beyond the boundary values the feed carries, that
// imports core/sched, core/exec or sim, or that selects what core computes
// about itself (Outstanding, Cancelled, Stats). A check that still reads
// something the code under test computed about itself (a task's Done and
// a lease's Outstanding, handed over after the run as ObsLeaseDone and
// ObsLeaseOutstanding; a pool's queue length, ExecutorStats) declares the SelfReport feed
// and is labelled self-report, so the remaining debt is listed rather than
// hidden; TestSelfReportFeedsAreDeclared fails on a file that reads a
// self-report observation and reports a check not so declared.
//
// The simulator's reports reach the checks as this package's plain values,
// never as sim's: the thread table (Thread) for timer-threads,
// dispatch-bound and worker-died, the threads blocked at the end of a run
// and a whole-world deadlock's reason (Blocked) for deadlock and
// blocked-forever, the lock-order graph's edges (LockEdge) for lock-order;
// the package does not import sim (TestChecksReadOnlyTheFeed).
// blocked-forever also reads the coordinator executor's count of its
// queued tasks and threads (ExecutorStats, from exec.Pool.Stats) and so
// declares SelfReport.
//
// The harness's job savepoints reach savepoint-crash, savepoint-retention
// and restore-integrity (SavepointStore) as what it wrote and saw commit,
// the faults it injected, and what the store lists and reads back when
// asked; savepoint-outcome (SavepointOutcomes) as the requests the harness
// made and whether each was answered.
//
// watermark-progress (WatermarkLiveness) is fed the pipelines' operations
// as they begin (cluster.WatermarkOp); latency-bound (LatencyBounds,
// MaxDelay) the latencies the harness measured at the boundaries, the
// bounds the harness derives from the scenario's configuration
// (workloads.Bounds) and the step-down windows it injected.
//
// The porcupine models (model-*) check the histories the harness recorded
// (History: a model and its operations) with CheckModels.
//
// Every check is judged here: outside this package the harness only
// collects what the feeds carry and hands it over, and forwards findings
// (TestNoCheckJudgedOutside fails on a file elsewhere that reports a
// check by its id, as oracle's constant or a literal; an id computed at
// the call it cannot see).
//
// # Using it
//
// A run owns one Findings. A check reports with Findings.Add (or Assert,
// Once) under its registered id; an unregistered id panics (a harness
// bug). workloads.Run turns the findings into the Outcome: Verdict is the
// worst class among them (safety before liveness), Violations one line per
// finding, Checks the sorted ids that fired and Findings the details.
// To add a check: add its id constant and registry entry in checks.go
// (what it observes, asserts and catches, and the planted bug that proves
// it), report through Findings, and regenerate CHECKS.md with
// `go test ./workloads/oracle -run TestChecksDoc -update`.
//
// The generation checks (generation.go) are the model: they derive the
// generation a failure notification fails from the restores the harness
// drove, and its justification from injected faults and triggered
// checkpoints, never from the coordinator's labels. The checkpoint-sequence
// checks (checkpoints.go) follow it: ids, outstanding checkpoints and the
// thread a barrier is dispatched from, all as the boundaries see them.
package oracle
