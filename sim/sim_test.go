package sim

import (
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/core/env"
)

// counterProgram has four threads increment a shared counter under a lock,
// with sleeps and timed waits, so that seeds interleave differently.
func counterProgram(w *World) func() {
	return func() {
		mu := w.NewMutex("counter")
		cv := w.NewCond(mu)
		n, done := 0, 0
		for i := range 4 {
			w.Go("worker", func() {
				for j := range 5 {
					mu.Lock()
					n = n*31 + i
					mu.Unlock()
					w.Sleep(time.Duration(j) * time.Millisecond)
				}
				mu.Lock()
				done++
				cv.Broadcast()
				mu.Unlock()
			})
		}
		mu.Lock()
		for done < 4 {
			cv.WaitFor(time.Second)
		}
		mu.Unlock()
		w.Note("n=%d", n)
	}
}

func runCounter(seed uint64, s StrategyKind) Result {
	w := New(Config{Seed: seed, Strategy: s, RecordDecisions: true})
	return w.Run(counterProgram(w))
}

func TestSameSeedSameHash(t *testing.T) {
	for _, procs := range []int{1, 2} {
		prev := runtime.GOMAXPROCS(procs)
		want := runCounter(42, StrategyRandom).TraceHash
		for range 20 {
			if got := runCounter(42, StrategyRandom); got.TraceHash != want || got.Outcome != OutcomeDone {
				t.Fatalf("GOMAXPROCS=%d: hash %x outcome %v, want %x done", procs, got.TraceHash, got.Outcome, want)
			}
		}
		runtime.GOMAXPROCS(prev)
	}
}

func TestSeedsInterleaveDifferently(t *testing.T) {
	for _, s := range []StrategyKind{StrategyRandom, StrategyPCT} {
		hashes := map[uint64]bool{}
		for seed := range uint64(100) {
			hashes[runCounter(seed, s).TraceHash] = true
		}
		if len(hashes) < 50 {
			t.Errorf("%v: only %d distinct traces over 100 seeds", s, len(hashes))
		}
		t.Logf("%v: %d distinct trace hashes over 100 seeds", s, len(hashes))
	}
}

func TestReplayReproducesRun(t *testing.T) {
	orig := runCounter(7, StrategyPCT)
	w := New(Config{Seed: 7, Strategy: StrategyReplay, Replay: orig.Decisions})
	got := w.Run(counterProgram(w))
	if got.TraceHash != orig.TraceHash || got.Outcome != OutcomeDone {
		t.Fatalf("replay hash %x (%v), want %x", got.TraceHash, got.Outcome, orig.TraceHash)
	}
	w = New(Config{Seed: 7, Strategy: StrategyReplay, Replay: orig.Decisions[:3]})
	if got := w.Run(counterProgram(w)); got.Outcome != OutcomeDivergence {
		t.Fatalf("truncated replay: outcome %v, want divergence", got.Outcome)
	}
}

// opposite takes a then b in one thread and b then a in another.
func opposite(w *World, overlap bool) func() {
	return func() {
		a, b := w.NewMutex("lockA"), w.NewMutex("lockB")
		done := w.NewMutex("done")
		cv := w.NewCond(done)
		finished := 0
		fin := func() { done.Lock(); finished++; cv.Broadcast(); done.Unlock() }
		w.Go("t1", func() { a.Lock(); b.Lock(); b.Unlock(); a.Unlock(); fin() })
		if !overlap {
			w.Sleep(time.Second)
		}
		w.Go("t2", func() { b.Lock(); a.Lock(); a.Unlock(); b.Unlock(); fin() })
		done.Lock()
		for finished < 2 {
			cv.Wait()
		}
		done.Unlock()
	}
}

func TestDeadlockReportNamesThreadsAndLocks(t *testing.T) {
	for seed := range uint64(200) {
		w := New(Config{Seed: seed})
		r := w.Run(opposite(w, true))
		if r.Outcome != OutcomeDeadlock {
			continue
		}
		msg := r.Deadlock.String()
		for _, want := range []string{"t1", "t2", "lockA", "lockB", "wait cycle"} {
			if !strings.Contains(msg, want) {
				t.Fatalf("seed %d report lacks %q:\n%s", seed, want, msg)
			}
		}
		return
	}
	t.Fatal("no seed in 200 deadlocked")
}

func TestLockOrderCycleWithoutDeadlock(t *testing.T) {
	w := New(Config{Seed: 1, LockOrder: true})
	if r := w.Run(opposite(w, false)); r.Outcome != OutcomeDone {
		t.Fatalf("outcome %v: %s", r.Outcome, r.Reason)
	}
	cycles := w.Harness().LockGraph().Cycles()
	if len(cycles) != 1 {
		t.Fatalf("want one cycle, got %v", cycles)
	}
	msg := cycles[0].String()
	for _, want := range []string{"lockA", "lockB", "sim_test.go"} {
		if !strings.Contains(msg, want) {
			t.Fatalf("cycle report lacks %q:\n%s", want, msg)
		}
	}
}

func TestVirtualTimeOrder(t *testing.T) {
	w := New(Config{Seed: 3})
	var order []string
	var at []time.Duration
	w.Run(func() {
		mu := w.NewMutex("m")
		cv := w.NewCond(mu)
		note := func(s string) { order = append(order, s); at = append(at, w.Elapsed()) }
		w.Go("sleep30", func() { w.Sleep(30 * time.Millisecond); note("sleep30") })
		w.Go("wait10", func() { mu.Lock(); cv.WaitFor(10 * time.Millisecond); mu.Unlock(); note("wait10") })
		w.Go("sleep20", func() { w.Sleep(20 * time.Millisecond); note("sleep20") })
		w.Sleep(time.Second)
	})
	want := []string{"wait10", "sleep20", "sleep30"}
	if strings.Join(order, ",") != strings.Join(want, ",") {
		t.Fatalf("order %v, want %v", order, want)
	}
	for i, d := range []time.Duration{10, 20, 30} {
		if at[i] != d*time.Millisecond {
			t.Fatalf("%s fired at %v", order[i], at[i])
		}
	}
}

func TestWaitForSignalledIsNotTimeout(t *testing.T) {
	for seed := range uint64(50) {
		w := New(Config{Seed: seed})
		var timedOut, ready bool
		var wokeAt time.Duration
		w.Run(func() {
			mu := w.NewMutex("m")
			cv := w.NewCond(mu)
			w.Go("signaller", func() {
				w.Sleep(5 * time.Millisecond)
				mu.Lock()
				ready = true
				cv.Signal()
				mu.Unlock()
			})
			mu.Lock()
			for !ready && !timedOut {
				timedOut = cv.WaitFor(time.Second)
			}
			wokeAt = w.Elapsed()
			mu.Unlock()
		})
		if timedOut || wokeAt != 5*time.Millisecond {
			t.Fatalf("seed %d: timedOut=%v at %v", seed, timedOut, wokeAt)
		}
	}
}

// lostWakeup checks the flag outside the lock and waits without a loop:
// if the signal lands between the check and the wait it is lost.
func lostWakeup(w *World) func() {
	return func() {
		mu := w.NewMutex("m")
		cv := w.NewCond(mu)
		var ready bool
		w.Go("producer", func() {
			mu.Lock()
			ready = true
			mu.Unlock()
			mu.Lock()
			cv.Signal()
			mu.Unlock()
		})
		if !ready {
			w.Yield()
			mu.Lock()
			cv.Wait() // BUG: no re-check of ready under the lock
			mu.Unlock()
		}
	}
}

func TestRandomFindsLostWakeup(t *testing.T) {
	for seed := range uint64(1000) {
		w := New(Config{Seed: seed})
		if r := w.Run(lostWakeup(w)); r.Outcome == OutcomeDeadlock {
			t.Logf("found at seed %d:\n%s", seed, r.Deadlock)
			return
		}
	}
	t.Fatal("lost wake-up not found in 1000 seeds")
}

// depth2 fails only if B's write happens after A's first step and before
// A's second: two ordering constraints.
func depth2(w *World, bad *bool) func() {
	return func() {
		mu := w.NewMutex("m")
		x := 0
		done := 0
		cv := w.NewCond(mu)
		w.Go("A", func() {
			for range 20 {
				w.Yield()
			}
			mu.Lock()
			x = 1
			mu.Unlock()
			mu.Lock()
			if x == 2 {
				*bad = true
			}
			done++
			cv.Signal()
			mu.Unlock()
		})
		w.Go("B", func() {
			mu.Lock()
			if x == 1 {
				x = 2
			}
			done++
			cv.Signal()
			mu.Unlock()
		})
		mu.Lock()
		for done < 2 {
			cv.Wait()
		}
		mu.Unlock()
	}
}

func TestPCTFindsDepth2Bug(t *testing.T) {
	for seed := range uint64(1000) {
		var bad bool
		w := New(Config{Seed: seed, Strategy: StrategyPCT, PCTDepth: 2, PCTSteps: 60})
		w.Run(depth2(w, &bad))
		if bad {
			t.Logf("PCT found the depth-2 bug at seed %d", seed)
			return
		}
	}
	t.Fatal("PCT did not find the depth-2 bug in 1000 seeds")
}

func TestBudgetEndsLivelock(t *testing.T) {
	w := New(Config{Seed: 1, MaxSteps: 1000})
	r := w.Run(func() {
		for {
			w.Yield()
		}
	})
	if r.Outcome != OutcomeBudget {
		t.Fatalf("outcome %v", r.Outcome)
	}
	w = New(Config{Seed: 1, MaxTime: time.Minute})
	r = w.Run(func() {
		for {
			w.Sleep(time.Second)
		}
	})
	if r.Outcome != OutcomeBudget || r.Elapsed > time.Minute+time.Second {
		t.Fatalf("outcome %v at %v", r.Outcome, r.Elapsed)
	}
}

func TestPanicIsReported(t *testing.T) {
	w := New(Config{Seed: 1})
	r := w.Run(func() {
		w.Go("boom", func() { panic("kaboom") })
		w.Sleep(time.Second)
	})
	if r.Outcome != OutcomePanic || r.Panic.Thread != "boom" || !strings.Contains(r.Reason, "kaboom") {
		t.Fatalf("%v %+v", r.Outcome, r.Panic)
	}
}

func TestBlockedThreadsAreStoppedAtEnd(t *testing.T) {
	before := runtime.NumGoroutine()
	for seed := range uint64(50) {
		w := New(Config{Seed: seed})
		w.Run(func() {
			mu := w.NewMutex("m")
			cv := w.NewCond(mu)
			for range 10 {
				w.Go("idle", func() {
					mu.Lock()
					defer mu.Unlock()
					for {
						cv.Wait()
					}
				})
			}
			w.Sleep(time.Millisecond)
		})
	}
	if after := runtime.NumGoroutine(); after > before+2 {
		t.Fatalf("goroutines leaked: %d before, %d after", before, after)
	}
}

var _ env.Env = (*World)(nil)

// TestEveryOutcomeStopsEveryCoroutine: threads hand the processor to each
// other directly (switch slots), so after a run the goroutine parked in a
// slot is rarely the one it was made for; the teardown must still end
// every coroutine, whatever ended the run.
func TestEveryOutcomeStopsEveryCoroutine(t *testing.T) {
	before := runtime.NumGoroutine()
	for seed := range uint64(20) {
		for _, tc := range []struct {
			cfg  Config
			want Outcome
			body func(w *World)
		}{
			{Config{Seed: seed}, OutcomeDone, func(w *World) {}},
			{Config{Seed: seed, MaxSteps: 300}, OutcomeBudget, func(w *World) {}},
			{Config{Seed: seed}, OutcomeDeadlock, func(w *World) {
				mu := w.NewMutex("m")
				mu.Lock()
				mu.Lock()
			}},
			{Config{Seed: seed}, OutcomePanic, func(w *World) {
				w.Go("boom", func() { w.Sleep(time.Millisecond); panic("kaboom") })
				w.Sleep(time.Second)
			}},
		} {
			w := New(tc.cfg)
			r := w.Run(func() {
				mu := w.NewMutex("shared")
				cv := w.NewCond(mu)
				for i := range 30 {
					w.Go("worker", func() {
						for j := 0; ; j++ {
							mu.Lock()
							if j%3 == i%3 {
								cv.WaitFor(time.Duration(1+i) * time.Microsecond)
							} else {
								cv.Signal()
							}
							mu.Unlock()
							if j > 20 {
								return
							}
						}
					})
				}
				w.Sleep(50 * time.Microsecond)
				tc.body(w)
			})
			if r.Outcome != tc.want {
				t.Fatalf("seed %d: outcome %v (%s), want %v", seed, r.Outcome, r.Reason, tc.want)
			}
		}
	}
	if after := runtime.NumGoroutine(); after > before+2 {
		t.Fatalf("goroutines leaked: %d before, %d after", before, after)
	}
}

// TestWaitCycleWhileTheWorldRuns: two threads deadlocked on each other's
// locks while another thread keeps sleeping (a deadline is always
// pending, as a harness's monitor leaves one): the run ends done, not
// deadlocked, and Result.WaitCycle names the two threads; a run without
// the cycle has none.
func TestWaitCycleWhileTheWorldRuns(t *testing.T) {
	run := func(seed uint64, cross bool) Result {
		w := New(Config{Seed: seed})
		return w.Run(func() {
			a, b := w.NewMutex("lockA"), w.NewMutex("lockB")
			w.Go("ticker", func() {
				for {
					w.Sleep(time.Second)
				}
			})
			w.Go("t1", func() { a.Lock(); w.Sleep(time.Millisecond); b.Lock(); b.Unlock(); a.Unlock() })
			w.Go("t2", func() {
				first, second := b, a
				if !cross {
					first, second = a, b
				}
				first.Lock()
				w.Sleep(time.Millisecond)
				second.Lock()
				second.Unlock()
				first.Unlock()
			})
			w.Sleep(time.Minute)
		})
	}
	r := run(1, true)
	if r.Outcome != OutcomeDone {
		t.Fatalf("outcome %v: %s", r.Outcome, r.Reason)
	}
	var got []string
	for _, b := range r.WaitCycle {
		if !strings.HasPrefix(b.WaitOn, "lock lock") {
			t.Fatalf("%s waits on %q, want a lock", b.Name, b.WaitOn)
		}
		got = append(got, b.Name)
	}
	slices.Sort(got)
	if !slices.Equal(got, []string{"t1", "t2"}) {
		t.Fatalf("wait cycle %v, want t1 and t2 (blocked %v)", r.WaitCycle, r.Blocked)
	}
	if r := run(1, false); len(r.WaitCycle) != 0 || r.Outcome != OutcomeDone {
		t.Fatalf("no cycle: outcome %v, wait cycle %v", r.Outcome, r.WaitCycle)
	}
}

// TestPCTSpinWaitStarves pins what sim's doc says of waiting by spinning
// under PCT: main loops on Yield until a worker sets a flag, and once the
// change points have passed (PCTSteps 2: both in the first two steps) a
// main above the worker in priority never lets it run, so the run ends only
// on its step budget; the same wait on a Cond ends on every seed.
func TestPCTSpinWaitStarves(t *testing.T) {
	run := func(seed uint64, spin bool) Outcome {
		w := New(Config{Seed: seed, Strategy: StrategyPCT, PCTSteps: 2, MaxSteps: 10_000})
		return w.Run(func() {
			mu := w.NewMutex("flag")
			c := w.NewCond(mu)
			set := false
			w.Go("worker", func() {
				mu.Lock()
				set = true
				c.Broadcast()
				mu.Unlock()
			})
			mu.Lock()
			for !set {
				if spin {
					mu.Unlock()
					w.Yield()
					mu.Lock()
				} else {
					c.Wait()
				}
			}
			mu.Unlock()
		}).Outcome
	}
	starved := 0
	for seed := range uint64(50) {
		if o := run(seed, false); o != OutcomeDone {
			t.Fatalf("seed %d waiting on a Cond: %s, want done", seed, o)
		}
		switch o := run(seed, true); o {
		case OutcomeBudget:
			starved++
		case OutcomeDone:
		default:
			t.Fatalf("seed %d spinning: %s", seed, o)
		}
	}
	if starved == 0 || starved == 50 {
		t.Errorf("spinning on Yield ran out of steps on %d of 50 seeds, want some (main above the worker) but not all", starved)
	}
	t.Logf("spinning on Yield ran out of steps on %d of 50 seeds", starved)
}
