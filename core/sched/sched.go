package sched

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ckptsim/ckptsim/core/env"
)

// Design names a scheduler design.
type Design string

// The designs.
const (
	PerPipeline    Design = "per-pipeline"
	Shared         Design = "shared"
	SharedInline   Design = "shared-inline"
	LeaderFollower Design = "leader-follower"
)

// Designs lists every design, default first.
var Designs = []Design{Shared, PerPipeline, SharedInline, LeaderFollower}

// ParseDesign validates a design name.
func ParseDesign(s string) (Design, error) {
	for _, d := range Designs {
		if string(d) == s {
			return d, nil
		}
	}
	names := make([]string, len(Designs))
	for i, d := range Designs {
		names[i] = string(d)
	}
	return "", fmt.Errorf("unknown scheduler design %q (want one of %s)", s, strings.Join(names, ", "))
}

// TaskFailure is what a dispatch thread does when a body fails.
type TaskFailure string

// The task-failure behaviours.
const (
	Recover    TaskFailure = "recover"     // the thread keeps serving (the final design)
	KillWorker TaskFailure = "kill-worker" // the failure is re-raised and kills the thread (PR-B, H3)
)

// TaskFailures lists every task-failure behaviour, default first.
var TaskFailures = []TaskFailure{Recover, KillWorker}

// CancelAllSet is what Lease.CancelAll does with the lease's task set once
// it has cancelled its snapshot (F026).
type CancelAllSet string

// The cancel-all behaviours.
const (
	// CancelAllKeeps leaves the set alone: each cancelled task leaves it as
	// it settles, and a task scheduled while CancelAll ran stays in it.
	CancelAllKeeps CancelAllSet = "keeps"
	// CancelAllClears empties the set after the snapshot's cancels, as
	// PipelineCheckpointScheduler.cancelAll does (L92 copy, L93 cancel, L95
	// clear()): a task scheduled between the copy and the clear is dropped
	// uncancelled, runs, and no later CancelAll reaches it.
	CancelAllClears CancelAllSet = "clears"
)

// CancelAllSets lists every cancel-all behaviour, default first.
var CancelAllSets = []CancelAllSet{CancelAllKeeps, CancelAllClears}

// CloseTasks is what Close does with the tasks its shut-down timer and
// dispatch pool drop (F010).
type CloseTasks string

// The close-tasks behaviours.
const (
	// CloseSettles cancels them and every lease's outstanding task.
	CloseSettles CloseTasks = "settles"
	// CloseDrops discards them, as SharedCheckpointScheduler.close does
	// (L199-200 ignore what timer.shutdownNow() and
	// dispatcher.shutdownNow() return): such a task never settles, its
	// Await waits its whole bound and it stays in its lease's Outstanding.
	CloseDrops CloseTasks = "drops"
)

// CloseTasksValues lists every close-tasks behaviour, default first.
var CloseTasksValues = []CloseTasks{CloseSettles, CloseDrops}

// Config configures a Scheduler.
type Config struct {
	Design Design // default Shared
	// Cores sizes the dispatch pool: max(8, 2 x Cores). Core never asks
	// the machine: wall callers pass runtime.NumCPU(), simulations their
	// simulated core count. New refuses a config with neither Cores nor
	// DispatchThreads.
	Cores int
	// DispatchThreads overrides the dispatch bound when > 0.
	DispatchThreads int
	TimerThreads    int // default 2 (unused by leader-follower)
	// TimerLead is how long before a deadline the design's timers take an
	// entry and promote a follower (exec.TimerConfig.Lead): 0 takes the
	// env's (env.TimerLeader: PreciseWall's adaptive one, from 100 µs; none in simulation),
	// negative none. Simulations set it to run the lead's path.
	TimerLead   time.Duration
	KeepAlive   time.Duration // dispatch idle reaping, default 60 s
	TaskFailure TaskFailure   // default Recover
	CancelAll   CancelAllSet  // default CancelAllKeeps
	CloseTasks  CloseTasks    // default CloseSettles
	Logger      *slog.Logger
	// Observe, when set, receives every firing's stage timestamps after
	// the body ends or is skipped. It runs on the thread that ran the body.
	Observe func(Firing)
}

// ErrNoCores is New's error for a config that sets neither Cores nor
// DispatchThreads.
var ErrNoCores = errors.New("sched: Config.Cores is required (runtime.NumCPU() in wall mode, the simulated core count in simulation)")

// Bound returns the dispatch pool size for c: DispatchThreads when set,
// else max(8, 2 x Cores). It is 8 for a config with neither, which New
// refuses.
func (c Config) Bound() int {
	if c.DispatchThreads > 0 {
		return c.DispatchThreads
	}
	return max(8, 2*c.Cores)
}

// Scheduler is the interface the coordinators, the simulator and the
// benchmarks use, whatever the design.
type Scheduler interface {
	// Lease returns a new lease for one pipeline of one job.
	Lease(job int64, pipeline int) *Lease
	// Close stops every timer and dispatch thread; later schedules return
	// cancelled tasks.
	Close()
	Closed() bool
	Design() Design
	Stats() Stats
}

// Stats are a scheduler's counters.
type Stats struct {
	TimerThreads, DispatchThreads int // live now
	PeakDispatchThreads           int
	Queued                        int // tasks waiting for a dispatch thread
	WorkerDeaths                  int64
	Scheduled                     int64
	Fired                         int64 // timer fired
	Dispatched                    int64 // handed to the dispatch pool
	CanceledBeforeFire            int64
	SkippedAfterHandoff           int64 // cancel observed by the dispatch thread
	RanAfterCancel                int64 // body ran although cancelled (best effort lost)
	Completed, Failed             int64
}

// Firing is one task's stage timestamps.
type Firing struct {
	Job      int64
	Pipeline int
	Due      time.Time // when the task was due (ScheduleAt's due, even if past)
	Armed    time.Time // when it was scheduled
	// Fired is when the timer fired. In the shared design with a timer
	// lead it is when the dispatcher handed the claim released it: at the
	// deadline, or, when every dispatcher was busy, once one took it (the
	// queue's wait then counts before Fired, not after it).
	Fired   time.Time
	Started time.Time // body started (zero if skipped)
	Ended   time.Time
	Thread  string // thread that ran (or skipped) the body
	Skipped bool
	Err     error
}

// Delay is due to body start; TimerLate due to fired; Hop fired to start.
// RearmDelay is body start from the later of due and armed: the figure
// that hides a late re-arm (coordinated omission), kept for comparison.
func (f Firing) Delay() time.Duration      { return f.Started.Sub(f.Due) }
func (f Firing) RearmDelay() time.Duration { return f.Started.Sub(later(f.Due, f.Armed)) }
func (f Firing) TimerLate() time.Duration  { return f.Fired.Sub(f.Due) }
func (f Firing) Hop() time.Duration        { return f.Started.Sub(f.Fired) }

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// ErrCanceled is the failure of a cancelled task.
var ErrCanceled = errors.New("sched: task cancelled")

// counters are updated with atomics so that no lock is needed on the
// firing path.
type counters struct {
	scheduled, fired, dispatched, canceledBeforeFire atomic.Int64
	skipped, ranAfterCancel, completed, failed       atomic.Int64
}

func (c *counters) into(s *Stats) {
	s.Scheduled = c.scheduled.Load()
	s.Fired = c.fired.Load()
	s.Dispatched = c.dispatched.Load()
	s.CanceledBeforeFire = c.canceledBeforeFire.Load()
	s.SkippedAfterHandoff = c.skipped.Load()
	s.RanAfterCancel = c.ranAfterCancel.Load()
	s.Completed = c.completed.Load()
	s.Failed = c.failed.Load()
}

// New returns a scheduler of cfg.Design.
func New(e env.Env, cfg Config) (Scheduler, error) {
	if cfg.Design == "" {
		cfg.Design = Shared
	}
	if cfg.Cores <= 0 && cfg.DispatchThreads <= 0 {
		return nil, ErrNoCores
	}
	if cfg.TimerThreads <= 0 {
		cfg.TimerThreads = 2
	}
	if cfg.KeepAlive <= 0 {
		cfg.KeepAlive = 60 * time.Second
	}
	switch cfg.TaskFailure {
	case "":
		cfg.TaskFailure = Recover
	case Recover, KillWorker:
	default:
		return nil, fmt.Errorf("unknown task-failure %q (want recover or kill-worker)", cfg.TaskFailure)
	}
	switch cfg.CancelAll {
	case "":
		cfg.CancelAll = CancelAllKeeps
	case CancelAllKeeps, CancelAllClears:
	default:
		return nil, fmt.Errorf("unknown cancel-all %q (want keeps or clears)", cfg.CancelAll)
	}
	switch cfg.CloseTasks {
	case "":
		cfg.CloseTasks = CloseSettles
	case CloseSettles, CloseDrops:
	default:
		return nil, fmt.Errorf("unknown close-tasks %q (want settles or drops)", cfg.CloseTasks)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	switch cfg.Design {
	case Shared, SharedInline:
		return newShared(e, cfg), nil
	case PerPipeline:
		return newPerPipeline(e, cfg), nil
	case LeaderFollower:
		return newLeaderFollower(e, cfg), nil
	}
	_, err := ParseDesign(string(cfg.Design))
	return nil, err
}

// base is what every design shares.
type base struct {
	e      env.Env
	cfg    Config
	c      counters
	closed atomic.Bool

	leasesMu env.Mutex // "sched.leases": leases; a leaf lock
	leases   []*Lease
}

func newBase(e env.Env, cfg Config) base {
	return base{e: e, cfg: cfg, leasesMu: e.NewMutex("sched.leases")}
}

func (b *base) register(l *Lease) {
	b.leasesMu.Lock()
	b.leases = append(b.leases, l)
	b.leasesMu.Unlock()
}

// settleAll cancels every lease's outstanding tasks once the scheduler is
// closed: a task whose timer entry the close dropped would otherwise never
// settle, and an Await on it would wait forever (found by the lease
// checks' quiesce: every task settles, ran, cancelled or rejected after
// close). With CloseDrops it does nothing, as upstream's close (F010).
func (b *base) settleAll() {
	if b.cfg.CloseTasks == CloseDrops {
		return
	}
	b.leasesMu.Lock()
	leases := slices.Clone(b.leases)
	b.leasesMu.Unlock()
	for _, l := range leases {
		l.cancelOutstanding()
	}
}

func (b *base) Closed() bool   { return b.closed.Load() }
func (b *base) Design() Design { return b.cfg.Design }

func (b *base) onPanic(thread string, v any) {
	b.cfg.Logger.Error("checkpoint scheduler thread died", "thread", thread, "panic", fmt.Sprint(v))
}

// sorted returns a lease's tasks in scheduling order (never map order).
func sorted(m map[uint64]*Task) []*Task {
	out := make([]*Task, 0, len(m))
	for _, t := range m {
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b *Task) int { return int(a.id - b.id) })
	return out
}
