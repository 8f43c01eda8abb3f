// Package cluster is the simulated side of ckptsim's boundaries: tasks
// reached through a transport, checkpoint storage, the status store, the
// id counter, the job master and the coordinator executor, all running as
// simulated threads in one sim.World around the real core (scheduler,
// coordinators, managers, offset checkpointers).
//
// # Determinism
//
// Every draw comes from a stream of the World, derived from the seed:
// latencies, task slowness and restart delays (and a redeploy's report
// latencies, RedeployPipeline) from sim.StreamWorkload;
// the rate faults (status-store retries, storage, id, barrier, notify and
// trigger failures, dropped acknowledgements, task-reported errors) from
// sim.StreamFaults (the scenario's fault injector in workloads has its
// own, sim.StreamInjector); sources and sinks from sim.StreamPipelines
// (polls, batches, sink delays and order) and sim.StreamSinkFaults (sink
// failures); idle tasks and bounded sources from sim.StreamIdle (the
// registry in sim/rand.go lists every stream). No map is
// ranged where its order could show; per-pipeline state is keyed by
// PipelineID and numbered by PipelineID.Seq. The same seed, configuration
// and strategy give the same trace hash.
//
// # Faults and Heal
//
// A rate fault fires on a call with its configured probability while the
// cluster is not healed. StepDown shuts the coordinator executor down (a
// master step-down); Reactivate installs a fresh one. Heal switches every
// rate fault, the sink failures and the extra status-store slowness off
// and reactivates a stepped-down executor; it does not undo what faults did (a failed generation stays
// failed until the job master restores it, a dropped acknowledgement
// stays dropped, a latency already drawn is still slept). After Heal only
// the workload's latencies remain, so a correct core must make progress:
// that is the liveness phase workloads judges.
//
// # What it records
//
// The Recorder keeps the coordinators' events, latencies and windows for
// traces and diagnostics, and the watermark operations go to OnOp; the
// verdicts are workloads' business.
package cluster
