package oracle

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/ckptsim/ckptsim/workloads/cluster"
)

// Causes is fault-surfaces: a fault the harness injected into a live
// generation, of a kind core must fail the generation for on the thread
// that met it (a barrier that cannot be sent, a store or its reply that
// fails, a completion notice that fails, a start notice that fails, an
// id the counter cannot hand out, a trigger path that throws), surfaces as itself: the thread that
// met it writes the pipeline's FAILED status (where a failure begins)
// before the generation is failed for an expiry. A generation whose
// failure notification (JobMaster.HandleCheckpointError, with its reason)
// says CHECKPOINT_EXPIRED while such a fault is open, and the thread that
// met it never began a failure, swallowed the fault and surfaced it as a
// later timeout, which generation-justified accepts (the expiry is a cause
// in the generation).
//
// A fault needs nothing of its own when its generation was already ending
// when it was injected (a restore of the pipeline in flight, a step-down
// window open, the job canceled, a failure in progress: a FAILED write
// since the last restore began) or when it hit a checkpoint allocated
// before the pipeline's last restore returned (maybe of the generation the
// restore replaced: core drops its failure as stale). A failure that
// begins within 10 ms after the fault may be a race the fault's own
// failure lost, and is not judged. When the expiry's notification comes while the
// fault's thread has made no boundary call since the fault, the verdict
// waits for that thread's next call: its FAILED write (it waited for the
// status store's lock the expiry's write held; double-failure seed 9 with
// BUGGIFY on) clears it, any other call or none by the end reports it. A restore that begins, a
// step-down, a cancel, or a failure notification for another reason
// settles every open fault of the pipeline: the generation ended.
// Task error reports are not judged: the report travels from the task,
// and core drops one whose checkpoint is no longer pending, which the
// boundary cannot see.
//
// Its evidence is the harness's own record of the faults it injected
// (ObsFault, with the checkpoint each hit and the thread that met it), the
// restores and cancels it drove, IDCounter.Next returns, the status
// store's FAILED writes and the job master's failure notifications with
// their reasons (boundary).
type Causes struct {
	f     *Findings
	now   func() time.Duration
	pipes map[cluster.PipelineID]*causePipe
	keys  []cluster.PipelineID
	down  bool // a step-down window is open
	// claimed: threads that met an open fault and have made no other
	// boundary call since (release).
	claimed map[int32]bool
	// deferred: faults an expiry's notification found unanswered while the
	// thread that met them had made no boundary call since (it may be
	// waiting for the status store's lock, which the expiry's own write
	// held: its FAILED write then shows the failure it began); judged at
	// that thread's next boundary call, or at the end of the run.
	deferred map[int32][]deferredFault
}

// deferredFault is a finding held until its thread's next boundary call.
type deferredFault struct {
	at      time.Duration
	subject string
	msg     string
}

// surfacing are the fault kinds core must fail the generation for on the
// thread that met them.
var surfacing = []string{cluster.FaultBarrier, cluster.FaultStorage, cluster.FaultReplyLost, cluster.FaultNotify,
	cluster.FaultNotifyStart, cluster.FaultID, cluster.FaultTrigger}

// causeWithin: a failure that begins this soon after a fault may be a
// race the fault's own failure lost; one that begins later, with the
// fault's thread never beginning one, is a timeout that surfaced it. The
// fault's own failure runs on the thread that met it with no sleep before
// its check of the generation's future (a status write held back, by a
// slow store or BUGGIFY status-slow, comes after that check and still
// counts as begun), so only a failure that completed the future by then,
// in the same instant, can have beaten it.
const causeWithin = 10 * time.Millisecond

// expiredReason is the reason of an expiry's failure notification
// (coord.ReasonExpired), as the job master receives it.
const expiredReason = "CHECKPOINT_EXPIRED"

// failedValue is the status value of a failed generation (coord.Failed),
// as the status store receives it.
const failedValue = "FAILED"

type causePipe struct {
	subject     string
	restoring   int
	lastRestore time.Duration
	restoreEnd  time.Duration // the last restore's return
	restored    bool          // a restore began at least once
	canceled    bool
	failing     bool // a FAILED write since the last restore began: a failure in progress
	allocAt     map[int64]time.Duration
	open        []openFault
}

type openFault struct {
	kind      string
	id        int64
	at        time.Duration
	thread    int32
	attempted bool          // the thread that met it wrote FAILED since
	firstFail time.Duration // the first FAILED write (any thread) since it was injected (0: none yet)
}

// release ends the claim of a fault on the thread that met it once that
// thread makes another boundary call: the fault's own failure makes none
// before its FAILED write (a failed store's reconcile listing and the
// deletes it trims aside), and a pooled thread that later runs another
// failure (an expiry) must not count as the fault's.
func (c *Causes) release(o cluster.Obs) {
	switch o.Kind {
	case cluster.ObsListed, cluster.ObsDeleted, cluster.ObsFault, cluster.ObsStoreFailed:
		return
	case cluster.ObsStatusSet:
		if o.Value == failedValue {
			return
		}
	}
	if !c.claimed[o.Thread] {
		return
	}
	delete(c.claimed, o.Thread)
	for _, k := range c.keys {
		q := c.pipes[k]
		for i := range q.open {
			if q.open[i].thread == o.Thread && !q.open[i].attempted {
				q.open[i].thread = -1
			}
		}
	}
}

// NewCauses returns fault-surfaces, reporting to f.
func NewCauses(f *Findings, now func() time.Duration) *Causes {
	return &Causes{f: f, now: now, pipes: map[cluster.PipelineID]*causePipe{}, claimed: map[int32]bool{},
		deferred: map[int32][]deferredFault{}}
}

// settle judges the faults deferred on o's thread: a FAILED write is the
// failure the fault's thread began (it waited for the status store while
// the expiry wrote); any other boundary call but those release ignores
// means it never began one.
func (c *Causes) settle(o cluster.Obs) {
	ds, ok := c.deferred[o.Thread]
	if !ok {
		return
	}
	switch o.Kind {
	case cluster.ObsListed, cluster.ObsDeleted, cluster.ObsFault, cluster.ObsStoreFailed:
		return
	case cluster.ObsStatusSet:
		if o.Value == failedValue {
			delete(c.deferred, o.Thread)
			return
		}
	}
	delete(c.deferred, o.Thread)
	for _, d := range ds {
		c.f.Add(FaultSurfaces, d.at, d.subject, "%s", d.msg)
	}
}

// Finish reports the faults still deferred when the run ended: their
// threads never wrote FAILED.
func (c *Causes) Finish() {
	for _, t := range slices.Sorted(maps.Keys(c.deferred)) {
		for _, d := range c.deferred[t] {
			c.f.Add(FaultSurfaces, d.at, d.subject, "%s", d.msg)
		}
	}
	clear(c.deferred)
}

// Attach subscribes to the cluster's boundary observations (before Start).
func (c *Causes) Attach(v View) { v.OnBoundary(c.Observe) }

func (c *Causes) pipe(job int64, p int) *causePipe {
	k := cluster.PipelineID{Job: job, Pipeline: p}
	q, ok := c.pipes[k]
	if !ok {
		q = &causePipe{subject: Subject(job, p), allocAt: map[int64]time.Duration{}}
		c.pipes[k] = q
		c.keys = append(c.keys, k)
	}
	return q
}

// Observe takes one boundary observation.
func (c *Causes) Observe(o cluster.Obs) {
	now := c.now()
	if o.Pipeline < 0 {
		if o.Kind == cluster.ObsFault {
			switch o.Fault {
			case cluster.FaultStepDown:
				c.down = true
				for _, k := range c.keys {
					c.pipes[k].open = nil
				}
			case cluster.FaultReactivate:
				c.down = false
			}
		}
		return
	}
	q := c.pipe(o.Job, o.Pipeline)
	c.settle(o)
	c.release(o)
	switch o.Kind {
	case cluster.ObsRestoreBegin:
		q.restoring++
		q.lastRestore, q.restored, q.open, q.failing = now, true, nil, false
	case cluster.ObsRestoreEnd:
		q.restoring--
		q.restoreEnd = now
	case cluster.ObsCanceled:
		q.canceled, q.open = true, nil
	case cluster.ObsAllocate:
		q.allocAt[o.ID] = now
	case cluster.ObsStatusSet:
		if o.Value == failedValue {
			q.failing = true
			for i := range q.open {
				if q.open[i].thread == o.Thread {
					q.open[i].attempted = true
				}
				if q.open[i].firstFail == 0 {
					q.open[i].firstFail = now
				}
			}
		}
	case cluster.ObsFailure:
		if o.Value == expiredReason {
			for _, f := range q.open {
				// A failure that began within the bound after the fault
				// may have raced the fault's own and won (the fault's
				// thread then finds the generation ended): not judged.
				if !f.attempted && f.firstFail-f.at > causeWithin {
					msg := fmt.Sprintf("the generation failed for an expiry (its failure began at %v), but the %s fault injected at %v (checkpoint %d) never began a failure on the thread that met it (%d): core swallowed it and a timeout surfaced it",
						f.firstFail, f.kind, f.at, f.id, f.thread)
					if f.thread >= 0 && c.claimed[f.thread] {
						c.deferred[f.thread] = append(c.deferred[f.thread], deferredFault{now, q.subject, msg})
						continue
					}
					c.f.Add(FaultSurfaces, now, q.subject, "%s", msg)
				}
			}
		}
		q.open = nil
	case cluster.ObsFault:
		if !slices.Contains(surfacing, o.Fault) || q.restoring > 0 || c.down || q.canceled || q.failing {
			break // not judged, or the generation is already ending
		}
		if at, ok := q.allocAt[o.ID]; ok && q.restored && at <= q.restoreEnd {
			break // a checkpoint allocated before the last restore returned: maybe of the generation it replaced
		}
		q.open = append(q.open, openFault{kind: o.Fault, id: o.ID, at: now, thread: o.Thread})
		c.claimed[o.Thread] = true
	}
}
