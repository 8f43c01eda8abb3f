// Package linearizability records histories of simulated runs, checks them
// against the models of package model with porcupine, and reports honest
// verdicts.
//
// # Recording
//
// A Recorder gives each actor (a simulated thread, or a logical client such
// as "coordinator 3") one porcupine client id. It refuses malformed
// histories when they are recorded, not when they are checked: an operation
// that returns before its call, one that overlaps an earlier operation of
// the same actor, virtual time that goes backwards under the Logical clock,
// and a return of an operation that is not in progress. An operation whose
// outcome is unknown (cut by a failover) is recorded with Cut: it returns
// at math.MaxInt64 with output model.Unknown{} and moves to a client id of
// its own, so its actor may continue.
//
// The default Logical clock stamps calls and returns with virtual ns << 10
// plus a counter, strictly increasing in the order they are recorded. In a
// deterministic simulation many operations happen in one virtual instant;
// with raw virtual time, porcupine's closed intervals would make them all
// concurrent, which weakens the check and slows it down. The Logical clock
// keeps them in the order the run performed them. Record inside the
// simulation; check after it (porcupine's time limit is wall time, which
// does not move inside a synctest bubble).
//
// # Checking
//
// Check splits a history by model key (pipeline, partition or job), sorts
// the partitions, and checks each one: first a replay in call order and in
// return order (either one, if the model accepts it, is a linearization), then
// porcupine for the rest. The Verdict is three-valued: Ok, Illegal (naming
// the first failing partition in key order, with porcupine's longest
// linearizable prefix and why the next operation cannot follow it) or
// Unknown when a bound hit: Options.MaxSteps (model steps) or
// Options.MaxSearchBytes (what porcupine's search stores, charged per
// accepted step from the partition's length), both deterministic; or, as
// backstops that depend on the machine, Options.MaxHeap (the process heap,
// watched while porcupine searches) and Options.Timeout. Unknown never
// passes. WriteVisualization
// writes porcupine's HTML for the failing partition and its history file,
// and Report.Finish does that for every failure of a run and prints the
// replay command.
//
// Run-time assertions (one outstanding checkpoint per pipeline, increasing
// ids, thread counts, ...) live in workloads/oracle with every other check,
// and observe the boundaries rather than the code's own counters.
//
// History files (see HistoryFile) are a small text format for hand-written
// histories in testdata/ and for failing histories saved by
// WriteVisualization.
package linearizability
