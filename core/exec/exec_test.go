package exec_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/core/env"
	"github.com/ckptsim/ckptsim/core/exec"
	"github.com/ckptsim/ckptsim/sim/simtest"
)

func TestPoolNeverExceedsMax(t *testing.T) {
	seeds := 10000
	if testing.Short() {
		seeds = 500
	}
	simtest.Both(t, seeds, func(t testing.TB, e env.Env) {
		p := exec.NewPool(e, exec.PoolConfig{Name: "w", Core: 1, Max: 3, KeepAlive: time.Millisecond, Queue: exec.Bounded, QueueCap: 2})
		ran := simtest.NewCounter(e)
		mu := e.NewMutex("test.submitted")
		submitted, rejected := 0, 0
		done := simtest.NewCounter(e)
		for s := range 3 {
			e.Go("submitter", func() {
				for i := range 4 {
					err := p.Execute(func() { e.Sleep(time.Duration(i+s) * time.Microsecond); ran.Add() })
					mu.Lock()
					submitted++
					if err != nil {
						rejected++
						if !errors.Is(err, exec.ErrSaturated) {
							t.Errorf("unexpected error %v", err)
						}
					}
					mu.Unlock()
				}
				done.Add()
			})
		}
		done.Await(3)
		mu.Lock()
		want := submitted - rejected
		mu.Unlock()
		ran.Await(want)
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
	simtest.Sim(t, 200, func(t testing.TB, e env.Env) {
		p := exec.NewPool(e, exec.PoolConfig{Name: "w", Core: 1, Max: 4, KeepAlive: time.Second, Queue: exec.Direct})
		l := simtest.NewLatch(e)
		for range 4 {
			if err := p.Execute(l.Wait); err != nil {
				t.Fatal(err)
			}
		}
		l.AwaitArrivals(4)
		l.Release()
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
	simtest.Sim(t, 50, func(t testing.TB, e env.Env) {
		p := exec.NewPool(e, exec.PoolConfig{Name: "w", Core: 2, Max: 2, KeepAlive: time.Second, ReapCore: true})
		c := simtest.NewCounter(e)
		p.Execute(c.Add)
		p.Execute(c.Add)
		c.Await(2)
		e.Sleep(2 * time.Second)
		if st := p.Stats(); st.Threads != 0 {
			t.Errorf("ReapCore left %d threads", st.Threads)
		}
		p.Execute(c.Add) // a reaped pool starts threads again
		c.Await(3)
	})
}

func TestShutdownNowReturnsDroppedWork(t *testing.T) {
	simtest.Both(t, 300, func(t testing.TB, e env.Env) {
		p := exec.NewPool(e, exec.PoolConfig{Name: "w", Core: 2, Max: 2})
		l := simtest.NewLatch(e)
		p.Execute(l.Wait)
		p.Execute(l.Wait)
		l.AwaitArrivals(2)
		ran := simtest.NewCounter(e)
		for range 4 {
			if err := p.Execute(ran.Add); err != nil {
				t.Fatal(err)
			}
		}
		var named []string // a task that wants its thread's name (ExecuteOn)
		if err := p.ExecuteOn(func(thread string) { named = append(named, thread); ran.Add() }); err != nil {
			t.Fatal(err)
		}
		dropped := p.ShutdownNow()
		if len(dropped) != 5 {
			t.Fatalf("dropped %d, want 5", len(dropped))
		}
		if err := p.Execute(ran.Add); !errors.Is(err, exec.ErrClosed) {
			t.Fatalf("after ShutdownNow: %v", err)
		}
		l.Release()
		if !p.AwaitTermination(time.Minute) {
			t.Fatal("threads did not exit")
		}
		if ran.N() != 0 {
			t.Fatalf("%d dropped tasks ran", ran.N())
		}
		// The dropped work is the caller's to run, each function once, the
		// named one with the name it is given.
		for _, fn := range dropped {
			fn("caller")
		}
		if ran.N() != 5 || len(named) != 1 || named[0] != "caller" {
			t.Fatalf("running the dropped work: %d ran, names %v; want 5 and [caller]", ran.N(), named)
		}
	})
}

func TestShutdownFinishesQueuedWork(t *testing.T) {
	simtest.Both(t, 300, func(t testing.TB, e env.Env) {
		p := exec.NewPool(e, exec.PoolConfig{Name: "w", Core: 1, Max: 1})
		ran := simtest.NewCounter(e)
		for range 6 {
			p.Execute(ran.Add)
		}
		p.Shutdown()
		if !p.AwaitTermination(time.Minute) {
			t.Fatal("threads did not exit")
		}
		if ran.N() != 6 {
			t.Fatalf("ran %d of 6 queued tasks", ran.N())
		}
	})
}

func TestDirectHandOffRejectsWhenSaturated(t *testing.T) {
	simtest.Both(t, 300, func(t testing.TB, e env.Env) {
		p := exec.NewPool(e, exec.PoolConfig{Name: "w", Core: 0, Max: 2, KeepAlive: time.Minute, Queue: exec.Direct})
		l := simtest.NewLatch(e)
		for range 2 {
			if err := p.Execute(l.Wait); err != nil {
				t.Fatal(err)
			}
		}
		if err := p.Execute(l.Wait); !errors.Is(err, exec.ErrSaturated) {
			t.Fatalf("third blocking task: %v, want ErrSaturated", err)
		}
		l.Release()
		p.Shutdown()
		p.AwaitTermination(time.Minute)
		if st := p.Stats(); st.Completed != 2 || st.Rejected != 1 {
			t.Fatalf("%+v", st)
		}
	})
}

func TestPanicIsReportedAndThreadReplaced(t *testing.T) {
	simtest.Both(t, 300, func(t testing.TB, e env.Env) {
		var got []string
		mu := e.NewMutex("test.panics")
		p := exec.NewPool(e, exec.PoolConfig{Name: "w", Core: 2, Max: 2, OnPanic: func(th string, v any) {
			mu.Lock()
			got = append(got, v.(string))
			mu.Unlock()
		}})
		ran := simtest.NewCounter(e)
		p.Execute(func() { panic("boom") })
		for range 4 {
			p.Execute(ran.Add)
		}
		ran.Await(4)
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
	eachLead(t, func(t *testing.T, lead time.Duration) {
		simtest.Both(t, 300, func(t testing.TB, e env.Env) {
			tm := exec.NewTimer(e, exec.TimerConfig{Name: "timer", Lead: lead, Threads: 1})
			mu := e.NewMutex("test.order")
			var order []int
			c := simtest.NewCounter(e)
			delays := []time.Duration{30, 10, 20, 10, 0}
			for i, d := range delays {
				tm.Schedule(d*time.Millisecond, func() {
					mu.Lock()
					order = append(order, i)
					mu.Unlock()
					c.Add()
				})
			}
			c.Await(len(delays))
			if want := []int{4, 1, 3, 2, 0}; !slices.Equal(order, want) {
				t.Fatalf("order %v, want %v", order, want)
			}
			tm.ShutdownNow()
		})
	})
}

func TestTimerCancel(t *testing.T) {
	eachLead(t, func(t *testing.T, lead time.Duration) {
		simtest.Both(t, 300, func(t testing.TB, e env.Env) {
			tm := exec.NewTimer(e, exec.TimerConfig{Name: "timer", Lead: lead, Threads: 2})
			ran := simtest.NewCounter(e)
			h, _ := tm.Schedule(50*time.Millisecond, func() { t.Error("cancelled entry ran") })
			tm.Schedule(100*time.Millisecond, ran.Add)
			if !h.Cancel() || h.Cancel() {
				t.Fatal("Cancel must return true then false")
			}
			ran.Await(1)
			st := tm.Stats()
			if st.Canceled != 1 || st.Fired != 1 || st.Threads > 2 {
				t.Fatalf("%+v", st)
			}
			if n := tm.ShutdownNow(); n != 0 {
				t.Fatalf("dropped %d", n)
			}
			if _, err := tm.Schedule(0, ran.Add); !errors.Is(err, exec.ErrClosed) {
				t.Fatalf("schedule after shutdown: %v", err)
			}
		})
	})
}

// waitStats polls the timer's stats until ok holds (virtual time in sim).
func waitStats(e env.Env, tm *exec.Timer, ok func(exec.TimerStats) bool) exec.TimerStats {
	for {
		if st := tm.Stats(); ok(st) {
			return st
		}
		e.Sleep(time.Millisecond)
	}
}

func TestTimerOneLeaderOthersFollow(t *testing.T) {
	eachLead(t, func(t *testing.T, lead time.Duration) {
		simtest.Both(t, 300, func(t testing.TB, e env.Env) {
			tm := exec.NewTimer(e, exec.TimerConfig{Name: "timer", Lead: lead, Threads: 3})
			defer tm.ShutdownNow()
			ran := simtest.NewCounter(e)
			for range 3 {
				tm.Schedule(0, ran.Add)
			}
			ran.Await(3)
			tm.Schedule(time.Hour, ran.Add) // the leader waits for this one
			// Every thread idle: exactly one leads, the others wait untimed.
			st := waitStats(e, tm, func(st exec.TimerStats) bool { return st.Followers == 2 })
			if st.Threads != 3 || st.Pending != 1 {
				t.Fatalf("%+v", st)
			}
		})
	})
}

func TestTimerPromotesFollowerWhileLeaderRuns(t *testing.T) {
	eachLead(t, func(t *testing.T, lead time.Duration) {
		simtest.Both(t, 300, func(t testing.TB, e env.Env) {
			tm := exec.NewTimer(e, exec.TimerConfig{Name: "timer", Lead: lead, Threads: 2})
			defer tm.ShutdownNow()
			block := simtest.NewLatch(e)
			ran := simtest.NewCounter(e)
			tm.Schedule(0, block.Wait)
			block.AwaitArrivals(1) // one thread runs a blocked function
			tm.Schedule(10*time.Millisecond, ran.Add)
			if !ran.AwaitFor(e, 1, time.Minute) {
				t.Fatal("the promoted follower did not fire the next entry")
			}
			block.Release()
		})
	})
}

func TestTimerDueEntriesWaitWhenEveryThreadIsBusy(t *testing.T) {
	eachLead(t, func(t *testing.T, lead time.Duration) {
		simtest.Both(t, 300, func(t testing.TB, e env.Env) {
			tm := exec.NewTimer(e, exec.TimerConfig{Name: "timer", Lead: lead, Threads: 2})
			defer tm.ShutdownNow()
			block := simtest.NewLatch(e)
			ran := simtest.NewCounter(e)
			tm.Schedule(0, block.Wait)
			tm.Schedule(0, block.Wait)
			block.AwaitArrivals(2)
			tm.Schedule(time.Millisecond, ran.Add)
			e.Sleep(50 * time.Millisecond)
			if st := tm.Stats(); ran.N() != 0 || st.Pending != 1 || st.Threads != 2 {
				t.Fatalf("with every thread busy: ran=%d %+v", ran.N(), st)
			}
			block.Release()
			if !ran.AwaitFor(e, 1, time.Minute) {
				t.Fatal("due entry did not run once a thread came free")
			}
		})
	})
}

func TestTimerDieOnPanicReplacesThread(t *testing.T) {
	for _, die := range []bool{false, true} {
		simtest.Both(t, 300, func(t testing.TB, e env.Env) {
			tm := exec.NewTimer(e, exec.TimerConfig{Name: "timer", Threads: 1, DieOnPanic: die, OnPanic: func(string, any) {}})
			defer tm.ShutdownNow()
			ran := simtest.NewCounter(e)
			tm.Schedule(0, func() { panic("boom") })
			tm.Schedule(time.Millisecond, ran.Add)
			if !ran.AwaitFor(e, 1, time.Minute) {
				t.Fatal("the entry after a panic did not run")
			}
			st := tm.Stats()
			wantDied := int64(0)
			if die {
				wantDied = 1
			}
			if st.Panicked != 1 || st.Died != wantDied || st.Threads != 1 {
				t.Fatalf("die=%v: %+v", die, st)
			}
		})
	}
}

// Bursts of entries due together that block until a later one runs, with
// threads to spare: whoever takes a due entry (leader or a woken follower)
// must leave a leader behind, or the later entry never fires.
func TestTimerLeavesALeaderAfterABurst(t *testing.T) {
	eachLead(t, func(t *testing.T, lead time.Duration) {
		simtest.Both(t, 1000, func(t testing.TB, e env.Env) {
			tm := exec.NewTimer(e, exec.TimerConfig{Name: "timer", Lead: lead, Threads: 4})
			defer tm.ShutdownNow()
			release := simtest.NewLatch(e)
			ran := simtest.NewCounter(e)
			for range 4 {
				tm.Schedule(0, ran.Add) // start all four threads
			}
			ran.Await(4)
			tm.Schedule(5*time.Millisecond, ran.Add)
			tm.Schedule(10*time.Millisecond, release.Wait)
			tm.Schedule(10*time.Millisecond, ran.Add)
			tm.Schedule(10*time.Millisecond, release.Wait)
			tm.Schedule(20*time.Millisecond, release.Release)
			release.AwaitArrivals(2)
			release.Wait() // returns once the 20 ms entry released the latch
			if !ran.AwaitFor(e, 6, time.Minute) {
				t.Fatalf("ran %d of 6", ran.N())
			}
		})
	})
}

// runner is an exec.Runner that counts its runs and keeps the thread names.
type runner struct {
	mu    env.Mutex
	names []string
}

func (r *runner) Run(thread string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.names = append(r.names, thread)
}

func (r *runner) n() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.names)
}

// TestRunnersRunAsFunctions: a Runner given to the pool or the timer runs
// once on one of its threads, as the same function would; one the pool
// drops at ShutdownNow comes back as a function.
func TestRunnersRunAsFunctions(t *testing.T) {
	simtest.Both(t, 300, func(t testing.TB, e env.Env) {
		p := exec.NewPool(e, exec.PoolConfig{Name: "w", Core: 1, Max: 1})
		tm := exec.NewTimer(e, exec.TimerConfig{Name: "t", Threads: 1})
		defer tm.ShutdownNow()
		r := &runner{mu: e.NewMutex("runner")}
		for range 3 {
			if err := p.ExecuteRunner(r); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := tm.ScheduleRunnerAt(e.Now().Add(time.Millisecond), r); err != nil {
			t.Fatal(err)
		}
		for r.n() < 4 {
			e.Sleep(time.Millisecond)
		}
		for _, name := range r.names {
			if !strings.HasPrefix(name, "w-") && !strings.HasPrefix(name, "t-") {
				t.Fatalf("ran on %q", name)
			}
		}
		l := simtest.NewLatch(e)
		p.Execute(l.Wait)
		l.AwaitArrivals(1)
		p.ExecuteRunner(r)
		dropped := p.ShutdownNow()
		l.Release()
		if len(dropped) != 1 {
			t.Fatalf("dropped %d, want 1", len(dropped))
		}
		dropped[0]("closed")
		if r.n() != 5 || r.names[4] != "closed" {
			t.Fatalf("runs %v", r.names)
		}
	})
}

// eachLead runs a timer test with entries taken at their deadlines and
// with a lead (TimerConfig.Lead): the contract is the same.
func eachLead(t *testing.T, f func(t *testing.T, lead time.Duration)) {
	for _, lead := range []time.Duration{-1, 3 * time.Millisecond} {
		name := "lead=off"
		if lead > 0 {
			name = "lead=" + lead.String()
		}
		t.Run(name, func(t *testing.T) { f(t, lead) })
	}
}

// With a lead the leader takes its entry ahead of the deadline and
// promotes a follower then, and the entry still runs at its deadline: at
// 95 ms (inside the 10 ms lead of an entry due at 100 ms) no thread waits
// as a follower and the entry is still pending, and it runs at 100 ms.
func TestTimerLeadPromotesAheadAndRunsOnTime(t *testing.T) {
	simtest.Sim(t, 300, func(t testing.TB, e env.Env) {
		for _, lead := range []time.Duration{-1, 10 * time.Millisecond} {
			tm := exec.NewTimer(e, exec.TimerConfig{Name: "timer", Threads: 2, Lead: lead})
			start := e.Now()
			ran := simtest.NewCounter(e)
			tm.Schedule(0, ran.Add) // start both threads
			tm.Schedule(0, ran.Add)
			ran.Await(2)
			var at time.Time
			tm.Schedule(100*time.Millisecond-e.Now().Sub(start), func() { at = e.Now(); ran.Add() })
			e.Sleep(start.Add(95 * time.Millisecond).Sub(e.Now()))
			st := tm.Stats()
			wantFollowers := 1
			if lead > 0 {
				wantFollowers = 0 // promoted at 90 ms
			}
			if st.Followers != wantFollowers || st.Pending != 1 || st.Fired != 2 {
				t.Fatalf("lead %v at 95 ms: %+v", lead, st)
			}
			ran.Await(3)
			if got := at.Sub(start); got != 100*time.Millisecond {
				t.Fatalf("lead %v: ran at %v, want 100ms", lead, got)
			}
			tm.ShutdownNow()
		}
	})
}

// An entry taken within its lead is cancelled by Cancel until its deadline,
// and dropped by ShutdownNow: it never runs.
func TestTimerLeadTakenEntryStillCancels(t *testing.T) {
	simtest.Sim(t, 300, func(t testing.TB, e env.Env) {
		for _, shutdown := range []bool{false, true} {
			tm := exec.NewTimer(e, exec.TimerConfig{Name: "timer", Threads: 2, Lead: 10 * time.Millisecond})
			started := simtest.NewCounter(e)
			tm.Schedule(0, started.Add) // start both threads
			tm.Schedule(0, started.Add)
			started.Await(2)
			h, _ := tm.Schedule(100*time.Millisecond, func() { t.Error("cancelled entry ran") })
			e.Sleep(95 * time.Millisecond)
			if st := tm.Stats(); st.Followers != 0 || st.Pending != 1 {
				t.Fatalf("at 95 ms the entry must be taken (the follower promoted) and still pending: %+v", st)
			}
			if shutdown {
				if n := tm.ShutdownNow(); n != 1 {
					t.Fatalf("ShutdownNow dropped %d, want the taken entry", n)
				}
				if h.Cancel() {
					t.Fatal("Cancel after ShutdownNow")
				}
			} else if !h.Cancel() || h.Cancel() {
				t.Fatal("Cancel of a taken entry before its deadline must return true, then false")
			}
			e.Sleep(50 * time.Millisecond)
			st := tm.Stats()
			if st.Fired != 2 || st.Pending != 0 || (!shutdown && st.Canceled != 1) {
				t.Fatalf("shutdown=%v: %+v", shutdown, st)
			}
			tm.ShutdownNow()
		}
	})
}

// leadEnv is a simulated env with an adaptive lead, as PreciseWall's: its
// TimerLead is whatever the test sets, it records what the timer reports
// as used (env.LeadObserver), and its conditions count loose waits.
type leadEnv struct {
	env.Env
	lead    time.Duration
	used    []time.Duration
	loose   int
	overrun time.Duration // how late a loose wait that times out ends
}

func (e *leadEnv) TimerLead() time.Duration       { return e.lead }
func (e *leadEnv) ObserveLead(used time.Duration) { e.used = append(e.used, used) }
func (e *leadEnv) NewCond(m env.Mutex) env.Cond {
	return &looseCond{Cond: e.Env.NewCond(m), e: e}
}

type looseCond struct {
	env.Cond
	e *leadEnv
}

func (c *looseCond) WaitForLoose(d time.Duration) bool {
	c.e.loose++
	timedOut := c.Cond.WaitFor(d)
	if timedOut && c.e.overrun > 0 {
		c.e.Env.Sleep(c.e.overrun) // a loose wait that ends late
	}
	return timedOut
}

// A loose wait for the lead that ends past the entry's deadline reports
// the whole lead used, and the overrun: an adaptive lead learns
// latenesses above itself, not only those it covered.
func TestTimerReportsALeadOverrun(t *testing.T) {
	simtest.Sim(t, 300, func(t testing.TB, se env.Env) {
		e := &leadEnv{Env: se, lead: 2 * time.Millisecond}
		tm := exec.NewTimer(e, exec.TimerConfig{Name: "timer", Threads: 1})
		ran := simtest.NewCounter(e)
		tm.Schedule(0, ran.Add) // start the thread
		ran.Await(1)
		e.overrun = 5 * time.Millisecond // the wait ends 3 ms past the deadline
		tm.Schedule(100*time.Millisecond, ran.Add)
		ran.Await(2)
		e.overrun = time.Millisecond // within the lead: 1 ms of it used
		tm.Schedule(100*time.Millisecond, ran.Add)
		ran.Await(3)
		if len(e.used) != 2 || e.used[0] != 5*time.Millisecond || e.used[1] != time.Millisecond {
			t.Fatalf("lead used reported %v, want [5ms 1ms]", e.used)
		}
		tm.ShutdownNow()
	})
}

// With the env's lead (TimerConfig.Lead 0 on an env.TimerLeader), the
// timer reads the lead before each wait, so a lead that shrinks takes
// effect at the next deadline; it waits for the lead loosely
// (env.LooseCond), and reports the lead each take used (in virtual time,
// none: the wait ends at its aim) to the env.
func TestTimerFollowsAnAdaptiveLead(t *testing.T) {
	simtest.Sim(t, 300, func(t testing.TB, se env.Env) {
		e := &leadEnv{Env: se, lead: 10 * time.Millisecond}
		tm := exec.NewTimer(e, exec.TimerConfig{Name: "timer", Threads: 2})
		start := e.Now()
		ran := simtest.NewCounter(e)
		tm.Schedule(0, ran.Add) // start both threads
		tm.Schedule(0, ran.Add)
		ran.Await(2)
		at := func(d time.Duration) { e.Sleep(start.Add(d).Sub(e.Now())) }
		taken := func() bool { return tm.Stats().Followers == 0 } // the follower was promoted
		tm.ScheduleAt(start.Add(100*time.Millisecond), func(string) { ran.Add() })
		at(89 * time.Millisecond)
		if taken() {
			t.Fatalf("taken at 89 ms, before its 10 ms lead: %+v", tm.Stats())
		}
		at(95 * time.Millisecond)
		if !taken() {
			t.Fatalf("not taken at 95 ms, within its 10 ms lead: %+v", tm.Stats())
		}
		ran.Await(3)
		e.lead = 2 * time.Millisecond // the env measured less
		tm.ScheduleAt(start.Add(200*time.Millisecond), func(string) { ran.Add() })
		at(197 * time.Millisecond)
		if taken() {
			t.Fatalf("taken at 197 ms with a 2 ms lead: the timer kept the old lead: %+v", tm.Stats())
		}
		at(199 * time.Millisecond)
		if !taken() {
			t.Fatalf("not taken at 199 ms, within its 2 ms lead: %+v", tm.Stats())
		}
		ran.Await(4)
		if len(e.used) != 2 || e.used[0] != 0 || e.used[1] != 0 {
			t.Fatalf("lead used reported %v, want [0 0] (one per take after a timed wait ran out)", e.used)
		}
		if e.loose == 0 {
			t.Fatal("the lead was never waited for loosely")
		}
		tm.ShutdownNow()
	})
}

// claimRunner records what the timer hands a ClaimRunner: RunClaimed on
// the timer thread at the claim, and the claim awaited on a thread of its
// own (as the shared design's dispatcher does); Run for an entry taken at
// its deadline.
type claimRunner struct {
	e              env.Env
	claimedAt, ran time.Time
	thread         string
	awaited        *bool // Await's result, once the awaiting thread has it
	done           *simtest.Counter
}

func (r *claimRunner) Run(string) { r.ran = r.e.Now(); r.done.Add() }

func (r *claimRunner) RunClaimed(thread string, c exec.Claim) {
	r.claimedAt, r.thread = r.e.Now(), thread
	r.e.Go("awaiter", func() {
		ok := c.Await()
		r.awaited = &ok
		if ok {
			r.ran = r.e.Now()
		}
		r.done.Add()
	})
}

// A ClaimRunner is handed its entry at the claim, within the lead, on the
// timer thread; the thread it hands the claim to sleeps out the lead and
// is released at the deadline, and the timer thread is free meanwhile (it
// takes the next claim while the first is still ahead). A Cancel or a
// ShutdownNow during the lead makes Await false. The lead used is reported
// when the claim is awaited. Without a lead it is Run at the deadline.
func TestTimerHandsAClaimOver(t *testing.T) {
	simtest.Sim(t, 300, func(t testing.TB, se env.Env) {
		for _, end := range []string{"runs", "cancel", "shutdown", "no-lead"} {
			e := &leadEnv{Env: se, lead: 10 * time.Millisecond}
			cfg := exec.TimerConfig{Name: "timer", Threads: 1}
			if end == "no-lead" {
				cfg.Lead = -1
			}
			tm := exec.NewTimer(e, cfg)
			start := e.Now()
			done := simtest.NewCounter(e)
			a := &claimRunner{e: e, done: done}
			b := &claimRunner{e: e, done: done}
			ha, _ := tm.ScheduleRunnerAt(start.Add(100*time.Millisecond), a)
			tm.ScheduleRunnerAt(start.Add(102*time.Millisecond), b)
			e.Sleep(start.Add(95 * time.Millisecond).Sub(e.Now()))
			switch end {
			case "cancel":
				if !ha.Cancel() {
					t.Fatal("Cancel of a claim handed over, before its deadline: false")
				}
			case "shutdown":
				if n := tm.ShutdownNow(); n != 2 {
					t.Fatalf("ShutdownNow dropped %d, want both claims", n)
				}
			}
			done.Await(2)
			for i, r := range []*claimRunner{a, b} {
				due := start.Add(time.Duration(100+2*i) * time.Millisecond)
				if end == "no-lead" {
					if r.awaited != nil || !r.claimedAt.IsZero() || !r.ran.Equal(due) {
						t.Fatalf("no lead: entry %d claimed at %v, ran at %v, want Run at %v", i, r.claimedAt, r.ran, due)
					}
					continue
				}
				if got := r.claimedAt.Sub(due); got != -10*time.Millisecond || !strings.HasPrefix(r.thread, "timer-") {
					t.Fatalf("%s: entry %d claimed %v from its deadline on %q, want -10ms on the timer thread", end, i, got, r.thread)
				}
				want := end == "runs" || (end == "cancel" && i == 1)
				if r.awaited == nil || *r.awaited != want {
					t.Fatalf("%s: entry %d awaited %v, want %v", end, i, r.awaited, want)
				}
				if want && !r.ran.Equal(due) {
					t.Fatalf("%s: entry %d released at %v, want its deadline %v", end, i, r.ran.Sub(start), due.Sub(start))
				}
			}
			if end != "no-lead" && len(e.used) != 2 {
				t.Fatalf("%s: lead used reported %v times, want once per claim", end, len(e.used))
			}
			st := tm.Stats()
			if end == "runs" && (st.Fired != 2 || st.Pending != 0) || end == "cancel" && (st.Fired != 1 || st.Canceled != 1 || st.Pending != 0) {
				t.Fatalf("%s: %+v", end, st)
			}
			tm.ShutdownNow()
		}
	})
}
