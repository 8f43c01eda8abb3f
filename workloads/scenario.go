package workloads

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
)

// Duration is a YAML duration ("10s", "500ms"). It decodes leniently and
// is validated with the file position, so that a bad value names its line.
type Duration struct {
	D   time.Duration
	Raw string
	err error
}

// UnmarshalYAML keeps the raw text and the parse error for validation.
func (d *Duration) UnmarshalYAML(b []byte) error {
	var s string
	if err := yaml.Unmarshal(b, &s); err != nil {
		return err
	}
	d.Raw = s
	d.D, d.err = time.ParseDuration(s)
	if d.err == nil && s != "0" && !strings.ContainsAny(s, "nsuµmh") {
		d.err = fmt.Errorf("missing unit")
	}
	return nil
}

// MarshalYAML writes the duration back as text.
func (d Duration) MarshalYAML() ([]byte, error) { return []byte(d.D.String()), nil }

// Dur builds a Duration.
func Dur(d time.Duration) Duration { return Duration{D: d, Raw: d.String()} }

// Dist is a latency distribution.
type Dist struct {
	Kind string   `yaml:"kind,omitempty"` // fixed (default) | uniform | exp
	Min  Duration `yaml:"min,omitempty"`
	Max  Duration `yaml:"max,omitempty"`
	Mean Duration `yaml:"mean,omitempty"`
	// Step rounds every draw down to a whole multiple of it (0: off), so
	// that draws coincide and threads wake at the same virtual instant.
	Step Duration `yaml:"step,omitempty"`
}

// Schedule says when a fault happens: at fixed times, every period, or at
// a rate (per simulated hour, exponential inter-arrival).
type Schedule struct {
	At      []Duration `yaml:"at,omitempty"`
	Every   Duration   `yaml:"every,omitempty"`
	PerHour float64    `yaml:"per_hour,omitempty"`
	For     Duration   `yaml:"for,omitempty"` // how long the fault lasts (step-down, schema change)
	// KeepCoordinators (step-down only): the same master reactivates with a
	// fresh executor and its coordinators keep running, with no restore.
	KeepCoordinators bool `yaml:"keep_coordinators,omitempty"`
	// Graceful (step-down only): the executor is shut down gracefully
	// (exec.Pool.Shutdown) and the step-down waits for its threads to end
	// (AwaitTermination, up to `for`, or Grace), instead of ShutdownNow.
	Graceful bool `yaml:"graceful,omitempty"`
	// Grace (step-down with graceful only): how long the graceful
	// step-down's AwaitTermination waits for the executor's threads (unset:
	// up to `for`). A wait that runs out leaves the old threads finishing
	// their work beside the fresh executor that replaces it after `for`.
	Grace Duration `yaml:"grace,omitempty"`
	// WholeJob (failover only): the job restores through core's own loop,
	// coord.Manager.Restore, instead of the harness's pipeline by pipeline.
	WholeJob bool `yaml:"whole_job,omitempty"`
}

// Scenario is one scenario file.
type Scenario struct {
	Name        string            `yaml:"name"`
	Description string            `yaml:"description,omitempty"`
	Cluster     Cluster           `yaml:"cluster"`
	Checkpoint  Checkpoint        `yaml:"checkpoint"`
	Scheduler   Scheduler         `yaml:"scheduler,omitempty"`
	Variants    map[string]string `yaml:"variants,omitempty"`
	Workload    Workload          `yaml:"workload,omitempty"`
	Faults      Faults            `yaml:"faults,omitempty"`
	Swarm       bool              `yaml:"swarm,omitempty"`
	Buggify     *Buggify          `yaml:"buggify,omitempty"`
	Run         RunSpec           `yaml:"run"`
	Checks      Checks            `yaml:"checks,omitempty"`

	file string
	src  []byte
}

// Cluster is the member's shape.
type Cluster struct {
	Jobs      int `yaml:"jobs"`
	Pipelines int `yaml:"pipelines"` // per job
	Tasks     int `yaml:"tasks"`     // per pipeline
	// StartingTasks are the source tasks (0..n-1) of each pipeline; the
	// others may close when idle (0: every task is a source).
	StartingTasks int `yaml:"starting_tasks,omitempty"`
	Cores         int `yaml:"cores,omitempty"`
	ExecutorCore  int `yaml:"executor_core,omitempty"`
	// ExecutorKeepAlive is how long an idle coordinator-executor thread
	// above its core threads lives (0: 60 s).
	ExecutorKeepAlive Duration `yaml:"executor_keep_alive,omitempty"`
	// ExecutorMax bounds the coordinator executor's threads (SeaTunnel's
	// coordinator-service.max-thread-num; 0: no maximum, the default):
	// with its direct hand-off a submission finding every thread busy is
	// rejected (exec.ErrSaturated).
	ExecutorMax int `yaml:"executor_max,omitempty"`
	// Storage is where checkpoints are stored: memory (default), the
	// simulated cluster's in-memory map, or file, core's production
	// checkpoint store (savepoint.Checkpoints) on a crashable simulated
	// file system.
	Storage string `yaml:"storage,omitempty"`
	// LegacyUntil (storage file only): checkpoints stored before this
	// instant are written in the legacy v0 layout of the engine version
	// before an upgrade.
	LegacyUntil Duration `yaml:"legacy_until,omitempty"`
}

// Checkpoint is the coordinators' configuration.
type Checkpoint struct {
	Interval      Duration `yaml:"interval"`
	Timeout       Duration `yaml:"timeout,omitempty"`
	MinPause      Duration `yaml:"min_pause,omitempty"`
	MaxRetained   int      `yaml:"max_retained,omitempty"`
	SchemaTimeout Duration `yaml:"schema_timeout,omitempty"`
}

// Scheduler selects the scheduler design.
type Scheduler struct {
	Design          string `yaml:"design,omitempty"`
	DispatchThreads int    `yaml:"dispatch_threads,omitempty"`
	// TimerLead runs the scheduler's timers with a lead (sched.Config.
	// TimerLead), the path production takes on env.PreciseWall.
	TimerLead Duration `yaml:"timer_lead,omitempty"`
	// KeepAlive is how long an idle dispatch thread lives before it is
	// reaped (sched.Config.KeepAlive; 0: 60 s).
	KeepAlive Duration `yaml:"keep_alive,omitempty"`
}

// Workload shapes tasks, stores and sources.
type Workload struct {
	AckLatency      Dist    `yaml:"ack_latency,omitempty"`
	DispatchLatency Dist    `yaml:"dispatch_latency,omitempty"`
	NotifyLatency   Dist    `yaml:"notify_latency,omitempty"`
	StatusLatency   Dist    `yaml:"status_latency,omitempty"`
	StorageLatency  Dist    `yaml:"storage_latency,omitempty"`
	RestartDelay    Dist    `yaml:"restart_delay,omitempty"`
	BodySlowness    Dist    `yaml:"body_slowness,omitempty"` // blocking work in each dispatched trigger
	Partitions      int     `yaml:"partitions,omitempty"`    // source partitions per pipeline (watermarks)
	BatchRate       float64 `yaml:"batch_rate,omitempty"`    // source batches per second per partition
	SinkFailure     float64 `yaml:"sink_failure,omitempty"`  // probability a batch fails in the sink
	SinkFanout      float64 `yaml:"sink_fanout,omitempty"`   // probability a batch goes to two sink writes
	IdleAfter       Dist    `yaml:"idle_after,omitempty"`    // when each non-starting task asks to close
	FinishAfter     Dist    `yaml:"finish_after,omitempty"`  // when each pipeline's sources finish (bounded)
}

// Faults lists fault kinds with their rates or schedules.
type Faults struct {
	Failover        Schedule `yaml:"failover,omitempty"`
	StepDown        Schedule `yaml:"step_down,omitempty"`
	Savepoint       Schedule `yaml:"savepoint,omitempty"`
	SchemaChange    Schedule `yaml:"schema_change,omitempty"`
	Rebalance       Schedule `yaml:"rebalance,omitempty"`
	MasterCrash     Schedule `yaml:"master_crash,omitempty"` // the master crashes during the next savepoint commit
	TaskFailure     float64  `yaml:"task_failure,omitempty"` // a task drops a barrier's ack
	StatusRetryable float64  `yaml:"status_retryable,omitempty"`
	StatusSlow      Dist     `yaml:"status_slow,omitempty"`
	StorageFailure  float64  `yaml:"storage_failure,omitempty"`
	IDFailure       float64  `yaml:"id_failure,omitempty"`
	BarrierFailure  float64  `yaml:"barrier_failure,omitempty"`
	NotifyFailure   float64  `yaml:"notify_failure,omitempty"`
	TriggerThrow    float64  `yaml:"trigger_throw,omitempty"`
	TaskError       float64  `yaml:"task_error,omitempty"` // a task reports a checkpoint error
	// StorageReplyLost: a checkpoint store's write lands, its reply is lost.
	StorageReplyLost float64 `yaml:"storage_reply_lost,omitempty"`
	// BitRot: a committed checkpoint's stored bytes rot (one byte flips).
	BitRot float64 `yaml:"bit_rot,omitempty"`
	// SavepointRot: a committed savepoint's stored bytes rot (one bit of
	// one pipeline's state flips in its payload file, one bit of its
	// manifest flips, or a payload file loses its tail).
	SavepointRot float64 `yaml:"savepoint_rot,omitempty"`
	// Redeploy: the harness redeploys a random pipeline (restoreCoordinator
	// (false)): its tasks report WAITING_RESTORE, are handed their state,
	// then report READY_START (faults.go, cluster.RedeployPipeline).
	Redeploy Schedule `yaml:"redeploy,omitempty"`
	// BoundaryPanic: a plugin call the coordinator makes on a pool, timer
	// or scheduler thread (checkpoint store, barrier and notify RPCs,
	// status writes) panics instead of returning an error, as a Java
	// plugin throws an unchecked exception (cluster.FaultRates.BoundaryPanic).
	BoundaryPanic float64 `yaml:"boundary_panic,omitempty"`
	// StorageReadFailure: a read or listing of checkpoint storage fails
	// (Storage.Latest, Load, IDs; in file storage one read of core's
	// store: the listing, the newest file's read, or every file read).
	StorageReadFailure float64 `yaml:"storage_read_failure,omitempty"`
	// StorageDeleteFailure: a delete of checkpoint storage fails
	// (Storage.Delete, DeleteJob; in file storage one remove or directory
	// sync of core's delete).
	StorageDeleteFailure float64 `yaml:"storage_delete_failure,omitempty"`
	// StorageTorn (file storage): a committed checkpoint file loses its
	// tail (a short file; one damaged file per pipeline, as bit_rot).
	StorageTorn float64 `yaml:"storage_torn,omitempty"`
	// SavepointFailure: an operation of the savepoint store (Begin,
	// WritePipeline, Commit, List, Read, Delete, DeleteAll, Restore)
	// fails at one of its file-system steps or reads.
	SavepointFailure float64 `yaml:"savepoint_failure,omitempty"`
	// NotifyStartFailure: the start notice to a task (Transport.NotifyStart,
	// once every task of a pipeline reported READY_START) fails.
	NotifyStartFailure float64 `yaml:"notify_start_failure,omitempty"`
}

// Buggify switches core's rare paths (env.Site, FoundationDB's BUGGIFY) on
// in simulation: each seed switches each site on with probability SiteOn,
// and an on site fires at each call with its probability.
type Buggify struct {
	Enabled bool               `yaml:"enabled"`
	SiteOn  float64            `yaml:"site_on,omitempty"` // default 0.5
	Fire    float64            `yaml:"fire,omitempty"`    // default 0.1
	Sites   map[string]float64 `yaml:"sites,omitempty"`   // per-site firing probability; 0: off
}

// RunSpec is the simulated duration and budgets.
type RunSpec struct {
	Duration Duration `yaml:"duration"`
	Heal     Duration `yaml:"heal,omitempty"` // liveness phase after faults stop
	MaxSteps int64    `yaml:"max_steps,omitempty"`
	// MaxMemory is the memory one seed may use (validateMemory): unset,
	// the machine's.
	MaxMemory Size   `yaml:"max_memory,omitempty"`
	Strategy  string `yaml:"strategy,omitempty"` // random (default) | pct
	PCTDepth  int    `yaml:"pct_depth,omitempty"`
	// Cancel: the harness cancels jobs (coord.Manager.Cancel), as an
	// operator would.
	Cancel Cancel `yaml:"cancel,omitempty"`
	// CloseAtFiring: at the end of the run the harness closes the
	// scheduler at the virtual instant a lease task is next due (or a
	// timer lead before it), so that the close meets a firing in flight
	// (closeAtFiring).
	CloseAtFiring bool `yaml:"close_at_firing,omitempty"`
}

// Cancel is the harness's cancel of the last Jobs jobs at At (from the
// start; before the end of the heal phase).
type Cancel struct {
	Jobs int      `yaml:"jobs,omitempty"`
	At   Duration `yaml:"at,omitempty"`
	// DeleteSavepoints: once a job's cancel returned and its savepoint
	// requests were answered, the operator disposes of all its savepoints
	// at once (savepoint.Store.DeleteAll).
	DeleteSavepoints bool `yaml:"delete_savepoints,omitempty"`
	// AtFailure: each job's cancel waits, from At, for the instant a task
	// of the job next reports an injected error (faults.task_error; at
	// most 10 s), yields a random number of scheduling points there and
	// then cancels, so that the cancel meets a failure in flight (the
	// cancel-versus-failure race: probe fail-lost-the-future). The jobs
	// are canceled each on its own thread.
	AtFailure bool `yaml:"at_failure,omitempty"`
}

// Checks tunes the verdicts.
type Checks struct {
	// LivenessWithin is how long after heal every running pipeline must
	// complete a checkpoint (default: the heal phase).
	LivenessWithin Duration `yaml:"liveness_within,omitempty"`
	// MaxDelay fails a run whose scheduling delay (due to body start)
	// exceeds it (0: no bound).
	MaxDelay Duration `yaml:"max_delay,omitempty"`
}

// Error is a scenario error naming the file, line, column and field.
type Error struct {
	File      string
	Line, Col int
	Field     string
	Msg       string
}

func (e *Error) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d:%d", e.File, e.Line, e.Col)
	}
	if e.Field != "" {
		return fmt.Sprintf("%s: %s: %s", loc, e.Field, e.Msg)
	}
	return fmt.Sprintf("%s: %s", loc, e.Msg)
}

// ErrScenario marks every scenario error (errors.Is).
var ErrScenario = errors.New("scenario error")

func (e *Error) Is(target error) bool { return target == ErrScenario }

// LoadFile reads and validates a scenario file.
func LoadFile(path string) (*Scenario, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{File: path, Msg: err.Error()}
	}
	return Parse(path, b)
}

// Parse decodes a scenario strictly and validates it.
func Parse(file string, src []byte) (*Scenario, error) {
	var s Scenario
	if err := yaml.UnmarshalWithOptions(src, &s, yaml.Strict()); err != nil {
		return nil, decodeError(file, src, err)
	}
	s.file, s.src = file, src
	if err := s.validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

// decodeError turns go-yaml's "[line:col] message" into an Error.
func decodeError(file string, src []byte, err error) error {
	msg := err.Error()
	first, _, _ := strings.Cut(msg, "\n")
	e := &Error{File: file, Msg: first}
	var line, col int
	if n, _ := fmt.Sscanf(first, "[%d:%d]", &line, &col); n == 2 {
		e.Line, e.Col = line, col
		_, rest, _ := strings.Cut(first, "] ")
		e.Msg = rest
		e.Field = fieldAt(msg)
		if p := pathAt(src, line, col); p != "" {
			e.Field = p
		}
		if m := wrongType.FindStringSubmatch(e.Msg); m != nil {
			e.Msg = fmt.Sprintf("wrong type: got %s, want %s", m[1], m[2])
		}
	}
	return e
}

// pathAt returns the dotted path ("cluster.pipelines") of the mapping
// value or key at line:col, so that a wrong type names its field.
func pathAt(src []byte, line, col int) string {
	f, err := parser.ParseBytes(src, 0)
	if err != nil {
		return ""
	}
	var found string
	for _, doc := range f.Docs {
		walkPath(doc.Body, "", line, col, &found)
	}
	return found
}

func walkPath(n ast.Node, prefix string, line, col int, found *string) {
	switch m := n.(type) {
	case *ast.MappingNode:
		for _, v := range m.Values {
			walkPath(v, prefix, line, col, found)
		}
	case *ast.MappingValueNode:
		p := strings.TrimPrefix(prefix+"."+m.Key.String(), ".")
		for _, t := range []*token.Token{m.Key.GetToken(), m.Value.GetToken()} {
			if t != nil && t.Position.Line == line && t.Position.Column == col {
				*found = p
			}
		}
		walkPath(m.Value, p, line, col, found)
	case *ast.SequenceNode:
		for i, v := range m.Values {
			walkPath(v, fmt.Sprintf("%s[%d]", prefix, i), line, col, found)
		}
	}
}

// wrongType matches go-yaml's type mismatch message.
var wrongType = regexp.MustCompile(`cannot unmarshal (\S+) into Go (?:struct field \S+|value) of type (\S+)`)

// fieldAt extracts a quoted field name from a go-yaml message, if any.
func fieldAt(msg string) string {
	if i := strings.Index(msg, "unknown field \""); i >= 0 {
		rest := msg[i+len("unknown field \""):]
		if j := strings.IndexByte(rest, '"'); j >= 0 {
			return rest[:j]
		}
	}
	return ""
}

// position finds the line and column of a YAML path ("$.run.duration").
func (s *Scenario) position(path string) (int, int) { return positionIn(s.src, path) }

// positionIn finds the line and column of a YAML path in src (0, 0 when
// it is not there).
func positionIn(src []byte, path string) (int, int) {
	p, err := yaml.PathString(path)
	if err != nil {
		return 0, 0
	}
	f, err := parser.ParseBytes(src, 0)
	if err != nil {
		return 0, 0
	}
	n, err := p.FilterFile(f)
	if err != nil || n == nil {
		return 0, 0
	}
	pos := n.GetToken().Position
	return pos.Line, pos.Column
}

func (s *Scenario) errorf(path, format string, args ...any) error {
	line, col := s.position(path)
	return &Error{File: s.file, Line: line, Col: col, Field: strings.TrimPrefix(path, "$."), Msg: fmt.Sprintf(format, args...)}
}

// YAML returns the scenario as YAML text.
func (s *Scenario) YAML() []byte {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b, yaml.IndentSequence(true))
	_ = enc.Encode(s)
	return b.Bytes()
}

// File returns where the scenario came from.
func (s *Scenario) File() string { return s.file }
