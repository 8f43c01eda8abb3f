package sched_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/core/env"
	"github.com/ckptsim/ckptsim/core/sched"
	"github.com/ckptsim/ckptsim/sim/simtest"
)

// firings collects Observe callbacks.
type firings struct {
	mu  env.Mutex
	all []sched.Firing
}

func (f *firings) observe(x sched.Firing) { f.mu.Lock(); f.all = append(f.all, x); f.mu.Unlock() }
func (f *firings) list() []sched.Firing {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]sched.Firing(nil), f.all...)
}

func newSched(t testing.TB, e env.Env, cfg sched.Config) (sched.Scheduler, *firings) {
	f := &firings{mu: e.NewMutex("test.firings")}
	cfg.Observe = f.observe
	if cfg.Cores == 0 {
		cfg.Cores = 2
	}
	s, err := sched.New(e, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s, f
}

const seeds = 1000

// heavySeeds is seeds for the tests that build 500 leases per seed: a
// tenth of it under the race detector (-short cuts it by ten again).
func heavySeeds() int {
	if raceEnabled {
		return seeds / 10
	}
	return seeds
}

// eachDesign runs p for every design in ds (all designs when ds is empty),
// over seeds in sim and once in wall mode.
func eachDesign(t *testing.T, p func(t testing.TB, e env.Env, d sched.Design), ds ...sched.Design) {
	eachDesignSeeds(t, seeds, p, ds...)
}

func eachDesignSeeds(t *testing.T, n int, p func(t testing.TB, e env.Env, d sched.Design), ds ...sched.Design) {
	if len(ds) == 0 {
		ds = sched.Designs
	}
	for _, d := range ds {
		t.Run(string(d), func(t *testing.T) {
			simtest.Both(t, n, func(t testing.TB, e env.Env) { p(t, e, d) })
		})
		// The same contract with the timers taking entries ahead of their
		// deadlines (env.TimerLeader, as on the default PreciseWall), over
		// a quarter of the seeds (the lead adds one sleep per firing).
		t.Run(string(d)+"/lead", func(t *testing.T) {
			simtest.Both(t, max(n/4, 1), func(t testing.TB, e env.Env) { p(t, leadEnv{e, timerLead}, d) })
		})
	}
}

// timerLead is the lead of leadEnv: long enough that the taken entry's
// promotion and its sleep interleave with the tests' own 1-10 ms steps.
const timerLead = 3 * time.Millisecond

// leadEnv is an env whose timers take entries lead before their deadlines.
type leadEnv struct {
	env.Env
	lead time.Duration
}

func (l leadEnv) TimerLead() time.Duration { return l.lead }

// bodyThread is the thread-name prefix each design runs bodies on.
var bodyThread = map[sched.Design]string{
	sched.Shared:         "checkpoint-dispatcher-",
	sched.SharedInline:   "checkpoint-timer-",
	sched.PerPipeline:    "checkpoint-pipeline-1-1-timer-",
	sched.LeaderFollower: "checkpoint-scheduler-",
}

func TestBodyRunsOnDesignThread(t *testing.T) {
	eachDesign(t, func(t testing.TB, e env.Env, d sched.Design) {
		s, f := newSched(t, e, sched.Config{Design: d})
		defer s.Close()
		ran := simtest.NewCounter(e)
		l := s.Lease(1, 1)
		for i := range 3 {
			l.Schedule(time.Duration(i)*time.Millisecond, ran.AddErr)
		}
		ran.Await(3)
		for _, x := range waitFirings(e, f, 3) {
			if !strings.HasPrefix(x.Thread, bodyThread[d]) {
				t.Fatalf("%s: body ran on %q", d, x.Thread)
			}
		}
	})
}

// waitFirings waits until n firings were observed (Observe follows settle).
func waitFirings(e env.Env, f *firings, n int) []sched.Firing {
	for len(f.list()) < n {
		e.Sleep(time.Millisecond)
	}
	return f.list()
}

func TestCancelAllLeavesSiblingLeaseRunning(t *testing.T) {
	eachDesign(t, func(t testing.TB, e env.Env, d sched.Design) {
		s, _ := newSched(t, e, sched.Config{Design: d})
		defer s.Close()
		a, b := s.Lease(1, 1), s.Lease(1, 2)
		ranA, ranB := simtest.NewCounter(e), simtest.NewCounter(e)
		a.Schedule(50*time.Millisecond, ranA.AddErr)
		tb := b.Schedule(50*time.Millisecond, ranB.AddErr)
		a.CancelAll()
		if !tb.Await(10 * time.Second) {
			t.Fatal("sibling task did not run")
		}
		e.Sleep(100 * time.Millisecond)
		if ranA.N() != 0 || ranB.N() != 1 || a.Outstanding() != 0 || b.Outstanding() != 0 {
			t.Fatalf("ranA=%d ranB=%d outstanding a=%d b=%d", ranA.N(), ranB.N(), a.Outstanding(), b.Outstanding())
		}
	})
}

func TestCancelBeforeFireNeverRuns(t *testing.T) {
	eachDesign(t, func(t testing.TB, e env.Env, d sched.Design) {
		s, _ := newSched(t, e, sched.Config{Design: d})
		defer s.Close()
		l := s.Lease(1, 1)
		ran := simtest.NewCounter(e)
		task := l.Schedule(500*time.Millisecond, ran.AddErr)
		if !task.Cancel() || task.Cancel() {
			t.Fatal("Cancel must return true, then false")
		}
		e.Sleep(800 * time.Millisecond)
		st := s.Stats()
		if ran.N() != 0 || !errors.Is(task.Err(), sched.ErrCanceled) || st.CanceledBeforeFire != 1 || st.Fired != 0 {
			t.Fatalf("ran=%d err=%v stats=%+v", ran.N(), task.Err(), st)
		}
	})
}

func TestCancelAfterHandOffObservedFirst(t *testing.T) {
	simtest.Both(t, seeds, func(t testing.TB, e env.Env) {
		s, _ := newSched(t, e, sched.Config{DispatchThreads: 1})
		defer s.Close()
		l := s.Lease(1, 1)
		block := simtest.NewLatch(e)
		l.Schedule(0, block.WaitErr)
		block.AwaitArrivals(1) // the only dispatch thread is busy
		ran := simtest.NewCounter(e)
		task := l.Schedule(0, ran.AddErr)
		for s.Stats().Dispatched < 2 {
			e.Sleep(time.Millisecond) // the timer fired and handed it off
		}
		if !task.Cancel() {
			t.Fatal("cancel after hand-off lost")
		}
		block.Release()
		for s.Stats().SkippedAfterHandoff < 1 {
			e.Sleep(time.Millisecond)
		}
		if ran.N() != 0 || s.Stats().RanAfterCancel != 0 {
			t.Fatalf("body ran after an observed cancel: %+v", s.Stats())
		}
	})
}

func TestLeaseUsableAfterCancelAllTwice(t *testing.T) {
	for _, d := range sched.Designs {
		t.Run(string(d), func(t *testing.T) {
			simtest.Both(t, seeds, func(t testing.TB, e env.Env) {
				s, _ := newSched(t, e, sched.Config{Design: d})
				defer s.Close()
				l := s.Lease(1, 1)
				ran := simtest.NewCounter(e)
				l.Schedule(time.Second, ran.AddErr)
				l.CancelAll()
				l.CancelAll()
				task := l.Schedule(10*time.Millisecond, ran.AddErr)
				if !task.Await(10*time.Second) || task.Err() != nil || ran.N() != 1 {
					t.Fatalf("after CancelAll: err=%v ran=%d", task.Err(), ran.N())
				}
			})
		})
	}
}

func TestZeroDelayTasksAllSettle(t *testing.T) {
	eachDesign(t, func(t testing.TB, e env.Env, d sched.Design) {
		s, _ := newSched(t, e, sched.Config{Design: d})
		defer s.Close()
		l := s.Lease(1, 1)
		ran := simtest.NewCounter(e)
		var tasks []*sched.Task
		for range 50 {
			tasks = append(tasks, l.Schedule(0, ran.AddErr))
		}
		for _, task := range tasks {
			if !task.Await(10 * time.Second) {
				t.Fatal("task did not settle")
			}
		}
		if ran.N() != 50 || l.Outstanding() != 0 {
			t.Fatalf("ran=%d outstanding=%d", ran.N(), l.Outstanding())
		}
	})
}

func TestScheduleAfterCloseIsCancelled(t *testing.T) {
	for _, d := range sched.Designs {
		t.Run(string(d), func(t *testing.T) {
			simtest.Both(t, seeds, func(t testing.TB, e env.Env) {
				s, _ := newSched(t, e, sched.Config{Design: d})
				l := s.Lease(1, 1)
				s.Close()
				ran := simtest.NewCounter(e)
				task := l.Schedule(0, ran.AddErr)
				if task == nil || !task.Cancelled() || !task.Done() || !l.Closed() {
					t.Fatal("schedule after close must return a cancelled task")
				}
				e.Sleep(100 * time.Millisecond)
				if ran.N() != 0 || l.Outstanding() != 0 {
					t.Fatalf("ran=%d", ran.N())
				}
			})
		})
	}
}

// TestCloseSettlesWaitingTasks is the reproduction of a bug the lease
// checks' quiesce found: Close dropped the timer's entries without settling
// their tasks, so Outstanding stayed above 0 and an Await waited forever.
func TestCloseSettlesWaitingTasks(t *testing.T) {
	for _, d := range sched.Designs {
		t.Run(string(d), func(t *testing.T) {
			simtest.Both(t, 200, func(t testing.TB, e env.Env) {
				s, _ := newSched(t, e, sched.Config{Design: d})
				l := s.Lease(1, 1)
				ran := simtest.NewCounter(e)
				task := l.Schedule(time.Hour, ran.AddErr)
				s.Close()
				if !task.Await(time.Second) || !task.Cancelled() || l.Outstanding() != 0 || ran.N() != 0 {
					t.Fatalf("after Close: done %v cancelled %v outstanding %d ran %d",
						task.Done(), task.Cancelled(), l.Outstanding(), ran.N())
				}
			})
		})
	}
}

func TestFiveHundredLeasesTwoTimerThreads(t *testing.T) {
	simtest.Both(t, heavySeeds(), func(t testing.TB, e env.Env) {
		s, _ := newSched(t, e, sched.Config{})
		defer s.Close()
		ran := simtest.NewCounter(e)
		for p := range 500 {
			s.Lease(1, p).Schedule(time.Duration(p%7)*time.Millisecond, ran.AddErr)
		}
		ran.Await(500)
		st := s.Stats()
		if st.TimerThreads != 2 || st.DispatchThreads > 8 {
			t.Fatalf("%+v", st)
		}
	})
}

func TestDispatchBoundHolds(t *testing.T) {
	eachDesign(t, func(t testing.TB, e env.Env, d sched.Design) {
		s, _ := newSched(t, e, sched.Config{Design: d, DispatchThreads: 4})
		defer s.Close()
		block := simtest.NewLatch(e)
		for p := range 8 {
			s.Lease(1, p).Schedule(0, block.WaitErr)
		}
		block.AwaitArrivals(4)
		e.Sleep(50 * time.Millisecond)
		if st := s.Stats(); st.DispatchThreads != 4 || st.PeakDispatchThreads != 4 || st.Queued != 4 {
			t.Fatalf("2 x bound blocked bodies: %+v", st)
		}
		block.Release()
	}, sched.Shared, sched.LeaderFollower)
	eachDesign(t, func(t testing.TB, e env.Env, d sched.Design) {
		s, _ := newSched(t, e, sched.Config{Design: d, DispatchThreads: 4})
		defer s.Close()
		block := simtest.NewLatch(e)
		for p := range 3 {
			s.Lease(1, p).Schedule(0, block.WaitErr)
		}
		block.AwaitArrivals(3)
		fresh := s.Lease(2, 1).Schedule(time.Millisecond, func() error { return nil })
		if !fresh.Await(10*time.Second) || fresh.Err() != nil {
			t.Fatal("with bound-1 bodies blocked a fresh pipeline's task did not run")
		}
		block.Release()
	}, sched.Shared, sched.LeaderFollower)
}

func TestFailingBodyKeepsWorker(t *testing.T) {
	eachDesign(t, func(t testing.TB, e env.Env, d sched.Design) {
		s, _ := newSched(t, e, sched.Config{Design: d, DispatchThreads: 1})
		defer s.Close()
		l := s.Lease(1, 1)
		bad := l.Schedule(0, func() error { return errors.New("trigger failed") })
		boom := l.Schedule(time.Millisecond, func() error { panic("kaboom") })
		ok := l.Schedule(2*time.Millisecond, func() error { return nil })
		for _, task := range []*sched.Task{bad, boom, ok} {
			task.Await(10 * time.Second)
		}
		if bad.Err() == nil || !strings.Contains(boom.Err().Error(), "kaboom") || ok.Err() != nil {
			t.Fatalf("errs: %v / %v / %v", bad.Err(), boom.Err(), ok.Err())
		}
		if st := s.Stats(); st.WorkerDeaths != 0 || st.Failed != 2 || st.Completed != 1 {
			t.Fatalf("%+v", st)
		}
	})
}

func TestKillWorkerVariantKillsWorker(t *testing.T) {
	eachDesign(t, func(t testing.TB, e env.Env, d sched.Design) {
		s, _ := newSched(t, e, sched.Config{Design: d, DispatchThreads: 1, TaskFailure: sched.KillWorker})
		defer s.Close()
		l := s.Lease(1, 1)
		bad := l.Schedule(0, func() error { return errors.New("trigger failed") })
		bad.Await(10 * time.Second)
		ok := l.Schedule(time.Millisecond, func() error { return nil })
		ok.Await(10 * time.Second)
		for s.Stats().WorkerDeaths < 1 {
			e.Sleep(time.Millisecond)
		}
		if bad.Err() == nil || ok.Err() != nil {
			t.Fatalf("errs %v %v", bad.Err(), ok.Err())
		}
		if st := s.Stats(); st.DispatchThreads != 1 {
			t.Fatalf("the dead worker was not replaced: %+v", st)
		}
	}, sched.Shared, sched.LeaderFollower)
}

func TestThreadCountsByDesign(t *testing.T) {
	simtest.Both(t, heavySeeds(), func(t testing.TB, e env.Env) {
		for _, d := range sched.Designs {
			s, _ := newSched(t, e, sched.Config{Design: d})
			ran := simtest.NewCounter(e)
			var leases []*sched.Lease
			for p := range 500 {
				l := s.Lease(1, p)
				leases = append(leases, l)
				l.Schedule(0, ran.AddErr)
				l.Schedule(time.Hour, ran.AddErr) // a second armed task, like a watchdog
			}
			ran.Await(500)
			st := s.Stats()
			switch d {
			case sched.LeaderFollower:
				if st.TimerThreads != 0 || st.PeakDispatchThreads > 8 { // one pool of at most bound
					t.Errorf("%s: %+v", d, st)
				}
			case sched.PerPipeline:
				if st.TimerThreads != 1000 {
					t.Errorf("per-pipeline: %d timer threads at 500 pipelines, want 1000", st.TimerThreads)
				}
			default:
				if st.TimerThreads != 2 || st.PeakDispatchThreads > 8 { // at most 2 + bound
					t.Errorf("%s: %+v", d, st)
				}
			}
			s.Close()
		}
	})
}

// TestCoresComeFromConfiguration: core never asks the machine for its
// CPU count, so a config without Cores or DispatchThreads is refused and
// the bound follows the configured count alone.
func TestCoresComeFromConfiguration(t *testing.T) {
	if _, err := sched.New(env.Wall{}, sched.Config{}); !errors.Is(err, sched.ErrNoCores) {
		t.Fatalf("New without cores: %v, want ErrNoCores", err)
	}
	for _, tc := range []struct {
		cfg  sched.Config
		want int
	}{{sched.Config{Cores: 1}, 8}, {sched.Config{Cores: 6}, 12}, {sched.Config{Cores: 64, DispatchThreads: 3}, 3}} {
		if got := tc.cfg.Bound(); got != tc.want {
			t.Errorf("%+v: bound %d, want %d", tc.cfg, got, tc.want)
		}
	}
}

// In the leader-follower design a task that came due while every thread
// runs a body waits for a thread; a cancel then wins before it fires.
func TestLeaderFollowerSaturatedTaskWaitsAndCancels(t *testing.T) {
	eachDesign(t, func(t testing.TB, e env.Env, d sched.Design) {
		s, _ := newSched(t, e, sched.Config{Design: d, DispatchThreads: 2})
		defer s.Close()
		block := simtest.NewLatch(e)
		s.Lease(1, 1).Schedule(0, block.WaitErr)
		s.Lease(1, 2).Schedule(0, block.WaitErr)
		block.AwaitArrivals(2) // both threads run bodies
		ran := simtest.NewCounter(e)
		l := s.Lease(2, 1)
		waiting := l.Schedule(time.Millisecond, ran.AddErr)
		kept := l.Schedule(2*time.Millisecond, ran.AddErr)
		e.Sleep(10 * time.Millisecond)
		if st := s.Stats(); st.Queued != 2 || st.DispatchThreads != 2 || ran.N() != 0 {
			t.Fatalf("saturated: ran=%d %+v", ran.N(), st)
		}
		if !waiting.Cancel() {
			t.Fatal("cancel of a waiting task lost")
		}
		block.Release()
		if !kept.Await(10*time.Second) || kept.Err() != nil || ran.N() != 1 {
			t.Fatalf("after release: ran=%d err=%v", ran.N(), kept.Err())
		}
		if st := s.Stats(); st.CanceledBeforeFire != 1 || st.PeakDispatchThreads != 2 {
			t.Fatalf("%+v", st)
		}
	}, sched.LeaderFollower)
}

// The leader-follower pool never grows past bound, whatever the pipeline
// count, and an idle pool has one leader and followers only.
func TestLeaderFollowerThreadsStayWithinBound(t *testing.T) {
	eachDesignSeeds(t, heavySeeds(), func(t testing.TB, e env.Env, d sched.Design) {
		s, _ := newSched(t, e, sched.Config{Design: d})
		defer s.Close()
		ran := simtest.NewCounter(e)
		block := simtest.NewLatch(e)
		for p := range 500 {
			l := s.Lease(1, p)
			l.Schedule(time.Duration(p%5)*time.Millisecond, block.WaitErr)
			l.Schedule(time.Duration(p%7)*time.Millisecond, ran.AddErr)
		}
		block.AwaitArrivals(8)
		e.Sleep(20 * time.Millisecond)
		if st := s.Stats(); st.DispatchThreads != 8 || st.PeakDispatchThreads != 8 || st.Queued == 0 {
			t.Fatalf("8 blocked bodies: ran=%d %+v", ran.N(), st)
		}
		block.Release()
		ran.Await(500)
		if st := s.Stats(); st.PeakDispatchThreads != 8 || st.WorkerDeaths != 0 {
			t.Fatalf("%+v", st)
		}
	}, sched.LeaderFollower)
}

// A task scheduled at a due time already past runs at once and keeps that
// due time, so its delay counts from the intended schedule; RearmDelay is
// the figure that hides the late re-arm.
func TestScheduleAtPastKeepsIntendedDue(t *testing.T) {
	eachDesign(t, func(t testing.TB, e env.Env, d sched.Design) {
		s, f := newSched(t, e, sched.Config{Design: d})
		defer s.Close()
		due := e.Now().Add(-time.Second)
		task := s.Lease(1, 1).ScheduleAt(due, func() error { return nil })
		if !task.Await(10*time.Second) || task.Err() != nil || !task.Due().Equal(due) {
			t.Fatalf("err=%v due=%v want %v", task.Err(), task.Due(), due)
		}
		x := waitFirings(e, f, 1)[0]
		if !x.Due.Equal(due) || x.Delay() < time.Second || x.RearmDelay() >= time.Second || x.Armed.Before(due) {
			t.Fatalf("%+v: delay %v rearm delay %v", x, x.Delay(), x.RearmDelay())
		}
	})
}

// scheduleDuringCancelAll gives l five tasks for CancelAll to cancel (each
// Cancel is a scheduling point), then races a Schedule of a task due after
// delay (counting its runs in ran) against l.CancelAll on another thread,
// and returns once that Schedule has returned: get gives the late task.
func scheduleDuringCancelAll(e env.Env, l *sched.Lease, delay time.Duration) (get func() *sched.Task, ran *simtest.Counter) {
	for range 5 {
		l.Schedule(time.Minute, func() error { return nil })
	}
	ran = simtest.NewCounter(e)
	mu := e.NewMutex("test.late")
	var late *sched.Task
	e.Go("late-schedule", func() {
		task := l.Schedule(delay, ran.AddErr)
		mu.Lock()
		late = task
		mu.Unlock()
	})
	l.CancelAll()
	get = func() *sched.Task { mu.Lock(); defer mu.Unlock(); return late }
	for get() == nil {
		e.Sleep(time.Millisecond)
	}
	return get, ran
}

// TestCancelAllKeepsConcurrentSchedule: a task scheduled while CancelAll
// runs is either cancelled by it or still outstanding afterwards, where a
// later CancelAll reaches it. CancelAll emptied the lease's task set after
// cancelling its snapshot, so a task registered in between was dropped
// uncancelled: Outstanding forgot it and no later CancelAll could cancel
// it (found from the lease decorator's report on saturation seed 5300287
// with BUGGIFY on, once the decorator's own numbering was fixed).
func TestCancelAllKeepsConcurrentSchedule(t *testing.T) {
	eachDesign(t, func(t testing.TB, e env.Env, d sched.Design) {
		s, _ := newSched(t, e, sched.Config{Design: d})
		defer s.Close()
		l := s.Lease(1, 1)
		get, ran := scheduleDuringCancelAll(e, l, time.Second)
		if !get().Cancelled() {
			if n := l.Outstanding(); n != 1 {
				t.Fatalf("a task scheduled during CancelAll is neither cancelled nor outstanding (outstanding %d)", n)
			}
			l.CancelAll()
		}
		e.Sleep(2 * time.Second)
		if ran.N() != 0 || !get().Cancelled() {
			t.Fatalf("the task scheduled during CancelAll ran %d times (cancelled %v) after a second CancelAll", ran.N(), get().Cancelled())
		}
	})
}

// TestCancelAllSettlesConcurrentSchedule: a task scheduled while CancelAll
// runs settles by itself, with no later CancelAll: it runs, or it is
// cancelled and Done, and Outstanding comes back to 0. The per-pipeline
// design's CancelAll swaps in a fresh timer and shuts the old one down; a
// task armed on the old timer after CancelAll's snapshot was dropped with
// it, never run and never cancelled, outstanding until the next CancelAll
// (and an Await on it waited forever). Over the seeds the late Schedule
// lands inside CancelAll at least once.
func TestCancelAllSettlesConcurrentSchedule(t *testing.T) {
	eachDesign(t, func(t testing.TB, e env.Env, d sched.Design) {
		s, _ := newSched(t, e, sched.Config{Design: d})
		defer s.Close()
		l := s.Lease(1, 1)
		get, ran := scheduleDuringCancelAll(e, l, 10*time.Millisecond)
		task := get()
		if !task.Await(10 * time.Second) {
			t.Fatalf("a task scheduled during CancelAll never settled (cancelled %v, outstanding %d)", task.Cancelled(), l.Outstanding())
		}
		ok := (ran.N() == 1 && task.Err() == nil && !task.Cancelled()) ||
			(ran.N() == 0 && task.Cancelled() && errors.Is(task.Err(), sched.ErrCanceled))
		if !ok || l.Outstanding() != 0 {
			t.Fatalf("settled as ran %d, cancelled %v, err %v; outstanding %d", ran.N(), task.Cancelled(), task.Err(), l.Outstanding())
		}
	})
}

// TestCloseDropsWaitingTasksUpstream: with CloseDrops (variant
// close-tasks=drops, upstream's close, F010) a task waiting on the timer
// when the scheduler closes never settles: its Await times out, it is not
// cancelled and its lease still counts it. The default settles it
// (TestCloseSettlesWaitingTasks).
func TestCloseDropsWaitingTasksUpstream(t *testing.T) {
	for _, d := range sched.Designs {
		t.Run(string(d), func(t *testing.T) {
			simtest.Sim(t, 20, func(t testing.TB, e env.Env) {
				s, _ := newSched(t, e, sched.Config{Design: d, CloseTasks: sched.CloseDrops})
				l := s.Lease(1, 1)
				ran := simtest.NewCounter(e)
				task := l.Schedule(time.Hour, ran.AddErr)
				s.Close()
				if task.Await(time.Second) || task.Cancelled() || l.Outstanding() != 1 || ran.N() != 0 {
					t.Fatalf("after Close with close-tasks=drops: done %v cancelled %v outstanding %d ran %d, want a task never settled",
						task.Done(), task.Cancelled(), l.Outstanding(), ran.N())
				}
			})
		})
	}
}

// TestCancelAllClearsDropsConcurrentScheduleUpstream: with CancelAllClears
// (variant cancel-all=clears, upstream's trailing clear(), F026) a task
// scheduled between CancelAll's snapshot and its clear is neither
// cancelled nor in the lease's set: a second CancelAll does not reach it
// and it runs. Over the seeds the late Schedule lands in that window at
// least once; the default never drops it (TestCancelAllKeepsConcurrentSchedule).
func TestCancelAllClearsDropsConcurrentScheduleUpstream(t *testing.T) {
	escaped := 0
	simtest.Sim(t, 200, func(t testing.TB, e env.Env) {
		s, _ := newSched(t, e, sched.Config{CancelAll: sched.CancelAllClears})
		defer s.Close()
		l := s.Lease(1, 1)
		get, ran := scheduleDuringCancelAll(e, l, time.Second)
		l.CancelAll()
		e.Sleep(2 * time.Second)
		if !get().Cancelled() {
			if ran.N() != 1 || l.Outstanding() != 0 {
				t.Fatalf("an uncancelled late task: ran %d, outstanding %d; want it run and settled", ran.N(), l.Outstanding())
			}
			escaped++
		}
	})
	if escaped == 0 {
		t.Fatal("with cancel-all=clears no late task escaped both CancelAlls over 200 seeds")
	}
	t.Logf("%d of 200 seeds: the late task escaped both CancelAlls and ran", escaped)
}

// With a lead, the shared design hands a task its timer claimed to a
// dispatcher at the claim, not at the deadline: the dispatcher sleeps out
// the lead and fires the task at its deadline, so the hand-off's wake-up
// is off the path from deadline to body. Within the lead a dispatcher is
// already started and nothing has fired; the firing is stamped and the
// body started at the deadline, on the dispatcher. A cancel within the
// lead is still a cancel before the fire: the body never runs and the
// task is not counted as dispatched.
func TestSharedHandsAClaimToTheDispatcher(t *testing.T) {
	simtest.Sim(t, seeds/4, func(t testing.TB, se env.Env) {
		for _, cancel := range []bool{false, true} {
			e := leadEnv{se, 10 * time.Millisecond}
			s, f := newSched(t, e, sched.Config{Design: sched.Shared})
			start := e.Now()
			ran := simtest.NewCounter(e)
			task := s.Lease(1, 1).Schedule(100*time.Millisecond, ran.AddErr)
			e.Sleep(95 * time.Millisecond)
			if st := s.Stats(); st.DispatchThreads != 1 || st.Fired != 0 || st.Dispatched != 0 || ran.N() != 0 {
				t.Fatalf("at 95 ms, within the lead: %+v, ran %d; want one dispatcher holding the claim, nothing fired", st, ran.N())
			}
			if cancel {
				if !task.Cancel() {
					t.Fatal("cancel within the lead lost")
				}
				e.Sleep(20 * time.Millisecond)
				st := s.Stats()
				if ran.N() != 0 || !errors.Is(task.Err(), sched.ErrCanceled) || st.CanceledBeforeFire != 1 || st.Fired != 0 || st.Dispatched != 0 {
					t.Fatalf("cancel within the lead: ran=%d err=%v stats=%+v", ran.N(), task.Err(), st)
				}
				s.Close()
				continue
			}
			ran.Await(1)
			x := waitFirings(e, f, 1)[0]
			due := start.Add(100 * time.Millisecond)
			if !x.Due.Equal(due) || !x.Fired.Equal(due) || !x.Started.Equal(due) || !strings.HasPrefix(x.Thread, bodyThread[sched.Shared]) {
				t.Fatalf("firing %+v: want due, fired and started at %v on a dispatcher", x, due.Sub(start))
			}
			if st := s.Stats(); st.Fired != 1 || st.Dispatched != 1 {
				t.Fatalf("after the deadline: %+v", st)
			}
			s.Close()
		}
	})
}
