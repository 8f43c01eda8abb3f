// Package sched is the member-wide checkpoint scheduler of seed 000
// (SeaTunnel PR #12165, STIP-40) and the designs it is measured against,
// behind one interface chosen by name:
//
//   - "shared" (the default): one Scheduler per member with two timer
//     threads (checkpoint-timer-N) that only fire and hand the task to a
//     dispatch pool (checkpoint-dispatcher-N) of max(8, 2 x cores) threads,
//     created on demand, reaped after 60 s idle, with an unbounded queue: a
//     rejected task would be a dropped trigger or watchdog, so the design
//     trades drops for delay.
//   - "per-pipeline": the design before the change; every Lease owns a
//     two-thread timer that runs bodies itself, and CancelAll (a coordinator
//     reset) shuts that timer down and builds a new one.
//   - "shared-inline": the shared timer threads run bodies themselves, with
//     no hand-off.
//   - "leader-follower": one pool (checkpoint-scheduler-N) of at most
//     max(8, 2 x cores) threads and no separate timer threads. One thread,
//     the leader, waits (timed) for the earliest deadline; the others wait
//     untimed. At the deadline the leader takes the task, promotes a
//     follower to leader (that wake-up happens while the body runs, off its
//     critical path) and runs the body itself: no hand-off and no idle
//     timed waits beyond one. When every thread runs a body, due tasks wait
//     in the deadline heap (Stats.Queued) as the shared design's dispatch
//     queue holds them, and the first thread to come free takes them in
//     deadline order. With "kill-worker" a failing body ends its thread,
//     which is replaced (Stats.WorkerDeaths); with "recover" the thread
//     keeps serving. Its fired-to-body-start hop is the inline designs'
//     (under 1 µs in the wall benchmarks) against the shared hand-off's
//     (about 20 µs in results/README.md's record; 5-9 µs since the timer
//     thread yields to the dispatcher it woke, env.HandedOff,
//     results/bench/experiments/README.md, handoff). With a timer lead (PreciseWall's)
//     the shared design hands a task over at the claim, within the lead,
//     not at the deadline (exec.ClaimRunner): the dispatcher sleeps out the
//     lead and fires the task at its deadline, so the hand-off's wake-up is
//     no longer between deadline and body (results/bench/experiments/README.md, claim).
//     A cancel within the lead still keeps the body from running.
//
// Every exec.Timer, the shared designs' timer threads included, uses the
// same leader discipline: only the leader is ever in a timed wait.
//
// # Leases and tasks
//
// A coordinator holds one Lease per (job, pipeline). Schedule never
// returns nil: after Close it returns an already-cancelled Task that never
// runs, and Close itself cancels every task still outstanding on any
// lease, so that every task settles (ran, cancelled, or rejected after
// close). CancelAll cancels this lease's outstanding tasks only, and the
// lease stays usable (a coordinator restored after a failover schedules on
// it again).
//
// A Task is a future. Cancel is idempotent (true once, then false). A
// cancel that wins before the timer fires guarantees the body never reaches
// the dispatch pool. Once the task is handed off, cancellation is
// best-effort: a cancel that lands after the dispatch thread checked the
// flag lets the body run once (Stats.RanAfterCancel counts it). Bodies must
// therefore re-validate their own state (the coordinator's trigger re-checks
// under its lock; the watchdog re-checks "still pending", and the expiry is
// fenced by generation). A settled task removes itself from its lease after
// its body's side effects, so a running body is still reachable by
// CancelAll.
//
// A body that fails (returns an error or panics) completes its task with
// that failure and is logged with its job and pipeline. With TaskFailure
// "recover" (the final design) the dispatch thread keeps serving; with
// "kill-worker" (the PR-B re-throw, hazard H3) the failure is re-raised and
// kills the worker thread, which the pool replaces.
//
// # Locks
//
// Each lease has one lock ("sched.lease") guarding its outstanding set and
// its tasks' timer handles. It is a leaf: no other lock is taken while it
// is held, and it is never held while a body runs.
package sched
