package exec_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/core/env"
	"github.com/ckptsim/ckptsim/core/exec"
	"github.com/ckptsim/ckptsim/sim"
)

// program is a test body that runs in any env.
type program func(t *testing.T, e env.Env)

// inSim runs p in a simulated world for each seed.
func inSim(t *testing.T, seeds int, p program) {
	t.Helper()
	for seed := range uint64(seeds) {
		w := sim.New(sim.Config{Seed: seed, MaxSteps: 2_000_000})
		r := w.Run(func() { p(t, w) })
		if r.Outcome != sim.OutcomeDone {
			t.Fatalf("seed %d: %v: %s", seed, r.Outcome, r.Reason)
		}
		if t.Failed() {
			t.Fatalf("seed %d failed", seed)
		}
	}
}

// inWall runs p once on real goroutines and time.
func inWall(t *testing.T, p program) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); p(t, env.Wall{}) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("wall program did not finish in 20s")
	}
}

func both(t *testing.T, seeds int, p program) {
	t.Run("sim", func(t *testing.T) { inSim(t, seeds, p) })
	t.Run("wall", func(t *testing.T) { inWall(t, p) })
}

// latch blocks tasks until opened, and counts arrivals.
type latch struct {
	mu      env.Mutex
	cv      env.Cond
	open    bool
	arrived int
}

func newLatch(e env.Env) *latch {
	l := &latch{mu: e.NewMutex("test.latch")}
	l.cv = e.NewCond(l.mu)
	return l
}

func (l *latch) wait() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.arrived++
	l.cv.Broadcast()
	for !l.open {
		l.cv.Wait()
	}
}

func (l *latch) release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.open = true
	l.cv.Broadcast()
}

// awaitArrivals waits until n tasks are blocked in the latch.
func (l *latch) awaitArrivals(n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.arrived < n {
		l.cv.Wait()
	}
}

// counter counts finished tasks and lets a waiter wait for n.
type counter struct {
	mu env.Mutex
	cv env.Cond
	n  int
}

func newCounter(e env.Env) *counter {
	c := &counter{mu: e.NewMutex("test.counter")}
	c.cv = e.NewCond(c.mu)
	return c
}

func (c *counter) add() { c.mu.Lock(); c.n++; c.cv.Broadcast(); c.mu.Unlock() }

func (c *counter) await(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.n < n {
		c.cv.Wait()
	}
}

func TestPoolNeverExceedsMax(t *testing.T) {
	seeds := 10000
	if testing.Short() {
		seeds = 500
	}
	both(t, seeds, func(t *testing.T, e env.Env) {
		p := exec.NewPool(e, exec.PoolConfig{Name: "w", Core: 1, Max: 3, KeepAlive: time.Millisecond, Queue: exec.Bounded, QueueCap: 2})
		ran := newCounter(e)
		submitted, rejected := 0, 0
		done := newCounter(e)
		for s := range 3 {
			e.Go("submitter", func() {
				for i := range 4 {
					err := p.Execute(func() { e.Sleep(time.Duration(i+s) * time.Microsecond); ran.add() })
					ran.mu.Lock()
					submitted++
					if err != nil {
						rejected++
						if !errors.Is(err, exec.ErrSaturated) {
							t.Errorf("unexpected error %v", err)
						}
					}
					ran.mu.Unlock()
				}
				done.add()
			})
		}
		done.await(3)
		ran.mu.Lock()
		want := submitted - rejected
		ran.mu.Unlock()
		ran.await(want)
		p.Shutdown()
		p.AwaitTermination(time.Minute)
		st := p.Stats()
		if st.Peak > 3 || st.Threads > 3 {
			t.Errorf("peak threads %d, threads %d, max 3", st.Peak, st.Threads)
		}
		if int(st.Rejected) != rejected || int(st.Completed) != want {
			t.Errorf("stats %+v; ran %d rejected %d", st, want, rejected)
		}
	})
}

func TestIdleThreadsReapedAfterKeepAlive(t *testing.T) {
	inSim(t, 200, func(t *testing.T, e env.Env) {
		p := exec.NewPool(e, exec.PoolConfig{Name: "w", Core: 1, Max: 4, KeepAlive: time.Second, Queue: exec.Direct})
		l := newLatch(e)
		for range 4 {
			if err := p.Execute(l.wait); err != nil {
				t.Fatal(err)
			}
		}
		l.awaitArrivals(4)
		l.release()
		start := e.Now()
		for p.Stats().Threads > 1 {
			e.Sleep(10 * time.Millisecond)
		}
		if waited := e.Now().Sub(start); waited < time.Second || waited > 1100*time.Millisecond {
			t.Errorf("threads reaped after %v, keep-alive 1s", waited)
		}
		e.Sleep(5 * time.Second)
		if st := p.Stats(); st.Threads != 1 || st.Reaped != 3 {
			t.Errorf("core thread reaped: %+v", st)
		}
	})
	inSim(t, 50, func(t *testing.T, e env.Env) {
		p := exec.NewPool(e, exec.PoolConfig{Name: "w", Core: 2, Max: 2, KeepAlive: time.Second, ReapCore: true})
		c := newCounter(e)
		p.Execute(c.add)
		p.Execute(c.add)
		c.await(2)
		e.Sleep(2 * time.Second)
		if st := p.Stats(); st.Threads != 0 {
			t.Errorf("ReapCore left %d threads", st.Threads)
		}
		p.Execute(c.add) // a reaped pool starts threads again
		c.await(3)
	})
}

func TestShutdownNowReturnsDroppedWork(t *testing.T) {
	both(t, 300, func(t *testing.T, e env.Env) {
		p := exec.NewPool(e, exec.PoolConfig{Name: "w", Core: 2, Max: 2})
		l := newLatch(e)
		p.Execute(l.wait)
		p.Execute(l.wait)
		l.awaitArrivals(2)
		ran := newCounter(e)
		for range 5 {
			if err := p.Execute(ran.add); err != nil {
				t.Fatal(err)
			}
		}
		dropped := p.ShutdownNow()
		if len(dropped) != 5 {
			t.Fatalf("dropped %d, want 5", len(dropped))
		}
		if err := p.Execute(ran.add); !errors.Is(err, exec.ErrClosed) {
			t.Fatalf("after ShutdownNow: %v", err)
		}
		l.release()
		if !p.AwaitTermination(time.Minute) {
			t.Fatal("threads did not exit")
		}
		if ran.n != 0 {
			t.Fatalf("%d dropped tasks ran", ran.n)
		}
	})
}

func TestShutdownFinishesQueuedWork(t *testing.T) {
	both(t, 300, func(t *testing.T, e env.Env) {
		p := exec.NewPool(e, exec.PoolConfig{Name: "w", Core: 1, Max: 1})
		ran := newCounter(e)
		for range 6 {
			p.Execute(ran.add)
		}
		p.Shutdown()
		if !p.AwaitTermination(time.Minute) {
			t.Fatal("threads did not exit")
		}
		if ran.n != 6 {
			t.Fatalf("ran %d of 6 queued tasks", ran.n)
		}
	})
}

func TestDirectHandOffRejectsWhenSaturated(t *testing.T) {
	both(t, 300, func(t *testing.T, e env.Env) {
		p := exec.NewPool(e, exec.PoolConfig{Name: "w", Core: 0, Max: 2, KeepAlive: time.Minute, Queue: exec.Direct})
		l := newLatch(e)
		for range 2 {
			if err := p.Execute(l.wait); err != nil {
				t.Fatal(err)
			}
		}
		if err := p.Execute(l.wait); !errors.Is(err, exec.ErrSaturated) {
			t.Fatalf("third blocking task: %v, want ErrSaturated", err)
		}
		l.release()
		p.Shutdown()
		p.AwaitTermination(time.Minute)
		if st := p.Stats(); st.Completed != 2 || st.Rejected != 1 {
			t.Fatalf("%+v", st)
		}
	})
}

func TestPanicIsReportedAndThreadReplaced(t *testing.T) {
	both(t, 300, func(t *testing.T, e env.Env) {
		var got []string
		mu := e.NewMutex("test.panics")
		p := exec.NewPool(e, exec.PoolConfig{Name: "w", Core: 2, Max: 2, OnPanic: func(th string, v any) {
			mu.Lock()
			got = append(got, v.(string))
			mu.Unlock()
		}})
		ran := newCounter(e)
		p.Execute(func() { panic("boom") })
		for range 4 {
			p.Execute(ran.add)
		}
		ran.await(4)
		p.Shutdown()
		p.AwaitTermination(time.Minute)
		st := p.Stats()
		mu.Lock()
		defer mu.Unlock()
		if !slices.Equal(got, []string{"boom"}) || st.Died != 1 || st.Panicked != 1 || st.Threads != 0 {
			t.Fatalf("panics %v stats %+v", got, st)
		}
	})
}

func TestTimerFiresInDeadlineOrder(t *testing.T) {
	both(t, 300, func(t *testing.T, e env.Env) {
		tm := exec.NewTimer(e, exec.TimerConfig{Name: "timer", Threads: 1})
		mu := e.NewMutex("test.order")
		var order []int
		c := newCounter(e)
		delays := []time.Duration{30, 10, 20, 10, 0}
		for i, d := range delays {
			tm.Schedule(d*time.Millisecond, func() {
				mu.Lock()
				order = append(order, i)
				mu.Unlock()
				c.add()
			})
		}
		c.await(len(delays))
		if want := []int{4, 1, 3, 2, 0}; !slices.Equal(order, want) {
			t.Fatalf("order %v, want %v", order, want)
		}
		tm.ShutdownNow()
	})
}

func TestTimerCancel(t *testing.T) {
	both(t, 300, func(t *testing.T, e env.Env) {
		tm := exec.NewTimer(e, exec.TimerConfig{Name: "timer", Threads: 2})
		ran := newCounter(e)
		h, _ := tm.Schedule(50*time.Millisecond, func() { t.Error("cancelled entry ran") })
		tm.Schedule(100*time.Millisecond, ran.add)
		if !h.Cancel() || h.Cancel() {
			t.Fatal("Cancel must return true then false")
		}
		ran.await(1)
		st := tm.Stats()
		if st.Canceled != 1 || st.Fired != 1 || st.Threads > 2 {
			t.Fatalf("%+v", st)
		}
		if n := tm.ShutdownNow(); n != 0 {
			t.Fatalf("dropped %d", n)
		}
		if _, err := tm.Schedule(0, ran.add); !errors.Is(err, exec.ErrClosed) {
			t.Fatalf("schedule after shutdown: %v", err)
		}
	})
}
