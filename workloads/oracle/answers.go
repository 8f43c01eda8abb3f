package oracle

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/ckptsim/ckptsim/workloads/cluster"
)

// Answers is calls-answered: every call the harness made into core
// (cluster.Cluster.Into: restores, cancels, acknowledgements, task
// reports, savepoint requests, schema changes, ready-to-close reports) is
// answered by the time the run is quiet. A synchronous call is answered
// when it returns; a savepoint request when the future the harness holds
// resolves. Its evidence is the harness's own record of its calls
// (cluster.ObsCallIn, ObsCallOut) and virtual time, nothing core says
// about itself.
//
// A periodic checkpoint that a clean aborts leaves no mark at the
// boundary (core, as SeaTunnel, tells its tasks nothing of an abort), so
// a pending checkpoint that core lost instead of aborting is judged here
// through the futures of the harness's calls that wait for it: a
// savepoint request, whose pipelines' savepoints are pending checkpoints.
type Answers struct {
	f    *Findings
	now  func() time.Duration
	open map[int64]callIn // call number -> the call, until answered
}

type callIn struct {
	what     string
	job      int64
	pipeline int
	at       time.Duration
	thread   int32
}

// NewAnswers returns calls-answered, reporting to f.
func NewAnswers(f *Findings, now func() time.Duration) *Answers {
	return &Answers{f: f, now: now, open: map[int64]callIn{}}
}

// Attach subscribes to the cluster's boundary observations (before Start).
func (a *Answers) Attach(c View) { c.OnBoundary(a.Observe) }

// Observe records a call into core and its answer.
func (a *Answers) Observe(o cluster.Obs) {
	switch o.Kind {
	case cluster.ObsCallIn:
		a.open[o.Call] = callIn{what: o.Value, job: o.Job, pipeline: o.Pipeline, at: a.now(), thread: o.Thread}
	case cluster.ObsCallOut:
		delete(a.open, o.Call)
	}
}

// Judge reports every call made at or before cutoff that has no answer at
// end (the end of the run): cutoff leaves the calls made just before the
// end the time to return.
func (a *Answers) Judge(end, cutoff time.Duration) {
	for _, n := range slices.Sorted(maps.Keys(a.open)) {
		c := a.open[n]
		if c.at > cutoff {
			continue
		}
		subject := fmt.Sprintf("job %d", c.job)
		if c.pipeline >= 0 {
			subject = fmt.Sprintf("job %d pipeline %d", c.job, c.pipeline)
		}
		a.f.Add(CallsAnswered, end, subject, "%s (call %d, made at %v on thread %d) was never answered: %v later, at the end of the run, it had neither returned nor resolved the future the harness holds",
			c.what, n, c.at, c.thread, end-c.at)
	}
}
