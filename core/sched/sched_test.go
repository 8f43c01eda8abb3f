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

func TestBodyRunsOnDispatchThread(t *testing.T) {
	simtest.Both(t, seeds, func(t testing.TB, e env.Env) {
		s, f := newSched(t, e, sched.Config{})
		defer s.Close()
		ran := simtest.NewCounter(e)
		l := s.Lease(1, 1)
		for i := range 3 {
			l.Schedule(time.Duration(i)*time.Millisecond, ran.AddErr)
		}
		ran.Await(3)
		for _, x := range waitFirings(e, f, 3) {
			if !strings.HasPrefix(x.Thread, "checkpoint-dispatcher-") {
				t.Fatalf("body ran on %q", x.Thread)
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
	simtest.Both(t, seeds, func(t testing.TB, e env.Env) {
		s, _ := newSched(t, e, sched.Config{})
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
	simtest.Both(t, seeds, func(t testing.TB, e env.Env) {
		s, _ := newSched(t, e, sched.Config{})
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
	simtest.Both(t, seeds, func(t testing.TB, e env.Env) {
		s, _ := newSched(t, e, sched.Config{})
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
	simtest.Both(t, seeds, func(t testing.TB, e env.Env) {
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
	simtest.Both(t, seeds, func(t testing.TB, e env.Env) {
		s, _ := newSched(t, e, sched.Config{DispatchThreads: 4})
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
	})
	simtest.Both(t, seeds, func(t testing.TB, e env.Env) {
		s, _ := newSched(t, e, sched.Config{DispatchThreads: 4})
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
	})
}

func TestFailingBodyKeepsWorker(t *testing.T) {
	simtest.Both(t, seeds, func(t testing.TB, e env.Env) {
		s, _ := newSched(t, e, sched.Config{DispatchThreads: 1})
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
	simtest.Both(t, seeds, func(t testing.TB, e env.Env) {
		s, _ := newSched(t, e, sched.Config{DispatchThreads: 1, TaskFailure: "kill-worker"})
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
	})
}

func TestThreadCountsByDesign(t *testing.T) {
	simtest.Both(t, seeds, func(t testing.TB, e env.Env) {
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
