package oracle

import (
	"time"

	"github.com/ckptsim/ckptsim/workloads/cluster"
)

// Finish holds the checks of a pipeline's end, judged from the harness's
// intent and the boundary, never from what the coordinator says about
// itself: finish-unasked (the status store is told FINISHED for a pipeline
// whose sources the harness never finished) and finish-before-close (a
// pipeline the harness finished is told FINISHED before every task either
// acknowledged a final barrier and was told of that final checkpoint, or
// closed as idle).
//
// Its evidence: the harness's own action of finishing a pipeline's sources
// (cluster.ObsSourcesFinished), the status store's writes (ObsStatusSet),
// the acknowledgements the simulated tasks sent (ObsAck), the completion
// notices they received (ObsNotified) and the idle tasks that closed
// (ObsTaskClosed; whether each closed rightly is oracle.Idle's to judge).
type Finish struct {
	f     *Findings
	now   func() time.Duration
	tasks int
	pipes map[cluster.PipelineID]*finishPipe
}

// finishPipe is what the boundary showed of one pipeline's end.
type finishPipe struct {
	sourcesAt  time.Duration
	sources    bool
	finalAcked map[int]map[int64]bool // task -> stamps of the final barriers it acknowledged
	finalTold  map[int]bool           // task -> told of a final checkpoint it acknowledged
	closedIdle map[int]bool           // task -> closed idle (ObsTaskClosed of a non-final checkpoint)
}

// finishedValue is the status value of a pipeline whose final
// COMPLETED_POINT completed (coord.Finished), as the status store sees it.
const finishedValue = "FINISHED"

// NewFinish returns the finish checks for pipelines of tasks tasks,
// reporting to f.
func NewFinish(f *Findings, now func() time.Duration, tasks int) *Finish {
	return &Finish{f: f, now: now, tasks: tasks, pipes: map[cluster.PipelineID]*finishPipe{}}
}

// Attach subscribes to the cluster's boundary observations (before Start).
func (fi *Finish) Attach(c View) { c.OnBoundary(fi.Observe) }

func (fi *Finish) pipe(job int64, pipeline int) *finishPipe {
	k := cluster.PipelineID{Job: job, Pipeline: pipeline}
	p, ok := fi.pipes[k]
	if !ok {
		p = &finishPipe{finalAcked: map[int]map[int64]bool{},
			finalTold: map[int]bool{}, closedIdle: map[int]bool{}}
		fi.pipes[k] = p
	}
	return p
}

// Observe records one boundary observation and judges a FINISHED write.
func (fi *Finish) Observe(o cluster.Obs) {
	switch o.Kind {
	case cluster.ObsSourcesFinished:
		p := fi.pipe(o.Job, o.Pipeline)
		if !p.sources {
			p.sources, p.sourcesAt = true, fi.now()
		}
	case cluster.ObsAck:
		if o.Final {
			p := fi.pipe(o.Job, o.Pipeline)
			if p.finalAcked[o.Task] == nil {
				p.finalAcked[o.Task] = map[int64]bool{}
			}
			p.finalAcked[o.Task][o.Stamp] = true
		}
	case cluster.ObsNotified:
		p := fi.pipe(o.Job, o.Pipeline)
		if o.Final && p.finalAcked[o.Task][o.Stamp] {
			p.finalTold[o.Task] = true
		}
	case cluster.ObsTaskClosed:
		// whether the checkpoint that closed it was stored, and the task
		// asked, is idle-close-uncommitted's (oracle.Idle), not judged twice
		if !o.Final {
			fi.pipe(o.Job, o.Pipeline).closedIdle[o.Task] = true
		}
	case cluster.ObsStatusSet:
		if o.Value == finishedValue {
			fi.finished(o.Job, o.Pipeline)
		}
	}
}

// finished judges a FINISHED write for a pipeline.
func (fi *Finish) finished(job int64, pipeline int) {
	p, subj := fi.pipe(job, pipeline), Subject(job, pipeline)
	if !p.sources {
		fi.f.Once(FinishUnasked, fi.now(), subj,
			"the status store was told FINISHED, but the harness never finished this pipeline's sources: it must stay alive")
		return
	}
	if open := fi.Unclosed(job, pipeline); len(open) > 0 {
		fi.f.Once(FinishBeforeClose, fi.now(), subj,
			"told FINISHED with tasks %v neither acknowledging a final barrier and told of that final checkpoint, nor closed idle (sources finished at %v)",
			open, p.sourcesAt)
	}
}

// Unclosed lists the tasks of a pipeline the boundary never showed closing:
// neither told of a final checkpoint they acknowledged nor closed idle.
func (fi *Finish) Unclosed(job int64, pipeline int) []int {
	p := fi.pipe(job, pipeline)
	var open []int
	for t := range fi.tasks {
		if !p.finalTold[t] && !p.closedIdle[t] {
			open = append(open, t)
		}
	}
	return open
}

// SourcesFinished reports whether the harness finished the pipeline's
// sources, and when.
func (fi *Finish) SourcesFinished(job int64, pipeline int) (time.Duration, bool) {
	p, ok := fi.pipes[cluster.PipelineID{Job: job, Pipeline: pipeline}]
	if !ok || !p.sources {
		return 0, false
	}
	return p.sourcesAt, true
}
