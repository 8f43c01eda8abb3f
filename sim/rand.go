package sim

import (
	"fmt"
	"math/rand/v2"
)

// Stream names an independent random stream derived from the run's seed.
// Drawing from one stream never changes the numbers another produces, so
// changing the scheduling strategy does not change the workload, and
// switching a fault kind on does not change the latencies.
type Stream uint64

// The registry of a simulation's random streams: every stream that the
// simulator, the simulated cluster (workloads/cluster) and the harness
// (workloads) draw from is one of these, and NewRand(seed, s) derives it
// from the seed. A package that needs a stream adds one here, at the end
// (a stream's number is its derivation: renumbering one moves every trace
// hash that draws from it); TestStreamRegistry rejects a stream declared
// anywhere else.
const (
	// StreamSched picks among runnable threads (the random strategy) and
	// draws spurious wake-ups (sim).
	StreamSched Stream = iota + 1
	// StreamFaults draws the cluster's rate faults: status-store retries,
	// storage, id, barrier, notify and trigger failures, dropped
	// acknowledgements, task-reported errors (workloads/cluster).
	StreamFaults
	// StreamWorkload draws the cluster's latencies, task slowness and
	// restart delays (workloads/cluster).
	StreamWorkload
	// StreamStrategy draws the strategy's own choices (PCT's priorities
	// and change points).
	StreamStrategy
	// StreamBuggify draws which BUGGIFY sites are on in a run and when an
	// on site fires, so switching sites on never reshuffles the other
	// streams (the schedule still changes once a site fires).
	StreamBuggify
	// StreamInjector draws the scheduled faults of a scenario: Poisson
	// times, the job, pipeline or partitions each hits, the step of a
	// savepoint commit a master crash interrupts (workloads).
	StreamInjector
	// StreamSwarm draws a swarm seed's fault kinds and their magnitudes,
	// before the World exists (workloads.SwarmFaults).
	StreamSwarm
	// StreamCrashFS resolves what a crash of the savepoint file system
	// leaves of unsynced changes (workloads).
	StreamCrashFS
	// StreamPipelines draws the sources' poll jitter and batch sizes and
	// the sinks' delays and order (workloads/cluster).
	StreamPipelines
	// StreamSinkFaults draws sink failures (workloads/cluster).
	StreamSinkFaults
	// StreamIdle draws when idle tasks ask to close and when bounded
	// sources finish (workloads/cluster).
	StreamIdle
	// StreamSwarmConfig draws a swarm seed's scheduler design, timer lead,
	// pool and executor sizes and keep-alives and latency shapes, before
	// the World exists (workloads.SwarmConfig).
	StreamSwarmConfig
	// StreamCrashStore resolves what a crash of the checkpoint file system
	// keeps (workloads/cluster's file storage, Config.FileStorage).
	StreamCrashStore
	// StreamSavepointRot draws the savepoint_rot fault: whether a committed
	// savepoint rots, which pipeline's payload and which bit (workloads).
	StreamSavepointRot
	// StreamSavepointFail draws the savepoint_failure fault: whether an
	// operation of the savepoint store fails, and at which step (workloads).
	StreamSavepointFail
	// StreamBuggifyLate draws, for each BUGGIFY site after the first
	// sharedSites (env.SiteStoreFailsAfterWrite and before), whether it is
	// on in a run and when it fires, from a stream of the site's own
	// (derived from this one and the site), so that a site added to core
	// never shifts the draws of the sites before it.
	StreamBuggifyLate
	// StreamRedeploySavepoint draws whether a redeploy also meets a
	// savepoint request of its job, and when (workloads: the redeploy
	// fault in a scenario that has the savepoint fault on).
	StreamRedeploySavepoint
	// StreamCloseAtFiring draws, for a scenario with run.close_at_firing,
	// the instant the harness closes the scheduler at the end of the run:
	// at a lease task's due instant or a timer lead before it (workloads).
	StreamCloseAtFiring
	// StreamNotifyStart draws the notify_start_failure fault: whether a
	// Transport.NotifyStart call fails (workloads/cluster). A stream of its
	// own, so that the kind leaves the draws of StreamFaults as they were.
	StreamNotifyStart
	// StreamCancelAtFailure draws, for a scenario with run.cancel.at_failure,
	// how many scheduling points the harness yields at the instant a task
	// of a job reports an error before it cancels the job (workloads).
	StreamCancelAtFailure

	streamEnd // one past the last stream
)

var streamNames = [streamEnd]string{StreamSched: "sched", StreamFaults: "faults", StreamWorkload: "workload",
	StreamStrategy: "strategy", StreamBuggify: "buggify", StreamInjector: "injector", StreamSwarm: "swarm",
	StreamCrashFS: "crash-fs", StreamPipelines: "pipelines", StreamSinkFaults: "sink-faults", StreamIdle: "idle",
	StreamSwarmConfig: "swarm-config", StreamCrashStore: "crash-store",
	StreamSavepointRot: "savepoint-rot", StreamSavepointFail: "savepoint-fail", StreamBuggifyLate: "buggify-late",
	StreamRedeploySavepoint: "redeploy-savepoint", StreamCloseAtFiring: "close-at-firing",
	StreamNotifyStart: "notify-start", StreamCancelAtFailure: "cancel-at-failure"}

// String is the stream's name in the registry.
func (s Stream) String() string {
	if s > 0 && s < streamEnd {
		return streamNames[s]
	}
	return fmt.Sprintf("Stream(%d)", uint64(s))
}

// Streams lists the registry in number order.
func Streams() []Stream {
	out := make([]Stream, 0, streamEnd-1)
	for s := Stream(1); s < streamEnd; s++ {
		out = append(out, s)
	}
	return out
}

// splitmix64 is the seed-derivation function of TigerBeetle's VOPR and
// java.util.SplittableRandom.
func splitmix64(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9
	x = (x ^ (x >> 27)) * 0x94D049BB133111EB
	return x ^ (x >> 31)
}

// NewRand returns the generator for stream s of seed: a PCG seeded with
// splitmix64(seed ^ splitmix64(s)). It panics on a stream outside the
// registry.
func NewRand(seed uint64, s Stream) *rand.Rand {
	if s == 0 || s >= streamEnd {
		panic(fmt.Sprintf("sim: %v is not in the stream registry (sim/rand.go)", s))
	}
	a := splitmix64(seed ^ splitmix64(uint64(s)))
	return rand.New(rand.NewPCG(a, splitmix64(a)))
}
