package oracle

import (
	"fmt"

	"github.com/ckptsim/ckptsim/workloads/cluster"
)

// The lease checks' self-report, kept in its own file: it is read after
// the run from the scheduler's own account (cluster.Leases.SelfReport), and
// only lease-outstanding, whose feeds say SelfReport, may judge from it
// (TestSelfReportFeedsAreDeclared).

// selfReport records what the scheduler says about itself after the run.
func (k *Lease) selfReport(o cluster.Obs) {
	switch o.Kind {
	case cluster.ObsLeaseDone:
		l := k.lease(o)
		if l.done == nil {
			l.done = map[int64]bool{}
		}
		l.done[o.ID] = true
	case cluster.ObsLeaseOutstanding:
		k.lease(o).outstanding = int(o.ID)
	case cluster.ObsLeasePending:
		k.lease(o).pending(o.ID)
	}
}

// pending is lease-outstanding while the scheduler is open: task seq is
// due, its body has not started and the scheduler does not say a cancel
// won (cluster.Leases.Pending). That is a task late for want of a thread,
// unless the threads that would run it have been free all along: it is
// reported once it has been due, and those threads have run no body, for
// cluster.QuiesceGrace. Such a task is dropped: no timer will fire it,
// and only a later CancelAll or the close would settle it (a per-pipeline
// reset that retired the timer it was armed on without cancelling it).
// The threads are the lease's own with the per-pipeline design
// (PerLeaseThreads), else the scheduler's, shared by every lease.
func (l *lease) pending(seq int64) {
	k := l.k
	t := l.tasks[seq-1]
	if t.started {
		return
	}
	busy, idle := k.busy, k.idleSince
	if k.PerLeaseThreads {
		busy, idle = l.busy, l.idleSince
	}
	now, grace := k.now(), cluster.QuiesceGrace
	if busy > 0 || now-idle < grace || now-t.due < grace {
		return
	}
	l.report(LeaseOutstanding, fmt.Sprintf("open task %d", t.seq),
		"task %d (scheduled at %v, due %v) neither started nor was cancelled by %v, the scheduler open and its threads running no body since %v: dropped",
		t.seq, t.scheduledAt, t.due, now, idle)
}

// Quiesce is lease-outstanding, after the run (the scheduler closed, then
// cluster.QuiesceGrace passed, then the self-report handed over): every task
// settled, by the boundary's account or the scheduler's own (Done), and the
// lease counts no outstanding task.
func (k *Lease) Quiesce() {
	for _, l := range k.leases {
		if l == nil {
			continue
		}
		var open []string
		for _, t := range l.tasks {
			if t.settled() || (l.done[t.seq] && (!t.started || t.ended)) {
				continue
			}
			if len(open) < 5 {
				open = append(open, fmt.Sprintf("task %d (scheduled %v, due %v, started %v)", t.seq, t.scheduledAt, t.due, t.started))
			} else if len(open) == 5 {
				open = append(open, "...")
			}
		}
		if len(open) > 0 || l.outstanding > 0 {
			l.report(LeaseOutstanding, "quiesce", "at quiesce (scheduler closed %v before) tasks never settled %v; Outstanding is %d",
				cluster.QuiesceGrace, open, l.outstanding)
		}
	}
}
