package cluster

import (
	"time"

	"github.com/ckptsim/ckptsim/core/coord"
	"github.com/ckptsim/ckptsim/sim"
)

// QuiesceGrace is how long after the scheduler closes every lease task
// must have settled (the lease-outstanding check reads the leases then).
const QuiesceGrace = 5 * time.Second

// Leases decorates every coordinator's lease and reports, as boundary
// observations, each Schedule call (ObsLeaseSchedule) and its return
// (ObsLeaseScheduled), each Cancel that won (ObsLeaseCancel), each CancelAll
// (ObsCancelAllBegin, ObsCancelAll) and each body's start and end on its
// simulated thread (ObsBodyStart, ObsBodyEnd). It judges nothing: the lease
// checks are workloads/oracle's (lease.go). Simulated threads run one at a
// time and the decorator makes no env call of its own, so it needs no lock
// and adds no scheduling point (trace hashes are unchanged by it).
type Leases struct {
	w       *sim.World
	observe func(Obs)
	all     []*observedLease
	running map[int32]int // simulated thread id -> lease bodies it is running
}

// NewLeases returns a decorator that hands its observations to observe.
func NewLeases(w *sim.World, observe func(Obs)) *Leases {
	return &Leases{w: w, observe: observe, running: map[int32]int{}}
}

// Wrap decorates a coordinator's lease (coord.ManagerDeps.WrapLease).
func (ls *Leases) Wrap(job int64, pipeline int, l coord.Lease) coord.Lease {
	ol := &observedLease{ls: ls, inner: l, job: job, pipeline: pipeline, n: len(ls.all) + 1,
		pending: make([]*observedTask, 0, 32)} // room for a second of tasks: one allocation per lease (the sim benchmarks count allocations per step)
	ls.all = append(ls.all, ol)
	return ol
}

// InBody reports whether the calling simulated thread is running a lease
// task body.
func (ls *Leases) InBody() bool { return ls != nil && ls.running[ls.w.ThreadID()] > 0 }

// SelfReport hands over, after the run (the scheduler closed, QuiesceGrace
// passed), what the scheduler says about itself beyond the lease's
// interface: each task whose Done says true (ObsLeaseDone) and each lease's
// Outstanding count (ObsLeaseOutstanding). Locks are free after the run, so
// reading them adds no scheduling point. Only lease-outstanding reads them.
func (ls *Leases) SelfReport() {
	if ls == nil {
		return
	}
	for _, l := range ls.all {
		for i, t := range l.tasks {
			if d, ok := t.(interface{ Done() bool }); ok && d.Done() {
				ls.observe(l.obs(ObsLeaseDone, int64(i+1)))
			}
		}
		if o, ok := l.inner.(interface{ Outstanding() int }); ok {
			ls.observe(l.obs(ObsLeaseOutstanding, int64(o.Outstanding())))
		}
	}
}

// Pending hands over, while the scheduler is open, each task that is due
// and that neither started its body (as the decorator saw) nor says, by
// the scheduler's own account, that a cancel won (its Cancelled flag):
// ObsLeasePending. Cancelled is an atomic, so reading it adds no
// scheduling point. Only lease-outstanding reads it (a task dropped while
// the scheduler is open: the harness calls Pending once a virtual second
// and before it closes the scheduler).
func (ls *Leases) Pending() {
	if ls == nil {
		return
	}
	now := ls.w.Elapsed()
	for _, l := range ls.all {
		if l.inner.Closed() {
			return // closed: Quiesce and the self-report judge from here
		}
		keep := l.pending[:0]
		for _, t := range l.pending {
			c, ok := t.inner.(interface{ Cancelled() bool })
			if t.started || !ok || c.Cancelled() {
				continue
			}
			keep = append(keep, t)
			if t.due <= now {
				ls.observe(l.obs(ObsLeasePending, t.seq))
			}
		}
		clear(l.pending[len(keep):])
		l.pending = keep
	}
}

// NextDue returns the earliest virtual instant after after at which a
// lease task is due that neither started its body nor was cancelled (by
// the scheduler's own account), and false if there is none or the
// scheduler is closed. Like Pending it reads only the decorator's records
// and atomics: no scheduling point. The harness closes the scheduler at
// that instant (workloads, run.close_at_firing).
func (ls *Leases) NextDue(after time.Duration) (time.Duration, bool) {
	if ls == nil {
		return 0, false
	}
	var next time.Duration
	found := false
	for _, l := range ls.all {
		if l.inner.Closed() {
			return 0, false
		}
		for _, t := range l.pending {
			c, ok := t.inner.(interface{ Cancelled() bool })
			if t.started || !ok || c.Cancelled() || t.due <= after {
				continue
			}
			if !found || t.due < next {
				next, found = t.due, true
			}
		}
	}
	return next, found
}

type observedLease struct {
	ls       *Leases
	inner    coord.Lease
	job      int64
	pipeline int
	n        int                // the lease's number, from 1 in Wrap order
	tasks    []coord.Cancelable // the scheduler's tasks, by sequence number - 1
	pending  []*observedTask    // tasks Pending has not yet seen started or cancelled
}

type observedTask struct {
	l       *observedLease
	inner   coord.Cancelable
	seq     int64
	due     time.Duration // virtual time the task is due
	started bool          // its body started
}

func (l *observedLease) obs(kind ObsKind, id int64) Obs {
	return Obs{Kind: kind, Job: l.job, Pipeline: l.pipeline, Lease: l.n, ID: id}
}

func (l *observedLease) Schedule(delay time.Duration, body func() error) coord.Cancelable {
	t := &observedTask{l: l, seq: int64(len(l.tasks) + 1), due: l.ls.w.Elapsed() + max(delay, 0)}
	l.tasks = append(l.tasks, nil)
	o := l.obs(ObsLeaseSchedule, t.seq)
	o.Delay, o.ThreadName = delay, l.ls.w.ThreadName()
	l.ls.observe(o)
	t.inner = l.inner.Schedule(delay, func() error { return l.run(t, body) })
	l.tasks[t.seq-1] = t.inner
	l.pending = append(l.pending, t)
	l.ls.observe(l.obs(ObsLeaseScheduled, t.seq))
	return t
}

// run wraps a body: its start and end, on the simulated thread running it.
func (l *observedLease) run(t *observedTask, body func() error) error {
	id := l.ls.w.ThreadID()
	t.started = true
	l.ls.observe(l.obs(ObsBodyStart, t.seq))
	l.ls.running[id]++
	defer func() {
		l.ls.running[id]--
		l.ls.observe(l.obs(ObsBodyEnd, t.seq))
	}()
	return body()
}

// Cancel is the decorated task's cancel.
func (t *observedTask) Cancel() bool {
	won := t.inner.Cancel()
	if won {
		t.l.ls.observe(t.l.obs(ObsLeaseCancel, t.seq))
	}
	return won
}

func (l *observedLease) CancelAll() {
	l.ls.observe(l.obs(ObsCancelAllBegin, 0))
	l.inner.CancelAll()
	l.ls.observe(l.obs(ObsCancelAll, 0))
}

func (l *observedLease) Closed() bool { return l.inner.Closed() }
