package coord

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/core/env"
	"github.com/ckptsim/ckptsim/core/exec"
	"github.com/ckptsim/ckptsim/core/sched"
	"github.com/ckptsim/ckptsim/sim"
)

// rig is one coordinator with in-memory boundaries, for controlled tests.
type rig struct {
	t        testing.TB
	e        env.Env
	c        *Coordinator
	s        sched.Scheduler
	pool     *exec.Pool
	gate     *gatedExec
	mu       env.Mutex
	events   []Event
	stored   []int64
	ackDelay time.Duration
	withhold bool // tasks never acknowledge
	dispatch time.Duration
	storeLat time.Duration
	getLat   time.Duration // each status-store read takes this long
	// getFails makes that many status reads of keys with getFailsKey in
	// them fail as retryable first.
	getFails    int
	getFailsKey string
	restores    int
	failures    []Reason
	onFailure   func() // called from HandleCheckpointError, on the handler's thread
	ids         int64
	status      map[string]string
	// statusLat, when set, is each status write's latency by value.
	statusLat map[string]time.Duration
	// setFails makes that many status writes to keys with setFailsKey in
	// them fail as retryable (and not land) first.
	setFails    int
	setFailsKey string
	barriers    []sentBarrier // every barrier dispatched
	// keep (set before Start) makes storage keep whole checkpoints (Latest
	// and Load return them, IDs lists them) and the transport record every
	// checkpoint it notifies.
	keep     bool
	kept     map[int64]*Completed
	notified []*Completed
	// panics names boundary calls ("Storage.Store") whose next call
	// panics instead of returning (each once).
	panics map[string]bool
}

// panicOnce panics if call is armed in r.panics, disarming it.
func (r *rig) panicOnce(call string) {
	r.mu.Lock()
	armed := r.panics[call]
	delete(r.panics, call)
	r.mu.Unlock()
	if armed {
		panic("planted panic in " + call)
	}
}

// sentBarrier is one barrier the rig's transport dispatched, at virtual time at.
type sentBarrier struct {
	task TaskID
	b    Barrier
	at   time.Time
}

// gatedExec runs each function on its own thread, or holds them while
// closed (a blocked coordinator executor).
type gatedExec struct {
	e      env.Env
	mu     env.Mutex
	closed bool
	held   []func()
	inner  Executor
}

func (g *gatedExec) Execute(fn func()) error {
	g.mu.Lock()
	if g.closed {
		g.held = append(g.held, fn)
		g.mu.Unlock()
		return nil
	}
	inner := g.inner
	g.mu.Unlock()
	return inner.Execute(fn)
}

// replace installs a new inner executor (a master's reactivation after a
// step-down shut the old one down).
func (g *gatedExec) replace(inner Executor) { g.mu.Lock(); g.inner = inner; g.mu.Unlock() }

func (g *gatedExec) block() { g.mu.Lock(); g.closed = true; g.mu.Unlock() }

func (g *gatedExec) release() {
	g.mu.Lock()
	held := g.held
	g.held, g.closed = nil, false
	g.mu.Unlock()
	for _, fn := range held {
		g.inner.Execute(fn)
	}
}

func newRig(t testing.TB, e env.Env, cfg Config) *rig {
	r := &rig{t: t, e: e, mu: e.NewMutex("test.rig"), ackDelay: 100 * time.Millisecond, status: map[string]string{}}
	s, err := sched.New(e, sched.Config{Cores: 2})
	if err != nil {
		t.Fatal(err)
	}
	r.s = s
	r.pool = exec.NewPool(e, exec.PoolConfig{Name: "coordinator-executor", Core: 4, Max: 1 << 20, KeepAlive: time.Minute, Queue: exec.Direct})
	r.gate = &gatedExec{e: e, mu: e.NewMutex("test.gate"), inner: r.pool}
	cfg.Observer = r.observe
	if cfg.Interval == 0 {
		cfg.Interval = 10 * time.Second
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 5 * time.Second
	}
	if cfg.Tasks == 0 {
		cfg.Tasks = 2
	}
	cfg.StatusBackoff = 10 * time.Millisecond
	r.c = New(Deps{Env: e, Lease: SchedLease(s.Lease(1, 0)), Executor: func() Executor { return r.gate },
		Transport: (*rigTransport)(r), Storage: (*rigStorage)(r), Status: (*rigStatus)(r), IDs: (*rigIDs)(r),
		Master: (*rigMaster)(r)}, 1, 0, cfg, nil)
	return r
}

func (r *rig) observe(ev Event) {
	r.mu.Lock()
	r.events = append(r.events, ev)
	r.mu.Unlock()
}

// count returns how many events of kind k matched f.
func (r *rig) count(k EventKind, f func(Event) bool) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, ev := range r.events {
		if ev.Kind == k && (f == nil || f(ev)) {
			n++
		}
	}
	return n
}

func (r *rig) completed() int { return r.count(EvCompleted, nil) }

// waitFor sleeps in steps until cond holds or d passes.
func (r *rig) waitFor(d time.Duration, cond func() bool) bool {
	for end := r.e.Now().Add(d); r.e.Now().Before(end); r.e.Sleep(10 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

func (r *rig) close() {
	r.s.Close()
	r.pool.ShutdownNow()
}

type rigTransport rig

func (t *rigTransport) TriggerBarrier(job int64, pipeline int, task TaskID, b Barrier) error {
	r := (*rig)(t)
	r.mu.Lock()
	r.barriers = append(r.barriers, sentBarrier{task: task, b: b, at: r.e.Now()})
	r.mu.Unlock()
	r.panicOnce("Transport.TriggerBarrier")
	if r.dispatch > 0 {
		r.e.Sleep(r.dispatch)
	}
	if r.withhold {
		return nil
	}
	r.e.Go(fmt.Sprintf("task-%d", task), func() {
		r.e.Sleep(r.ackDelay)
		r.c.Acknowledge(task, b.ID, []byte("s"))
	})
	return nil
}
func (t *rigTransport) NotifyComplete(_ int64, _ int, _ TaskID, c *Completed) error {
	r := (*rig)(t)
	r.panicOnce("Transport.NotifyComplete")
	if r.keep {
		r.mu.Lock()
		r.notified = append(r.notified, c)
		r.mu.Unlock()
	}
	return nil
}
func (t *rigTransport) NotifyStart(int64, int, TaskID) error              { return nil }
func (t *rigTransport) RestoreState(int64, int, TaskID, *Completed) error { return nil }

type rigStorage rig

func (s *rigStorage) Store(c *Completed) error {
	r := (*rig)(s)
	if r.storeLat > 0 {
		r.e.Sleep(r.storeLat)
	}
	r.panicOnce("Storage.Store")
	r.mu.Lock()
	r.stored = append(r.stored, c.ID)
	if r.keep {
		if r.kept == nil {
			r.kept = map[int64]*Completed{}
		}
		r.kept[c.ID] = c
	}
	r.mu.Unlock()
	return nil
}
func (s *rigStorage) Delete(int64, int, []int64) error { return nil }
func (s *rigStorage) Latest(int64, int) (*Completed, error) {
	r := (*rig)(s)
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.stored) == 0 {
		return nil, nil
	}
	if r.keep {
		return r.kept[r.stored[len(r.stored)-1]], nil
	}
	return &Completed{Job: 1, ID: r.stored[len(r.stored)-1], Type: Checkpoint}, nil
}
func (s *rigStorage) IDs(int64, int) ([]int64, error) {
	r := (*rig)(s)
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.keep {
		return nil, nil
	}
	return slices.Clone(r.stored), nil
}
func (s *rigStorage) Load(_ int64, _ int, id int64) (*Completed, error) {
	r := (*rig)(s)
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.kept[id], nil
}

type rigStatus rig

func (s *rigStatus) Get(k string) (string, error) {
	if s.getLat > 0 {
		s.e.Sleep(s.getLat)
	}
	if s.getFails > 0 && strings.Contains(k, s.getFailsKey) {
		s.getFails--
		return "", fmt.Errorf("%w: rig", ErrRetryable)
	}
	return s.status[k], nil
}
func (s *rigStatus) Set(k, v string) error {
	(*rig)(s).panicOnce("StatusStore.Set")
	(*rig)(s).panicOnce("StatusStore.Set " + v) // a write of that value only
	if d := s.statusLat[v]; d > 0 {
		s.e.Sleep(d)
	}
	if s.setFails > 0 && strings.Contains(k, s.setFailsKey) {
		s.setFails--
		return fmt.Errorf("%w: rig", ErrRetryable)
	}
	s.status[k] = v
	return nil
}
func (s *rigStatus) Delete(k string) error { delete(s.status, k); return nil }

type rigIDs rig

func (i *rigIDs) Next(int64, int) (int64, error) { i.ids++; return i.ids, nil }
func (i *rigIDs) Set(_ int64, _ int, n int64) error {
	i.ids = n - 1
	return nil
}

type rigMaster rig

func (m *rigMaster) HandleCheckpointError(_ int64, _ int, _ uint64, reason Reason) {
	m.failures = append(m.failures, reason)
	if m.onFailure != nil {
		m.onFailure()
	}
}

// inSim runs p over seeds in the simulator, failing with the seed.
func inSim(t *testing.T, seeds int, p func(t testing.TB, e env.Env)) {
	t.Helper()
	if testing.Short() {
		seeds = max(seeds/10, 1)
	}
	for seed := range uint64(seeds) {
		cfg := sim.Config{Seed: seed, MaxTime: 24 * time.Hour, LockOrder: true}
		if seed%2 == 1 {
			cfg.Strategy = sim.StrategyPCT
		}
		w := sim.New(cfg)
		res := w.Run(func() { p(t, w) })
		if res.Outcome != sim.OutcomeDone {
			t.Fatalf("seed %d: %v: %s", seed, res.Outcome, res.Reason)
		}
		if cyc := w.Harness().LockGraph().Cycles(); len(cyc) > 0 {
			t.Fatalf("seed %d: %v", seed, cyc)
		}
		if t.Failed() {
			t.Fatalf("seed %d failed", seed)
		}
	}
}

var errPlanted = errors.New("planted exception in the trigger path")
