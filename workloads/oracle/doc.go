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
// hand-offs, the simulated broker), from the faults the harness itself
// injected and when, and from virtual time. coord.Event feeds traces and
// diagnostics, never a check of this package: TestChecksReadOnlyTheFeed
// (imports_test.go) fails on any file here that uses coord.Event, the
// cluster's Recorder, or anything of core/coord beyond the boundary values
// the feed carries, or that imports core/sched. Checks still judged outside
// this package (the broker's in workloads/cluster/pipeline.go, the idle-close checks in
// workloads/cluster/idle.go, retention and the thread checks in workloads) are
// not yet under that test. A check that still reads a field the code
// under test computed about itself (a pool's own statistics, a task's Done)
// is marked Source SelfReport in the registry, so the remaining debt is
// listed rather than hidden.
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
