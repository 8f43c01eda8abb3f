//go:build linux

package bench

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/core/coord"
	"github.com/ckptsim/ckptsim/core/env"
	"github.com/ckptsim/ckptsim/core/exec"
	"github.com/ckptsim/ckptsim/core/sched"
)

// BenchmarkTriggerCoord is the real coordinator trigger path in wall mode
// (upstream BENCH-2, periodicTriggerDelay): P coordinators with trivial
// in-memory boundaries, started staggered over one interval; a sample is
// from the due time of an armed periodic trigger (EvTriggerArmed: now +
// delay, a few hundred ns early, as upstream's estimate) to the pending
// counter going 0 -> 1 (EvPendingCount). Only timer-late is not split
// out: p50/p99/p999 are the whole path. One op is one observed trigger.
// Warm-up: triggers due in the first two intervals (the staggered starts,
// then every coordinator's first trigger) are discarded.
func BenchmarkTriggerCoord(b *testing.B) { benchTriggerCoord(b, "wall", env.Wall{}) }

// BenchmarkTriggerCoordPrecise is BenchmarkTriggerCoord on env.PreciseWall,
// Poll as -precise.poll (default on, as env.Default).
func BenchmarkTriggerCoordPrecise(b *testing.B) {
	benchTriggerCoord(b, "precise", env.PreciseWall{Poll: *precisePoll, SpinBudget: *preciseBudget})
}

func benchTriggerCoord(b *testing.B, envName string, e env.Env) {
	for _, d := range designs {
		for _, p := range pipelines {
			b.Run(fmt.Sprintf("design=%s/pipelines=%d", d, p), func(b *testing.B) {
				key := fmt.Sprintf("coord/%s/%s/%d/%v", envName, d, p, *spacing)
				f := fixtureFor(key, func() *coordFixture { return newCoordFixture(b, e, d, p) })
				cpu := startCPU()
				xs := f.col.collect(b, b.N, collectTimeout(b.N, p)+interval(p))
				cpu.report(b, b.N)
				cpu.reportSwitches(b, b.N)
				delay, _, _ := split(xs)
				reportLatency(b, "", delay)
				b.ReportMetric(0, "ns/op")
				st := f.s.Stats()
				b.ReportMetric(float64(st.TimerThreads+st.DispatchThreads), "goroutines")
				if n := f.failures.Load(); n > 0 {
					b.Errorf("%d coordinator failures", n)
				}
			})
		}
	}
}

type coordFixture struct {
	s        sched.Scheduler
	pool     *exec.Pool
	m        *coord.Manager
	mu       sync.Mutex
	due      []time.Time // armed periodic trigger per pipeline
	warm     time.Time   // triggers due at or before this are warm-up
	col      collector
	failures atomic.Int64
	stop     chan struct{}
}

func newCoordFixture(b *testing.B, e env.Env, d sched.Design, p int) *coordFixture {
	f := &coordFixture{due: make([]time.Time, p), stop: make(chan struct{}), warm: time.Now().Add(2 * interval(p))}
	s, err := sched.New(e, sched.Config{Design: d, Cores: runtime.NumCPU()})
	if err != nil {
		b.Fatal(err)
	}
	f.s = s
	f.pool = exec.NewPool(e, exec.PoolConfig{Name: "coordinator-executor", Core: 10, Max: 1 << 30,
		KeepAlive: 60 * time.Second, Queue: exec.Direct})
	tr := &memTransport{}
	st := &memStorage{latest: map[int]*coord.Completed{}}
	f.m = coord.NewManager(coord.ManagerDeps{Scheduler: s, Deps: coord.Deps{
		Env: e, Executor: func() coord.Executor { return f.pool }, Transport: tr, Storage: st,
		Status: &memStatus{m: map[string]string{}}, IDs: &memIDs{next: map[int]int64{}}, Master: f,
	}}, 1, p, coord.Config{Interval: interval(p), Observer: f.observe})
	tr.m = f.m
	iv := interval(p)
	go func() { // staggered starts; the first trigger of each comes one interval later
		start := time.Now()
		for i, c := range f.m.Coordinators() {
			select {
			case <-f.stop:
				return
			case <-time.After(time.Until(start.Add(time.Duration(i) * iv / time.Duration(p)))):
			}
			c.Start()
		}
	}()
	return f
}

func (f *coordFixture) observe(ev coord.Event) {
	switch {
	case ev.Kind == coord.EvTriggerArmed && ev.Type == coord.Checkpoint:
		now := time.Now()
		f.mu.Lock()
		f.due[ev.Pipeline] = now.Add(ev.Delay)
		f.mu.Unlock()
	case ev.Kind == coord.EvPendingCount && ev.Count == 1:
		now := time.Now()
		f.mu.Lock()
		due := f.due[ev.Pipeline]
		f.due[ev.Pipeline] = time.Time{}
		f.mu.Unlock()
		if due.After(f.warm) {
			f.col.add(sample{delay: now.Sub(due)})
		}
	}
}

// HandleCheckpointError makes the fixture its own job master: a failure
// is counted and fails the benchmark.
func (f *coordFixture) HandleCheckpointError(job int64, pipeline int, gen uint64, r coord.Reason) {
	f.failures.Add(1)
}

func (f *coordFixture) close() {
	close(f.stop)
	f.m.Cancel()
	f.s.Close()
	f.pool.ShutdownNow()
}

// memTransport acknowledges every barrier at once, on the dispatching
// thread.
type memTransport struct{ m *coord.Manager }

func (t *memTransport) TriggerBarrier(job int64, pipeline int, task coord.TaskID, b coord.Barrier) error {
	t.m.Acknowledge(pipeline, task, b.ID, nil)
	return nil
}
func (t *memTransport) NotifyComplete(int64, int, coord.TaskID, *coord.Completed) error { return nil }
func (t *memTransport) NotifyStart(int64, int, coord.TaskID) error                      { return nil }
func (t *memTransport) RestoreState(int64, int, coord.TaskID, *coord.Completed) error   { return nil }

// memStorage keeps the latest checkpoint per pipeline.
type memStorage struct {
	mu     sync.Mutex
	latest map[int]*coord.Completed
}

func (s *memStorage) Store(c *coord.Completed) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.latest[c.Pipeline] = c
	return nil
}
func (s *memStorage) Delete(int64, int, []int64) error { return nil }
func (s *memStorage) Latest(_ int64, p int) (*coord.Completed, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.latest[p], nil
}
func (s *memStorage) IDs(int64, int) ([]int64, error)                  { return nil, nil }
func (s *memStorage) Load(int64, int, int64) (*coord.Completed, error) { return nil, nil }

type memStatus struct {
	mu sync.Mutex
	m  map[string]string
}

func (s *memStatus) Get(k string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[k], nil
}
func (s *memStatus) Set(k, v string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[k] = v
	return nil
}
func (s *memStatus) Delete(k string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, k)
	return nil
}

type memIDs struct {
	mu   sync.Mutex
	next map[int]int64
}

func (c *memIDs) Next(_ int64, p int) (int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.next[p]++
	return c.next[p], nil
}
func (c *memIDs) Set(_ int64, p int, n int64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.next[p] = n - 1
	return nil
}
