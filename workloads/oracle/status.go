package oracle

import (
	"fmt"
	"time"

	"github.com/ckptsim/ckptsim/workloads/cluster"
)

// Status is status-justified: the value a pipeline's status key holds in
// the status store at the end of the run (what the job master and a user
// read) is justified by what the boundary showed. FAILED needs a failure
// reported to the job master (JobMaster.HandleCheckpointError) since the
// pipeline's last restore began: a FAILED that nobody was told of fails
// nothing over, and the pipeline sits in a state its master does not know
// (the audited race where a failure writes FAILED, then finds the
// generation's future ended by a cancel or a finish, and returns without
// a report). CANCELED needs the harness's cancel of the job. (FINISHED
// without the harness finishing the sources is finish-unasked's.) A status
// written within the grace before the end is not judged: its report may
// still be on its way.
type Status struct {
	f     *Findings
	now   func() time.Duration
	pipes map[cluster.PipelineID]*statusPipe
	// cancels: jobs whose cancel the harness began (Manager.Cancel entered), with when
	cancels map[int64]time.Duration
}

type statusPipe struct {
	endAt     time.Duration // the first ending status write (SUSPEND, FINISHED, CANCELED) since the last RUNNING write or restore begun (-1: none)
	endValue  string
	restoring int  // restores of the pipeline in flight (begun, not returned)
	ranSince  bool // a RUNNING write since the oldest restore in flight began
	endInRest bool // the end was written while a restore in flight had not yet written RUNNING
	// afterEnd: ids allocated after the end, not yet judged: judged at
	// their first barrier (ObsBarrier)
	afterEnd   map[int64]endMark
	restoreAt  time.Duration // the last restore's begin (-1: none)
	reportedAt time.Duration // the last failure reported to the job master (-1: none)
	writeAt    time.Duration // the last status write's entry
}

// endMark is the end an id was allocated after.
type endMark struct {
	value     string
	at, alloc time.Duration
}

const (
	failedStatus    = "FAILED"
	canceledStatus  = "CANCELED"
	suspendedStatus = "SUSPEND"
	runningStatus   = "RUNNING"
)

// NewStatus returns status-justified, reporting to f.
func NewStatus(f *Findings, now func() time.Duration) *Status {
	return &Status{f: f, now: now, pipes: map[cluster.PipelineID]*statusPipe{}, cancels: map[int64]time.Duration{}}
}

// Attach subscribes to the cluster's boundary observations (before Start).
func (s *Status) Attach(c View) { c.OnBoundary(s.Observe) }

func (s *Status) pipe(job int64, pipeline int) *statusPipe {
	k := cluster.PipelineID{Job: job, Pipeline: pipeline}
	p, ok := s.pipes[k]
	if !ok {
		p = &statusPipe{restoreAt: -1, reportedAt: -1, writeAt: -1, endAt: -1}
		s.pipes[k] = p
	}
	return p
}

// Observe records restores, failure reports, status writes and cancels.
func (s *Status) Observe(o cluster.Obs) {
	switch o.Kind {
	case cluster.ObsRestoreBegin:
		p := s.pipe(o.Job, o.Pipeline)
		p.restoreAt, p.endAt = s.now(), -1 // a restore begun after the end re-starts the pipeline
		if p.restoring == 0 {
			p.ranSince = false
		}
		p.restoring++
	case cluster.ObsRestoreEnd:
		p := s.pipe(o.Job, o.Pipeline)
		if p.restoring > 0 {
			p.restoring--
		}
		if p.restoring == 0 {
			p.endInRest = false
		}
	case cluster.ObsAllocate:
		p := s.pipe(o.Job, o.Pipeline)
		if p.endAt < 0 || (p.endInRest && p.restoring > 0) {
			// An end written while a restore was in flight and had not
			// written RUNNING yet may precede the generation that restore
			// installs: a whole-job restore reaches its pipelines one
			// after another, and the boundary does not see when (windows
			// seed 160: the job's savepoint ended the old generation at
			// 15.1 s, the whole-job restore begun at 13.7 s installed the
			// next at 27.8 s and a savepoint request took an id in it).
			// Until that restore returns, its ids are not judged.
			break
		}
		if p.afterEnd == nil {
			p.afterEnd = map[int64]endMark{}
		}
		if _, ok := p.afterEnd[o.ID]; !ok {
			p.afterEnd[o.ID] = endMark{value: p.endValue, at: p.endAt, alloc: s.now()}
		}
	case cluster.ObsBarrier:
		// An id allocated after the end is a checkpoint taken once its
		// first barrier goes out. One allocated and then refused takes
		// nothing: a trigger that passed its guards under coord.lock just
		// before the end allocates on the executor after it, and register
		// refuses the checkpoint (cleanup seed 5 under PCT: CANCELED
		// written between the guards and IDCounter.Next).
		p := s.pipe(o.Job, o.Pipeline)
		if m, ok := p.afterEnd[o.ID]; ok {
			delete(p.afterEnd, o.ID)
			s.f.Once(EndedStaysEnded, s.now(), Subject(o.Job, o.Pipeline),
				"checkpoint %d allocated at %v after the status store was told %s at %v, with no restore begun and no RUNNING written since, sent its barrier: an ended generation took a checkpoint",
				o.ID, m.alloc, m.value, m.at)
		}
	case cluster.ObsFailure:
		p := s.pipe(o.Job, o.Pipeline)
		p.reportedAt = s.now()
	case cluster.ObsStatusSet:
		p := s.pipe(o.Job, o.Pipeline)
		p.writeAt = s.now()
		switch o.Value {
		case runningStatus: // a restore's generation begins
			p.endAt, p.endInRest = -1, false
			if p.restoring > 0 {
				p.ranSince = true
			}
		case suspendedStatus, finishedValue, canceledStatus:
			if p.endAt < 0 {
				p.endAt, p.endValue = s.now(), o.Value
				p.endInRest = p.restoring > 0 && !p.ranSince
			}
		}
	case cluster.ObsCallIn:
		if o.Value == "Manager.Cancel" {
			if _, ok := s.cancels[o.Job]; !ok {
				s.cancels[o.Job] = s.now()
			}
		}
	}
}

// Judge judges each pipeline's status at the end of the run (Pipe.Status:
// the store's value then); a status written after cutoff is left alone.
func (s *Status) Judge(pipes []Pipe, cutoff time.Duration) {
	for _, q := range pipes {
		p := s.pipe(q.Job, q.Pipeline)
		if p.writeAt > cutoff {
			continue
		}
		subj := Subject(q.Job, q.Pipeline)
		cancel, canceled := s.cancels[q.Job]
		switch q.Status {
		case failedStatus:
			if p.reportedAt >= 0 && p.reportedAt >= p.restoreAt {
				continue
			}
			since := "in the whole run"
			if p.restoreAt >= 0 {
				since = fmt.Sprintf("since its last restore began at %v", p.restoreAt)
			}
			also := ""
			if canceled {
				also = fmt.Sprintf("; the harness canceled its job at %v", cancel)
			}
			s.f.Once(StatusJustified, s.now(), subj,
				"the status store ends FAILED (written at %v), but no failure was reported to the job master %s%s: the store and the master disagree, and nothing fails the pipeline over",
				p.writeAt, since, also)
		case canceledStatus:
			if !canceled {
				s.f.Once(StatusJustified, s.now(), subj, "the status store ends CANCELED (written at %v), but the harness never canceled the job", p.writeAt)
			}
		}
	}
}
