package oracle

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// blocked-forever: no thread stays blocked without a deadline through the
// whole liveness phase, outside the idle waits. It judges from the threads
// the simulator found blocked at the end of the run and, to tell a
// coordinator-executor worker with queued work from an idle one, from the
// executor's own count of its queued tasks and threads (ExecutorStats,
// which the pool computes about itself: a self-report, declared).

// ExecutorStats is what the coordinator executor reports about itself
// after the run (exec.Pool.Stats): the tasks it holds queued and its
// threads.
type ExecutorStats struct {
	Queued, Threads int
}

// idleWaits are the untimed waits a thread may rest in at the end of a
// run: an idle pool worker or timer thread with nothing to do, and the
// harness's own pipeline runtimes waiting for events.
var idleWaits = []string{poolWait, "wait on cond of exec.timer", "wait on cond of sim.pipeline"}

const poolWait = "wait on cond of exec.pool"

const executorRole = "coordinator-executor-"

// execStuck reports whether the coordinator executor holds queued tasks
// that no worker will take: more than its workers that are not blocked in
// its wait for work (a worker running a task, starting, or woken and not
// yet run comes back for one). Its core workers wait without a deadline,
// so such tasks wait forever: a lost wake-up.
func execStuck(queued, threads int, blocked []Blocked) bool {
	waiting := 0
	for _, b := range blocked {
		if b.WaitOn == poolWait && strings.HasPrefix(b.Name, executorRole) {
			waiting++
		}
	}
	return queued > 0 && queued > threads-waiting
}

// idleWait reports whether b rests in an idle wait. A coordinator-executor
// worker waiting for work while the executor is stuck (execStuck) is not
// idle. The dispatch pool is closed by the end of a run, and its idle
// workers wait with the keep-alive as deadline.
func idleWait(b Blocked, stuck bool) bool {
	if b.WaitOn == poolWait && stuck && strings.HasPrefix(b.Name, executorRole) {
		return false
	}
	return slices.Contains(idleWaits, b.WaitOn)
}

// BlockedThreads reports blocked-forever for every thread of blocked (the
// simulator's, at end, the end of the run) that blocked no later than
// healAt, when the harness stopped its faults, outside an idle wait. exec
// is the coordinator executor's report about itself (nil: no executor).
func BlockedThreads(f *Findings, at, healAt time.Duration, blocked []Blocked, exec *ExecutorStats) {
	queued, stuck := 0, false
	if exec != nil {
		queued, stuck = exec.Queued, execStuck(exec.Queued, exec.Threads, blocked)
	}
	for _, b := range blocked {
		if b.Since > healAt || idleWait(b, stuck) {
			continue
		}
		extra := ""
		if stuck && b.WaitOn == poolWait {
			extra = fmt.Sprintf(" with %d tasks queued on its pool", queued)
		}
		f.Add(BlockedForever, at, b.Name, "blocked since %v (%s)%s, through the whole %v after faults stopped",
			b.Since, b.WaitOn, extra, at-healAt)
	}
}
