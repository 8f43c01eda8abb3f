package oracle

import (
	"time"

	"github.com/ckptsim/ckptsim/workloads/cluster"
)

// Idle holds the checks of idle-task closing, judged from what the
// harness's simulated tasks did and saw at the transport and what storage
// returned: idle-close-uncommitted (a task told to close by a completion
// that names it must have asked to close, acknowledged that checkpoint's
// barrier preparing it to close, and the checkpoint must be stored) and
// barrier-to-closed-task (no barrier is sent to a task after it closed).
// finish-before-close is Finish's.
type Idle struct {
	f     *Findings
	Tasks int // tasks per pipeline (0: stored-without-task off)
	now   func() time.Duration
	pipes map[cluster.PipelineID]*idlePipe
}

type idlePipe struct {
	asked    map[int]bool           // tasks that asked to close (ObsAskClose)
	prepared map[int]map[int64]bool // task -> ids of barriers preparing it that it acknowledged
	stored   map[int64]bool         // ids Storage.Store returned durable
	closedBy map[int]int64          // task -> the checkpoint that closed it (ObsTaskClosed)
	reported map[int]bool           // tasks a barrier-to-closed-task finding named
	acked    map[int64]map[int]bool // checkpoint id -> the tasks that acknowledged it
}

// NewIdle returns the idle-closing checks, reporting to f.
func NewIdle(f *Findings, now func() time.Duration) *Idle {
	return &Idle{f: f, now: now, pipes: map[cluster.PipelineID]*idlePipe{}}
}

// Attach subscribes to the cluster's boundary observations (before Start).
func (it *Idle) Attach(c View) { c.OnBoundary(it.Observe) }

func (it *Idle) pipe(job int64, pipeline int) *idlePipe {
	k := cluster.PipelineID{Job: job, Pipeline: pipeline}
	p, ok := it.pipes[k]
	if !ok {
		p = &idlePipe{asked: map[int]bool{}, prepared: map[int]map[int64]bool{}, stored: map[int64]bool{},
			closedBy: map[int]int64{}, reported: map[int]bool{}, acked: map[int64]map[int]bool{}}
		it.pipes[k] = p
	}
	return p
}

// Observe takes one boundary observation.
func (it *Idle) Observe(o cluster.Obs) {
	if o.Pipeline < 0 {
		return
	}
	switch o.Kind {
	case cluster.ObsAskClose:
		it.pipe(o.Job, o.Pipeline).asked[o.Task] = true
	case cluster.ObsAck:
		if !o.Final {
			p := it.pipe(o.Job, o.Pipeline)
			if p.acked[o.ID] == nil {
				p.acked[o.ID] = map[int]bool{}
			}
			p.acked[o.ID][o.Task] = true
		}
		if o.Prepares {
			p := it.pipe(o.Job, o.Pipeline)
			if p.prepared[o.Task] == nil {
				p.prepared[o.Task] = map[int64]bool{}
			}
			p.prepared[o.Task][o.ID] = true
		}
	case cluster.ObsStoreBegin:
		it.coverage(o)
	case cluster.ObsStored:
		it.pipe(o.Job, o.Pipeline).stored[o.ID] = true
	case cluster.ObsNotified:
		p := it.pipe(o.Job, o.Pipeline)
		if _, closed := p.closedBy[o.Task]; o.Closes && !o.Final && !closed {
			asked, prepared, stored := p.asked[o.Task], p.prepared[o.Task][o.ID], p.stored[o.ID]
			if !asked || !prepared || !stored {
				it.f.Add(IdleCloseUncommitted, it.now(), Subject(o.Job, o.Pipeline),
					"task %d told to close by checkpoint %d (asked to close %v, acknowledged a barrier of it preparing it to close %v, stored %v)",
					o.Task, o.ID, asked, prepared, stored)
			}
		}
	case cluster.ObsTaskClosed:
		p := it.pipe(o.Job, o.Pipeline)
		if _, ok := p.closedBy[o.Task]; !ok {
			p.closedBy[o.Task] = o.ID
		}
	case cluster.ObsBarrier:
		p := it.pipe(o.Job, o.Pipeline)
		if by, closed := p.closedBy[o.Task]; closed && !p.reported[o.Task] {
			p.reported[o.Task] = true
			it.f.Add(BarrierToClosed, it.now(), Subject(o.Job, o.Pipeline),
				"barrier %d sent to task %d, closed by checkpoint %d", o.ID, o.Task, by)
		}
	}
}

// coverage is stored-without-task: a checkpoint whose store begins must
// have been acknowledged by every task of its pipeline that may still be
// open: every task but those the harness's tasks closed (a completion
// notice named them) and those that asked to close and acknowledged a
// barrier preparing them to close of a checkpoint that was stored (closed
// as far as core may know, their notice still to come). A task left out
// of a stored checkpoint loses its state on the next restore.
func (it *Idle) coverage(o cluster.Obs) {
	p := it.pipe(o.Job, o.Pipeline)
	if it.Tasks <= 0 {
		return
	}
	var missing []int
	for t := range it.Tasks {
		if p.acked[o.ID][t] {
			continue
		}
		if _, closed := p.closedBy[t]; closed || p.asked[t] && p.preparedStored(t) {
			continue
		}
		missing = append(missing, t)
	}
	if len(missing) > 0 {
		it.f.Add(StoredWithoutTask, it.now(), Subject(o.Job, o.Pipeline),
			"checkpoint %d stored without the acknowledgement of task(s) %v, which no stored checkpoint prepared to close and no completion notice closed", o.ID, missing)
	}
}

// preparedStored reports whether task t acknowledged a barrier preparing
// it to close of a checkpoint that was stored.
func (p *idlePipe) preparedStored(t int) bool {
	for id := range p.prepared[t] {
		if p.stored[id] {
			return true
		}
	}
	return false
}
