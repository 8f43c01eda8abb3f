package oracle

import (
	"strings"
	"testing"
	"time"
)

// TestBlockedForeverPoolWorkerWithQueuedWork: an executor worker waiting
// for work is idle unless the executor holds more queued tasks than
// workers that can still take them (a lost wake-up); other pool waits stay
// idle.
func TestBlockedForeverPoolWorkerWithQueuedWork(t *testing.T) {
	exe := Blocked{Name: "coordinator-executor-3", WaitOn: "wait on cond of exec.pool", Since: 30 * time.Second}
	disp := Blocked{Name: "checkpoint-dispatcher-1", WaitOn: "wait on cond of exec.pool", Since: 30 * time.Second}
	blocked := []Blocked{exe, disp}
	// 2 threads, 1 waiting: the other (running, or woken) takes 1 queued task.
	if execStuck(1, 2, blocked) || execStuck(0, 1, blocked) {
		t.Fatal("a queued task that a worker not waiting will take is not stuck")
	}
	if !execStuck(1, 1, blocked) || !execStuck(2, 2, blocked) {
		t.Fatal("queued tasks beyond the workers not waiting are stuck")
	}
	if !idleWait(exe, false) || !idleWait(disp, false) || !idleWait(disp, true) {
		t.Fatal("pool waits are idle unless the executor is stuck (and only the executor's)")
	}
	if idleWait(exe, true) {
		t.Fatal("an executor worker waiting while the executor is stuck is not idle")
	}
	if idleWait(Blocked{Name: "savepoint-waiter-0", WaitOn: "wait on cond of coord.future"}, false) {
		t.Fatal("a future wait is never idle")
	}
	// judged: the stuck executor's waiting worker fires, naming the queue;
	// the dispatch pool's idle worker does not; without the executor's
	// report the worker is idle.
	var f Findings
	BlockedThreads(&f, 5*time.Minute, time.Minute, blocked, &ExecutorStats{Queued: 2, Threads: 1})
	got := f.List()
	if len(got) != 1 || got[0].Check != BlockedForever || got[0].Subject != exe.Name ||
		!strings.Contains(got[0].Message, "with 2 tasks queued on its pool, through the whole 4m0s after faults stopped") {
		t.Fatalf("stuck executor: %v", got)
	}
	f = Findings{}
	BlockedThreads(&f, 5*time.Minute, time.Minute, blocked, nil)
	if got := f.List(); len(got) != 0 {
		t.Fatalf("no executor report: %v", got)
	}
}

// TestLockCyclesAndWaitCycle: lock-order reports one cycle per strongly
// connected set of lock classes, in sorted order, and none for a DAG; a
// wait cycle names its threads in order.
func TestLockCyclesAndWaitCycle(t *testing.T) {
	var f Findings
	LockOrderCycles(&f, 0, []LockEdge{{From: "a", To: "b"}, {From: "b", To: "c"}, {From: "a", To: "c"}})
	if got := f.List(); len(got) != 0 {
		t.Fatalf("a DAG: %v", got)
	}
	LockOrderCycles(&f, time.Second, []LockEdge{{From: "b", To: "a", Thread: "t2"}, {From: "a", To: "b", FromSite: "x.go:1", ToSite: "x.go:2", Thread: "t1"},
		{From: "c", To: "d"}, {From: "d", To: "c"}, {From: "e", To: "c"}})
	got := f.List()
	if len(got) != 2 || got[0].Check != LockOrder ||
		got[0].Message != "lock-order cycle:\n  a (x.go:1) then b (x.go:2) by t1\n  b () then a () by t2\n" ||
		!strings.HasPrefix(got[1].Message, "lock-order cycle:\n  c () then d ()") {
		t.Fatalf("two cycles: %q", got)
	}
	f = Findings{}
	WaitCycle(&f, time.Minute, nil)
	WaitCycle(&f, time.Minute, []Blocked{{Name: "x", WaitOn: "lock l1", Since: time.Second}, {Name: "y", WaitOn: "lock l2"}})
	got = f.List()
	if len(got) != 1 || got[0].Message != "lock cycle hit: x (lock l1 since 1s) -> y (lock l2 since 0s) -> x, each waiting for a lock the next holds, until the end of the run" {
		t.Fatalf("wait cycle: %q", got)
	}
}
