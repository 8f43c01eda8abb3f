// Package sim is ckptsim's deterministic world: an implementation of
// core/env in which every simulated thread runs one at a time, a seeded
// strategy decides which runs next, and a virtual clock moves only when no
// thread can run.
//
// Runnable examples: Example (two threads, a mutex and a virtual sleep; the
// same seed gives the same trace hash) and Example_deadlock (a lost wake-up
// found over seeds and reported as a deadlock), in example_test.go; a
// complete component driven this way is sim/example/refresher.
//
// # What is deterministic
//
// Given the same Config (seed, strategy, budgets) and the same program, a
// World makes the same decisions, in the same virtual time, and produces the
// same trace hash — whatever GOMAXPROCS is and however often it runs. This
// holds as long as the program reaches time, threads and locks only through
// the World (the env seam), does not let Go map iteration order decide
// behaviour, and draws randomness only from World.Rand streams. Every
// stream of a simulation, the simulator's, the simulated cluster's and the
// harness's, is named in one registry (rand.go: Streams, Stream.String),
// each derived from the seed by NewRand, so that drawing from one never
// shifts another.
//
// # Scheduling points
//
// Every env call (Now, Go, Sleep, Yield, Mutex.Lock/Unlock/TryLock,
// Cond.Wait/WaitFor/Signal/Broadcast) is a scheduling point: the calling
// thread stops, the strategy picks the next thread among the runnable ones
// (possibly the same one), and that thread resumes. Between two scheduling
// points a thread runs alone; code there is atomic with respect to the
// simulation. Threads are coroutines (iter.Pull): a switch costs one
// coroutine switch, not a channel hand-off (see results/bench/sim-switch.txt).
//
// # Time
//
// Virtual time starts at Epoch and never moves while a thread is runnable.
// When none is, the clock jumps to the earliest deadline (a Sleep, a
// Cond.WaitFor, a Timer) and every thread due at that instant becomes
// runnable in the order its deadline was set. An optional CPU model charges
// each scheduling point a cost on one of K virtual cores so that queueing
// delay under load shows up in virtual time.
//
// # Strategies
//
// Random walks pick uniformly among runnable threads. PCT (Burckhardt et
// al., "A Randomized Scheduler with Probabilistic Guarantees of Finding
// Bugs", ASPLOS 2010) gives each thread a random priority, always runs the
// highest, and lowers the running thread's priority at d-1 random steps; for
// a program with n threads and k steps it finds any bug of depth d with
// probability at least 1/(n·k^(d-1)) per run, provided k is about the
// run's length. Config.PCTSteps is k. Left at zero, Run (the package
// function, which builds the program from a function of the World) sets
// k from the run itself: it first runs the same seed under the random
// walk and takes that run's step count, so a PCT seed costs two runs; the
// measuring run depends on the seed alone, so the PCT run's trace stays a
// function of the configuration (HorizonRun, WithHorizon; the workloads
// engine does the same per seed). A World made with New and no PCTSteps
// cannot run its program twice and draws each change point log-uniformly
// over 1..2^24 instead, which on a short run puts most of them after its
// end. On a planted 26-step lost update (TestPCTShortRace, seeds 0-999)
// the random walk caught 440, PCT with the measured horizon 95, with
// PCTSteps 26 101, with the log-uniform draw 23, and with the measured
// horizon and PCTDepth 11 241: the horizon fixes the draw, but on a
// shallow race in a short program the random walk, which may switch at
// every step, stays ahead of PCT's d-1 switches. Under PCT a thread that
// waits by looping on Yield (or on Lock/Unlock) keeps its priority and
// starves the thread it waits for: the run moves on only at a change
// point, and once the d-1 change points have passed it never ends unless
// MaxSteps ends it (virtual time stands still while a thread can run, so
// MaxTime does not). Wait on a Cond (or Sleep) instead: a blocked thread
// leaves the run queue (TestPCTSpinWaitStarves). Replay follows a recorded
// decision list exactly and reports a divergence.
//
// # Outcomes
//
// A run ends when its main function returns (other threads are then
// stopped, like daemon threads), when a thread panics, when no thread can
// run and no deadline is pending while main is still alive (a deadlock,
// reported with each thread's state, what it waits on, the lock owners and
// the wait cycle), or when the step or virtual-time budget runs out. The
// lock-order graph records, for every lock class acquired while another is
// held, the acquisition sites; a cycle in it is reported even when the run
// did not deadlock.
//
// # What is not controlled
//
// Goroutines started outside the World, real channels, the OS clock and
// global random sources are invisible to the simulator; core/ is kept free
// of them by a test. Memory accesses between scheduling points are not
// interleaved: a data race that involves no env call is not explored.
package sim
