package oracle

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/ckptsim/ckptsim/workloads/cluster"
)

// Progress holds the liveness checks checkpoint-progress and
// bounded-finish. Which pipelines must stay alive comes from the harness's
// intent, never from what core writes about itself: a pipeline whose
// sources the harness did not finish must keep storing checkpoints,
// whatever its status says (a pipeline that tells the status store
// FINISHED on its own is not excused), and one it finished must end
// FINISHED. Both judge from the checkpoints Storage.Store returned durable
// (cluster.ObsStored), per pipeline, with the virtual time of the return;
// the value the simulated status store holds for a pipeline at the end of
// the run (the harness's own store, read without a scheduling point); the
// time the harness stopped its faults; and virtual time. No coordinator
// event (EvCompleted, EvFinished) enters the verdict.
//
// A pipeline the harness canceled (cluster.ObsCanceled: its job's
// Manager.Cancel returned) is exempt from both, as one whose sources it
// finished is from checkpoint-progress, and cancel-stops holds it to the
// cancel: no checkpoint id is allocated for it (IDCounter.Next returns,
// ObsAllocate) after its cancel returned.
//
// A redeploy the harness drove (cluster.RedeployPipeline) is held to its
// intent at once, not only after faults stop: once its last READY_START
// is reported (cluster.ObsTaskReport), the pipeline must trigger a
// checkpoint (IDCounter.Next returns, ObsAllocate) within RedeployWithin,
// unless something else takes the pipeline over within that time: a
// restore the harness drove (ObsRestoreBegin, another redeploy included),
// a failure notification (ObsFailure), a step-down, the job's cancel or
// the end of its sources (checkpoint-progress). One of them later does
// not excuse it: the pipeline had already failed to start.
type Progress struct {
	f        *Findings
	now      func() time.Duration
	stored   map[cluster.PipelineID][]time.Duration // (job, pipeline) -> each durable store's return
	canceled map[cluster.PipelineID]time.Duration   // (job, pipeline) -> when its cancel returned
	// RedeployWithin bounds a redeploy's last READY_START to the
	// pipeline's next trigger (0: not judged).
	RedeployWithin time.Duration
	started        map[cluster.PipelineID]time.Duration // a redeploy's last READY_START, no trigger since
}

// NewProgress returns the progress checks reporting to f.
func NewProgress(f *Findings, now func() time.Duration) *Progress {
	return &Progress{f: f, now: now, stored: map[cluster.PipelineID][]time.Duration{}, canceled: map[cluster.PipelineID]time.Duration{},
		started: map[cluster.PipelineID]time.Duration{}}
}

// Attach subscribes to the cluster's boundary observations (before Start).
func (p *Progress) Attach(c View) { c.OnBoundary(p.Observe) }

// Observe records one boundary observation.
func (p *Progress) Observe(o cluster.Obs) {
	if o.Pipeline < 0 {
		if o.Kind == cluster.ObsFault && o.Fault == cluster.FaultStepDown {
			for k := range p.started { // the step-down fails or restores every pipeline
				p.takenOver(k, "a step-down")
			}
		}
		return
	}
	k := cluster.PipelineID{Job: o.Job, Pipeline: o.Pipeline}
	switch o.Kind {
	case cluster.ObsTaskReport:
		if o.Value == cluster.ReportLastReadyStart {
			p.started[k] = p.now()
		}
	case cluster.ObsRestoreBegin:
		p.takenOver(k, "a restore")
	case cluster.ObsFailure:
		p.takenOver(k, "a failure notification")
	case cluster.ObsSourcesFinished:
		p.takenOver(k, "the end of its sources")
	}
	switch o.Kind {
	case cluster.ObsStored:
		p.stored[k] = append(p.stored[k], p.now())
	case cluster.ObsCanceled:
		p.takenOver(k, "the job's cancel")
		if _, ok := p.canceled[k]; !ok {
			p.canceled[k] = p.now()
		}
	case cluster.ObsAllocate:
		if at, ok := p.started[k]; ok {
			delete(p.started, k)
			p.lateStart(k, at, fmt.Sprintf("its first trigger (checkpoint %d) came %v after", o.ID, p.now()-at))
		}
		if at, ok := p.canceled[k]; ok {
			p.f.Add(CancelStops, p.now(), Subject(o.Job, o.Pipeline), "checkpoint %d allocated after the harness's cancel of the job returned at %v", o.ID, at)
		}
	}
}

// takenOver ends the wait of a redeploy's last READY_START for its first
// trigger: by came first. Within RedeployWithin it excuses the pipeline;
// later, the pipeline had already failed to start.
func (p *Progress) takenOver(k cluster.PipelineID, by string) {
	if at, ok := p.started[k]; ok {
		delete(p.started, k)
		p.lateStart(k, at, fmt.Sprintf("no trigger until %s %v after", by, p.now()-at))
	}
}

// lateStart reports a redeploy's last READY_START at `at` whose pipeline
// did not trigger within RedeployWithin (what: what came instead).
func (p *Progress) lateStart(k cluster.PipelineID, at time.Duration, what string) {
	if p.RedeployWithin <= 0 || p.now()-at <= p.RedeployWithin {
		return
	}
	p.f.Once(CheckpointProgress, p.now(), Subject(k.Job, k.Pipeline), "the last READY_START of a redeploy at %v: %s, "+
		"the redeployed pipeline did not start checkpointing within %v", at, what, p.RedeployWithin)
}

// Restarted judges, at the end of the run, every redeploy whose last
// READY_START is still waiting for its pipeline's first trigger
// (checkpoint-progress; see Progress).
func (p *Progress) Restarted() {
	for _, k := range slices.SortedFunc(maps.Keys(p.started), func(a, b cluster.PipelineID) int {
		return cmp.Or(cmp.Compare(a.Job, b.Job), cmp.Compare(a.Pipeline, b.Pipeline))
	}) {
		p.lateStart(k, p.started[k], "no trigger since, to the end of the run")
	}
}

// Canceled reports whether the harness canceled the pipeline's job.
func (p *Progress) Canceled(job int64, pipeline int) bool {
	_, ok := p.canceled[cluster.PipelineID{Job: job, Pipeline: pipeline}]
	return ok
}

// StoredWithin reports whether a checkpoint of the pipeline was stored
// durably in [from, to].
func (p *Progress) StoredWithin(job int64, pipeline int, from, to time.Duration) bool {
	for _, at := range p.stored[cluster.PipelineID{Job: job, Pipeline: pipeline}] {
		if at >= from && at <= to {
			return true
		}
	}
	return false
}

// Pipe names one pipeline the harness built, with the value its status
// key holds in the simulated status store at the end of the run, and
// whether the harness finished its sources (cluster.ObsSourcesFinished,
// Finish.SourcesFinished): the one thing that allows it to stop.
type Pipe struct {
	Job      int64
	Pipeline int
	Status   string
	Finished bool
	Canceled bool // the harness canceled its job (ObsCanceled)
	// Unclosed are the tasks the boundary never showed closing since the
	// harness finished the sources (Finish.Unclosed): neither told of a
	// final checkpoint they acknowledged nor closed idle.
	Unclosed []int
}

// finishedStatus is the status a pipeline whose final COMPLETED_POINT
// completed leaves in the status store (coord.Finished).
const finishedStatus = finishedValue

// Stalled judges checkpoint-progress: every pipeline whose sources the
// harness did not finish stored a checkpoint durably within
// [healAt, healAt+within]. It returns the stalled pipelines ("job/pipeline",
// sorted) and reports one finding naming up to ten of them.
func (p *Progress) Stalled(pipes []Pipe, healAt, within time.Duration) []Pipe {
	var stuck []Pipe
	for _, q := range pipes {
		if q.Finished || q.Canceled || p.StoredWithin(q.Job, q.Pipeline, healAt, healAt+within) {
			continue
		}
		stuck = append(stuck, q)
	}
	if len(stuck) > 0 {
		p.f.Add(CheckpointProgress, p.now(), "pipelines", "%d pipelines stored no checkpoint in the %v after faults stopped: %s",
			len(stuck), within, names(stuck))
	}
	return stuck
}

// Unfinished judges bounded-finish, from the harness's intent and the
// boundary: every pipeline whose sources the harness finished (and whose
// job it did not cancel) must end with every task closed as the boundary
// saw it (told of a final checkpoint it acknowledged, or closed idle:
// Pipe.Unclosed empty) and with FINISHED in the status store (the status
// the job master reads; a later write may have overwritten it).
func (p *Progress) Unfinished(pipes []Pipe) {
	var open []Pipe
	for _, q := range pipes {
		if q.Finished && !q.Canceled && (q.Status != finishedStatus || len(q.Unclosed) > 0) {
			open = append(open, q)
		}
	}
	if len(open) > 0 {
		p.f.Add(BoundedFinish, p.now(), "pipelines", "%d bounded pipelines did not finish (tasks the boundary never saw close, or the status store not FINISHED at the end): %s",
			len(open), names(open))
	}
}

// names renders up to ten pipelines as "job/pipeline (status)", in the
// order given (the harness lists them job-major).
func names(ps []Pipe) string {
	out := make([]string, 0, len(ps))
	for _, q := range ps {
		st := q.Status
		if st == "" {
			st = "no status"
		}
		if len(q.Unclosed) > 0 {
			st += fmt.Sprintf("; tasks %v never closed", q.Unclosed)
		}
		out = append(out, fmt.Sprintf("%d/%d (%s)", q.Job, q.Pipeline, st))
	}
	if len(out) > 10 {
		out = append(out[:10:10], fmt.Sprintf("... %d more", len(ps)-10))
	}
	s := ""
	for i, n := range out {
		if i > 0 {
			s += ", "
		}
		s += n
	}
	return s
}
