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
	}
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
