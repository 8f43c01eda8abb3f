// Package exec holds ckptsim's production executors: a worker pool in the
// manner of Java's ThreadPoolExecutor and a timer service in the manner of
// ScheduledThreadPoolExecutor, both built only on core/env so that the
// simulator runs the real pool logic (hand-off, reaping, saturation,
// shutdown) rather than a stand-in.
//
// # Pool
//
// A Pool runs submitted functions on named threads ("checkpoint-dispatcher-3").
// Threads are created on demand: below Core a submission always starts a
// thread; at or above Core it is queued; when the queue refuses (bounded
// and full, or direct hand-off with no idle thread) a thread is started up
// to Max; past Max the submission is rejected with ErrSaturated. Idle
// threads above Core (or every idle thread, with ReapCore) exit after
// KeepAlive. After Shutdown or ShutdownNow every submission is rejected with
// ErrClosed; Shutdown lets queued work finish, ShutdownNow drops it and
// returns it. Nothing is lost silently: a submission either runs, is
// returned by ShutdownNow, or its Execute call returned an error.
//
// A panic in a submitted function is recovered and passed to OnPanic
// (never swallowed); the thread that ran it then exits and a replacement is
// started, as a Java worker dies on an uncaught throwable, so the thread
// count stays right and Stats.Died shows the churn.
//
// # Timer
//
// A Timer runs functions after a delay on N timer threads over one
// deadline heap, under the leader/followers discipline: one thread, the
// leader, waits (timed) for the earliest deadline and the others wait
// untimed; at the deadline the leader takes the entry, promotes a follower
// and then runs the function, so the next deadline is already watched
// while it runs. When every thread runs a function, due entries wait in
// the heap (Overdue counts them). Equal deadlines fire in scheduling
// order. Cancel removes an entry from the heap (remove-on-cancel) and
// reports whether it won. A panicking function is recovered and reported
// to OnPanic; with DieOnPanic its thread ends and a fresh one replaces it.
//
// Promoting a follower wakes a parked thread, which costs the waker a
// system call and, on an idle virtual machine, an interrupt to a halted
// CPU: about 12 µs on the project machine, on the path from the deadline
// to the function when paid at the deadline. With a lead
// (TimerConfig.Lead, or the env's env.TimerLeader: PreciseWall's adapts,
// from 100 µs) the leader takes the entry that much ahead, promotes then,
// sleeps out the rest and runs the entry at its deadline; the taken entry
// can still be cancelled until then and ShutdownNow still drops it. The
// leader waits for the lead loosely (env.WaitForLoose: no spin, it is
// early anyway), re-reads the env's lead before each wait and reports
// what each lead used (env.LeadObserver). In simulation the env has no
// lead unless a test gives one. A ClaimRunner is handed the claim itself,
// at the claim: it passes the claim to another thread, which sleeps out
// the lead (Claim.Await) and runs the work at the deadline, and the timer
// thread goes back to the heap at once.
//
// # Locks
//
// Each Pool and Timer has one internal lock ("exec.pool", "exec.timer").
// It is never held while a submitted function runs, so a function may
// submit, schedule and cancel freely.
package exec
