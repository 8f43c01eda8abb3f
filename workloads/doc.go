// Package workloads turns scenario files into simulated runs. A scenario
// (YAML, decoded strictly) describes a member, its jobs and pipelines, the
// workload and the faults; Run executes one seed of it through the
// simulator with the real core and returns a verdict. Built-in scenarios
// are embedded so that simrun needs nothing else. Every field is
// documented in workloads/REFERENCE.md.
//
// # A run
//
// Run builds a sim.World from the seed, the scenario's strategy and
// budgets, and the cluster of workloads/cluster. It starts the jobs, lets the
// fault injector work for run.duration (the safety phase), heals the
// cluster and waits run.heal (the liveness phase), then judges.
// Variants (core/variant) select historical behaviours of the core; a
// bad key or value is an error naming the scenario's file, line and field.
//
// # Verdicts
//
//   - Pass: no check failed.
//   - Safety: an invariant or a porcupine model rejected the recorded
//     history, a lock-order cycle was seen, or the world deadlocked.
//   - Liveness: after faults stopped, a running pipeline completed no
//     checkpoint (or an assigned partition committed no watermark) within
//     the liveness window, or scheduling delay exceeded checks.max_delay.
//   - Crash: the harness or the core panicked (with the stack), or the run
//     ended for a reason the harness does not classify.
//   - Budget: the step or virtual-time budget ran out, or a porcupine check
//     timed out (unknown is never a pass).
//
// When several apply, the verdict is the worst in the order safety,
// liveness, crash, budget.
//
// # Determinism
//
// The same scenario, seed, variants, strategy and budget give the same
// trace hash and verdict on every machine and at any GOMAXPROCS: every
// draw comes from a named stream of sim's registry, derived from the seed
// (sim.StreamInjector for the scheduled faults, sim.StreamSwarm for a
// swarm seed's fault kinds and magnitudes, sim.StreamSwarmConfig for its
// scheduler design and options, sim.StreamCrashFS for the
// savepoint file system's crashes; the cluster's own in workloads/cluster), and
// map order never shows.
// TestPinnedTraceHashes pins (scenario, seed, variants) to trace hash for
// every embedded scenario in testdata/trace-hashes.txt; make pin-hashes
// regenerates it after a change that moves hashes on purpose.
package workloads
