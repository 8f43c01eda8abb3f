package workloads

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/ckptsim/ckptsim/core/coord"
	"github.com/ckptsim/ckptsim/core/sched"
	"github.com/ckptsim/ckptsim/core/variant"
	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/workloads/cluster"
	"github.com/ckptsim/ckptsim/workloads/oracle"
)

// Verdict classifies a run; simrun maps it to an exit code.
type Verdict string

// The verdicts, in the order simrun ranks them.
const (
	Pass     Verdict = "pass"
	Safety   Verdict = "safety"
	Liveness Verdict = "liveness"
	Crash    Verdict = "crash"
	// Unknown: a checker gave up (porcupine's bounds, CheckSteps and
	// CheckSearchBytes, or a backstop: the heap share, CheckTimeout)
	// without a violation found: never a pass, and not a budget: the run
	// itself finished. simrun exits 4 for it, as for budget.
	Unknown Verdict = "unknown"
	Budget  Verdict = "budget"
)

// Options are per-run settings on top of the scenario.
type Options struct {
	Seed     uint64
	Variants map[string]string // override the scenario's variants
	// Profile names the variant profile Variants were expanded from
	// (core/variant.Profiles; "": none). Run only records it: the
	// expansion is the caller's.
	Profile  string
	Strategy string // override run.strategy
	Trace    bool   // keep the readable trace
	MaxSteps int64  // override run.max_steps
	// MaxHeap, when positive, is the process heap a seed may reach before
	// it ends with a budget verdict (sim.Config.MaxHeap); simrun gives each
	// of its --parallel seeds a share of the memory a seed may use.
	MaxHeap int64
	// Replay, when set, makes Run follow a recorded decision list.
	Replay []int32
	// RecordDecisions keeps the decision list in the outcome.
	RecordDecisions bool
	// ArtifactDir receives visualisations of failing checks ("": none),
	// and the timeline page of a failing seed (TimelineFile), in
	// ArtifactDir/<scenario>-seed-<seed>/.
	ArtifactDir string
	// Buggify overrides the scenario's buggify.enabled: "on" (the
	// scenario's probabilities, or the defaults), "off", or "" (the scenario).
	Buggify string
	// Timeline, when set, is a file that receives the run's timeline page
	// whatever the verdict.
	Timeline string
	// Progress, when set, receives the run's steps and virtual time as it
	// goes (sim.Config.Progress), for a display of a long seed; it changes
	// nothing in the run.
	Progress *sim.Progress
}

// Outcome is one seed's result.
type Outcome struct {
	Scenario   string   `json:"scenario"`
	Seed       uint64   `json:"seed"`
	Verdict    Verdict  `json:"verdict"`
	TraceHash  string   `json:"trace_hash"`
	SimNs      int64    `json:"sim_ns"`
	Steps      int64    `json:"steps"`
	Violations []string `json:"violations"`
	Replay     string   `json:"replay"`
	WallNs     int64    `json:"wall_ns"`
	Variants   string   `json:"variants"`
	Profile    string   `json:"profile,omitempty"` // the profile Variants were expanded from (Options.Profile)
	// Strategy and BuggifyFlag are the overrides the seed ran with
	// (Options.Strategy, Options.Buggify; "": the scenario's own), so
	// that two campaign rows of one scenario that differ only in them
	// name different seeds.
	Strategy    string         `json:"strategy,omitempty"`
	BuggifyFlag string         `json:"buggify_flag,omitempty"`
	Latency     Latencies      `json:"-"`
	Windows     map[string]int `json:"windows,omitempty"`
	Counts      map[string]int `json:"counts,omitempty"`
	Events      []sim.Event    `json:"-"`
	Decisions   []int32        `json:"-"`
	LockGraph   *sim.LockGraph `json:"-"`
	Artifacts   []string       `json:"artifacts,omitempty"`
	// IOErrors are the artefacts that could not be written: an error of
	// the harness's output, never a violation, and no part of the verdict
	// (simrun exits with an error for them).
	IOErrors []string      `json:"io_errors,omitempty"`
	Buggify  []SiteOutcome `json:"buggify,omitempty"`
	// Probes are the code probes core reached in the run (env.Probe):
	// name -> hits; probes never hit are left out.
	Probes map[string]int `json:"probes,omitempty"`
	// Checks are the ids of the checks that fired (workloads/oracle),
	// sorted; Findings what each saw.
	Checks   []string         `json:"checks,omitempty"`
	Findings []oracle.Finding `json:"findings,omitempty"`
	// Swarm is what a swarm scenario's seed ran with (SwarmFaults): each
	// fault kind the scenario lists -> its drawn value as the scenario's
	// YAML would write it, or "off".
	Swarm map[string]string `json:"swarm,omitempty"`
	// Options is the configuration a swarm scenario's seed ran with
	// (SwarmConfig): the scheduler design in effect (a design named by
	// the variants wins over the draw), the timer lead, pool and executor
	// sizes and keep-alives, and each latency's shape, as the scenario's
	// YAML would write them.
	Options map[string]string `json:"options,omitempty"`
}

// SiteOutcome is what one BUGGIFY site did in a seed.
type SiteOutcome struct {
	Site      string `json:"site"`
	On        bool   `json:"on"`
	Evaluated int    `json:"evaluated"` // calls while on
	Fired     int    `json:"fired"`
}

// Latencies are virtual-time distributions gathered during the run.
type Latencies struct {
	TriggerToComplete []time.Duration // first barrier sent to the durable Storage.Store return (oracle.Latency)
	SchedDelay        []time.Duration
	ExpiryToTrigger   []time.Duration // diagnostics only (coordinator events); no check reads it
	FailoverToFirst   []time.Duration // restore called to the next durable store (oracle.Latency)
}

// effectiveVariants merges scenario variants with overrides.
func (s *Scenario) effectiveVariants(over map[string]string) map[string]string {
	v := maps.Clone(s.Variants)
	if v == nil {
		v = map[string]string{}
	}
	maps.Copy(v, over)
	return v
}

// VariantString renders variants sorted, "fixed" when empty.
func VariantString(v map[string]string) string {
	if len(v) == 0 {
		return "fixed"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(v)) {
		parts = append(parts, k+"="+v[k])
	}
	return strings.Join(parts, ",")
}

// ReplayCommand is the command that reproduces one seed.
func ReplayCommand(s *Scenario, seed uint64, variants map[string]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "go run ./cmd/simrun replay --scenario %s --seed %d", s.Ref(), seed)
	for _, k := range slices.Sorted(maps.Keys(variants)) {
		fmt.Fprintf(&b, " --variant %s=%s", k, variants[k])
	}
	return b.String()
}

// Ref names the scenario for a command line: its embedded name or file.
func (s *Scenario) Ref() string {
	if strings.HasPrefix(s.file, "embedded:") {
		return s.Name
	}
	return s.file
}

// clusterConfig builds the simulated member of a scenario.
func (s *Scenario) clusterConfig(v map[string]string, f Faults) (cluster.Config, error) {
	set, err := variant.Parse(v)
	if err != nil {
		return cluster.Config{}, err
	}
	design := cmp.Or(set.Design, sched.Design(s.Scheduler.Design))
	cores := s.Cluster.Cores
	if cores == 0 {
		cores = 2
	}
	w := s.Workload
	cfg := cluster.Config{
		Jobs: s.Cluster.Jobs, Pipelines: s.Cluster.Pipelines, Tasks: s.Cluster.Tasks, ExecutorCore: s.Cluster.ExecutorCore, ExecutorMax: s.Cluster.ExecutorMax,
		ExecutorKeepAlive: s.Cluster.ExecutorKeepAlive.D, FileStorage: s.Cluster.Storage == "file",
		LegacyUntil:   s.Cluster.LegacyUntil.D,
		StartingTasks: s.Cluster.StartingTasks,
		Coord: coord.Config{Interval: s.Checkpoint.Interval.D, Timeout: s.Checkpoint.Timeout.D,
			SchemaTimeout: s.Checkpoint.SchemaTimeout.D, MinPause: s.Checkpoint.MinPause.D,
			MaxRetained: s.Checkpoint.MaxRetained, Variants: set},
		Sched: sched.Config{Design: design, Cores: cores, DispatchThreads: s.Scheduler.DispatchThreads, TaskFailure: set.TaskFailure,
			CancelAll: set.CancelAll, CloseTasks: set.CloseTasks,
			TimerLead: s.Scheduler.TimerLead.D, KeepAlive: s.Scheduler.KeepAlive.D},
		Workload: cluster.Workload{AckLatency: dist(w.AckLatency), DispatchLatency: dist(w.DispatchLatency),
			NotifyLatency: dist(w.NotifyLatency), StatusLatency: dist(w.StatusLatency), StorageLatency: dist(w.StorageLatency),
			RestartDelay: dist(w.RestartDelay), BodySlowness: dist(w.BodySlowness),
			Partitions: w.Partitions, BatchRate: w.BatchRate, SinkFailure: w.SinkFailure,
			SinkFanout: w.SinkFanout,
			IdleAfter:  dist(w.IdleAfter), FinishAfter: dist(w.FinishAfter)},
	}
	clusterFaults(&cfg, f)
	return cfg, nil
}

func dist(d Dist) cluster.Dist {
	return cluster.Dist{Kind: d.Kind, Min: d.Min.D, Max: d.Max.D, Mean: d.Mean.D, Step: d.Step.D}
}

// Span is the virtual time a run of s covers: its duration and its heal
// phase (the quiesce after them takes a few seconds more).
func (s *Scenario) Span() time.Duration { return s.Run.Duration.D + s.heal() }

// heal returns the liveness phase length.
func (s *Scenario) heal() time.Duration {
	if s.Run.Heal.D > 0 {
		return s.Run.Heal.D
	}
	to := s.Checkpoint.Timeout.D
	if to == 0 {
		to = 30 * time.Second
	}
	return max(3*s.Checkpoint.Interval.D+2*to, time.Minute)
}
