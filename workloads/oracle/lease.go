package oracle

import (
	"fmt"
	"strings"
	"time"

	"github.com/ckptsim/ckptsim/workloads/cluster"
)

// Lease holds the scheduler-contract checks (issue 13 item 3):
// lease-cancel-effect, lease-cancel-before-due, lease-outstanding and
// lease-trigger-chains. They judge from the lease decorator's observations
// (cluster.Leases: Schedule, Cancel and CancelAll calls and their results,
// each body's start and end and its simulated thread), the entry of every
// boundary call (cluster.ObsCall) and virtual time; lease-outstanding also
// from what the scheduler says about itself after the run (ObsLeaseDone,
// ObsLeaseOutstanding), its self-report. It also keeps what latency-bound
// and worker-died read of the leases: each body's scheduling delay and due
// time, and when the last body each thread ran returned.
type Lease struct {
	f       *Findings
	now     func() time.Duration
	leases  []*lease             // by lease number - 1
	running map[int32]*leaseTask // simulated thread id -> the body it runs
	slab    []leaseTask          // tasks are carved from chunks: one allocation per chunk

	// Delays are the scheduling delays (due to body start) of every body
	// that started, not after a cancel that won; Dues the due time of each,
	// same order. BodyEnds maps each thread that ran a body to when the last
	// one it ran returned.
	Delays   []time.Duration
	Dues     []time.Duration
	BodyEnds map[int32]time.Duration

	// PerLeaseThreads: each lease has threads of its own (the per-pipeline
	// design), so a lease's due task waits only for its own bodies; else
	// the threads are shared by every lease. busy counts the bodies
	// running, idleSince is when the last one returned (lease_selfreport.go).
	PerLeaseThreads bool
	busy            int
	idleSince       time.Duration
}

// NewLease returns the lease checks, reporting to f.
func NewLease(f *Findings, now func() time.Duration) *Lease {
	return &Lease{f: f, now: now, running: map[int32]*leaseTask{}, BodyEnds: map[int32]time.Duration{}}
}

// Attach subscribes the checks to a cluster's lease observations.
func (k *Lease) Attach(c View) { c.OnLease(k.Observe) }

type lease struct {
	k        *Lease
	job      int64
	pipeline int
	tasks    []*leaseTask // by sequence number - 1
	live     []*leaseTask // not settled; settled tasks are dropped by sweep
	// returned counts the Schedule calls that returned; each task records
	// its count (ret) as it does, so that CancelAll knows which tasks were
	// scheduled before it was called. upto is that count when each
	// CancelAll in flight was called, by calling thread; begun and ended
	// count CancelAll calls.
	returned     int
	upto         map[int32]int
	begun, ended int
	chains       int
	busy         int            // bodies of the lease running
	idleSince    time.Duration  // when the lease's last running body returned
	done         map[int64]bool // the scheduler's Done, by task (lease_selfreport.go)
	outstanding  int            // the lease's Outstanding (lease_selfreport.go)
	reported     map[string]bool
}

type leaseTask struct {
	l    *lease
	seq  int64
	ret  int // the lease's returned count when its Schedule returned
	prev *leaseTask
	// endedAt is the lease's count of returned CancelAlls when Schedule
	// was called: a CancelAll that began before Schedule returned and
	// returned after that may have cancelled the task in the scheduler
	// without the boundary saying so (overlap).
	endedAt int
	chain   int
	// rootThread is set on a chain's first task: the thread that scheduled
	// it (the chain's root, formatted only into a finding's message).
	rootThread  string
	periodic    bool // its chain was re-armed by a body
	overlap     bool // its Schedule was in flight while a CancelAll ran: maybe cancelled
	scheduledAt time.Duration
	due         time.Duration
	cancelled   bool // a Cancel returned true or a CancelAll returned after Schedule
	cancelledAt time.Duration
	started     bool
	startedAt   time.Duration
	// cancelledAtStart: a cancel had won when the body started (best-effort
	// after the hand-off: the body must then do nothing).
	cancelledAtStart bool
	ended            bool
	reported         bool
}

// settled, as far as the boundary saw: the body ended, or a cancel won
// before it started. (A task the scheduler rejects on its own is judged at
// quiesce, through its self-report.)
func (t *leaseTask) settled() bool { return t.ended || (t.cancelled && !t.started) }

func (k *Lease) newTask() *leaseTask {
	if len(k.slab) == cap(k.slab) {
		k.slab = make([]leaseTask, 0, 256)
	}
	k.slab = k.slab[:len(k.slab)+1]
	return &k.slab[len(k.slab)-1]
}

func (k *Lease) lease(o cluster.Obs) *lease {
	for len(k.leases) < o.Lease {
		k.leases = append(k.leases, nil)
	}
	l := k.leases[o.Lease-1]
	if l == nil {
		l = &lease{k: k, job: o.Job, pipeline: o.Pipeline}
		k.leases[o.Lease-1] = l
	}
	return l
}

// Observe records one lease observation (and ObsCancelAll).
func (k *Lease) Observe(o cluster.Obs) {
	switch o.Kind {
	case cluster.ObsCall:
		k.effect(o.Thread, o.Value)
	case cluster.ObsLeaseSchedule:
		k.effect(o.Thread, "Lease.Schedule")
		k.lease(o).schedule(o)
	case cluster.ObsLeaseScheduled:
		k.lease(o).scheduled(o.ID)
	case cluster.ObsLeaseCancel:
		l := k.lease(o)
		if t := l.tasks[o.ID-1]; !t.cancelled {
			t.cancelled, t.cancelledAt = true, k.now()
		}
	case cluster.ObsCancelAllBegin:
		k.effect(o.Thread, "Lease.CancelAll")
		l := k.lease(o)
		if l.upto == nil {
			l.upto = map[int32]int{}
		}
		l.upto[o.Thread] = l.returned
		l.begun++
	case cluster.ObsCancelAll:
		k.lease(o).cancelAll(o.Thread)
	case cluster.ObsBodyStart:
		k.lease(o).start(k.lease(o).tasks[o.ID-1], o.Thread)
	case cluster.ObsBodyEnd:
		k.end(k.lease(o).tasks[o.ID-1], o.Thread)
	default:
		k.selfReport(o) // lease_selfreport.go
	}
}

// effect is judged at the entry of every boundary call: a body that
// started after its cancel won must not make one.
func (k *Lease) effect(thread int32, what string) {
	t := k.running[thread]
	if t == nil || !t.cancelledAtStart || t.reported {
		return
	}
	t.reported = true
	k.f.Add(LeaseCancelEffect, k.now(), Subject(t.l.job, t.l.pipeline),
		"task %d (scheduled at %v, due %v) was cancelled at %v and started at %v, then called %s",
		t.seq, t.scheduledAt, t.due, t.cancelledAt, t.startedAt, what)
}

func (l *lease) schedule(o cluster.Obs) {
	now := l.k.now()
	t := l.k.newTask()
	t.l, t.seq, t.scheduledAt, t.due, t.endedAt = l, o.ID, now, now+max(o.Delay, 0), l.ended
	l.tasks = append(l.tasks, t)
	if parent := l.k.running[o.Thread]; parent != nil && parent.l == l {
		t.chain, t.periodic = parent.chain, true
		l.markPeriodic(parent.chain)
		return
	}
	l.chains++
	t.chain = l.chains
	t.rootThread = o.ThreadName
	if o.ThreadName == "fault-schema-change" || strings.HasPrefix(o.ThreadName, "source-end") {
		// Started by a call the harness drove: its schema change, or the
		// end of a bounded pipeline's sources (the COMPLETED_POINT trigger
		// and its retries). Never the periodic chain.
		t.chain = -t.chain
	}
}

// scheduled is the return of task seq's Schedule. A CancelAll that was in
// flight at some point of the Schedule call (begun before the return,
// returned after the call) may have cancelled the task in the scheduler,
// or not: the scheduler registers the task at a point of the call the
// boundary cannot see. CancelAll's own account (the tasks whose Schedule
// returned before it was called) leaves such a task out, and its later
// Cancel returns false if the scheduler did cancel it. So the task is
// neither counted cancelled (no lease-cancel-* finding rests on it) nor
// live (lease-trigger-chains does not count it; were it live, its body
// re-arms and the next task counts). Counted live, it reported a restore's
// new chain as a second one although the scheduler had cancelled the old
// (BUGGIFY rearm-races-cancel, savepoint-storm seeds 5800036, 5800122,
// 5800161 and 5800269).
func (l *lease) scheduled(seq int64) {
	t := l.tasks[seq-1]
	l.returned++
	t.ret = l.returned
	if l.begun > t.endedAt {
		t.overlap = true
	}
	l.live = append(l.live, t)
	l.checkChains()
}

func (l *lease) markPeriodic(chain int) {
	if chain < 0 {
		return
	}
	for _, o := range l.live {
		if o.chain == chain {
			o.periodic = true
		}
	}
}

// start records a body's start on thread (and judges a start after a
// cancel before the due time).
func (l *lease) start(t *leaseTask, thread int32) {
	k := l.k
	t.started, t.startedAt, t.cancelledAtStart = true, k.now(), t.cancelled
	if !t.cancelled {
		k.Delays = append(k.Delays, t.startedAt-t.due)
		k.Dues = append(k.Dues, t.due)
	}
	if t.cancelled && t.cancelledAt < t.due {
		l.report(LeaseCancelBeforeDue, fmt.Sprintf("task %d", t.seq),
			"task %d (scheduled at %v, due %v) was cancelled at %v, before it was due, and its body started at %v",
			t.seq, t.scheduledAt, t.due, t.cancelledAt, t.startedAt)
	}
	t.prev = k.running[thread]
	k.running[thread] = t
	l.busy++
	k.busy++
}

func (k *Lease) end(t *leaseTask, thread int32) {
	t.ended = true
	now := k.now()
	k.BodyEnds[thread] = now
	if t.l.busy--; t.l.busy == 0 {
		t.l.idleSince = now
	}
	if k.busy--; k.busy == 0 {
		k.idleSince = now
	}
	if t.prev != nil {
		k.running[thread] = t.prev
	} else {
		delete(k.running, thread)
	}
}

// cancelAll is CancelAll's return: the tasks whose Schedule returned before
// it was called on this thread (the live ones with a returned count up to
// its upto) and had not
// started are cancelled. A task another thread schedules while the inner
// CancelAll runs returns after it, even one whose Schedule began before
// (numbered before CancelAll, it was marked cancelled although the scheduler
// had not registered it when CancelAll took its snapshot: a false
// lease-cancel-before-due on saturation seed 5300287 with BUGGIFY on): see
// scheduled. One swept from the live list meanwhile has settled, and so has
// started or been cancelled.
func (l *lease) cancelAll(thread int32) {
	now := l.k.now()
	upto := l.upto[thread]
	delete(l.upto, thread)
	l.ended++
	for _, t := range l.live {
		if t.ret <= upto && !t.cancelled && !t.started {
			t.cancelled, t.cancelledAt = true, now
		}
	}
	l.sweep()
}

func (l *lease) report(check, key, format string, args ...any) {
	if l.reported == nil {
		l.reported = map[string]bool{}
	}
	if l.reported[check+key] {
		return
	}
	l.reported[check+key] = true
	l.k.f.Add(check, l.k.now(), Subject(l.job, l.pipeline), format, args...)
}

// sweep drops settled tasks from the live list.
func (l *lease) sweep() {
	live := l.live[:0]
	for _, t := range l.live {
		if !t.settled() {
			live = append(live, t)
		}
	}
	clear(l.live[len(live):])
	l.live = live
}

// livePeriodic reports whether t keeps a periodic chain live.
func (t *leaseTask) livePeriodic() bool {
	return t.periodic && t.chain > 0 && !t.cancelled && !t.started && !t.overlap
}

// checkChains counts live periodic chains. The common case, at most one,
// is found without building the list of chains.
func (l *lease) checkChains() {
	l.sweep()
	one := 0
	for _, t := range l.live {
		if !t.livePeriodic() || t.chain == one {
			continue
		}
		if one == 0 {
			one = t.chain
			continue
		}
		l.reportChains()
		return
	}
}

// reportChains reports the live periodic chains, more than one.
func (l *lease) reportChains() {
	var chains []int
	for _, t := range l.live {
		if t.livePeriodic() && (len(chains) == 0 || chains[len(chains)-1] != t.chain) {
			chains = appendUnique(chains, t.chain)
		}
	}
	if len(chains) > 1 {
		var from []string
		for _, c := range chains {
			from = append(from, fmt.Sprintf("chain %d from %s", c, l.root(c)))
		}
		l.report(LeaseTriggerChains, fmt.Sprint(chains), "%d live periodic trigger chains (at most one per pipeline): %s",
			len(chains), strings.Join(from, ", "))
	}
}

// root is where chain c started ("thread at virtual time"): its first
// task's scheduling.
func (l *lease) root(c int) string {
	for _, t := range l.tasks {
		if t.chain == c || t.chain == -c {
			return fmt.Sprintf("%s at %v", t.rootThread, t.scheduledAt)
		}
	}
	return "?"
}

func appendUnique(s []int, v int) []int {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}
