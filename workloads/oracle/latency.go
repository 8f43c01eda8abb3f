package oracle

import (
	"time"

	"github.com/ckptsim/ckptsim/workloads/cluster"
)

// Latency measures latency-bound's checkpoint series at the boundary, not
// from the coordinator's own events: trigger to complete runs from the
// first barrier of a checkpoint (Transport.TriggerBarrier entered) to the
// return of its durable Storage.Store (ObsStored); failover to first runs
// from each restore the harness drove (Coordinator.Restore called; for a
// redeploy, its last READY_START report) to the pipeline's next durable
// store. A checkpoint that is never stored (a
// savepoint written to the savepoint store, a COMPLETED_POINT, an aborted
// one) gives no trigger-to-complete sample.
type Latency struct {
	now   func() time.Duration
	pipes map[cluster.PipelineID]*latencyPipe
	// TriggerToComplete and FailoverToFirst are the samples, in the
	// order they were taken.
	TriggerToComplete, FailoverToFirst []time.Duration
}

type latencyPipe struct {
	sent       map[int64]time.Duration // checkpoint id -> its first barrier
	restoredAt time.Duration
	awaitFirst bool
}

// NewLatency returns an empty set of series.
func NewLatency(now func() time.Duration) *Latency {
	return &Latency{now: now, pipes: map[cluster.PipelineID]*latencyPipe{}}
}

// Attach subscribes to the cluster's boundary observations (before Start).
func (l *Latency) Attach(c View) { c.OnBoundary(l.Observe) }

func (l *Latency) pipe(job int64, pipeline int) *latencyPipe {
	k := cluster.PipelineID{Job: job, Pipeline: pipeline}
	p, ok := l.pipes[k]
	if !ok {
		p = &latencyPipe{sent: map[int64]time.Duration{}}
		l.pipes[k] = p
	}
	return p
}

// Observe takes one boundary observation.
func (l *Latency) Observe(o cluster.Obs) {
	switch o.Kind {
	case cluster.ObsBarrier:
		p := l.pipe(o.Job, o.Pipeline)
		if _, ok := p.sent[o.ID]; !ok {
			p.sent[o.ID] = l.now()
		}
	case cluster.ObsStored:
		p, now := l.pipe(o.Job, o.Pipeline), l.now()
		if at, ok := p.sent[o.ID]; ok {
			l.TriggerToComplete = append(l.TriggerToComplete, now-at)
			delete(p.sent, o.ID)
		}
		if p.awaitFirst {
			l.FailoverToFirst = append(l.FailoverToFirst, now-p.restoredAt)
			p.awaitFirst = false
		}
	case cluster.ObsRestoreBegin:
		// Each restore starts its own sample (the bound derives one
		// restore's latency); a restore that follows another before a
		// store drops the earlier sample, as a restore's first checkpoint
		// that expires does. A redeploy's sample starts at its last
		// READY_START instead (its tasks' reports come first).
		p := l.pipe(o.Job, o.Pipeline)
		p.restoredAt, p.awaitFirst = l.now(), !o.Redeploy
		clear(p.sent)
	case cluster.ObsTaskReport:
		if o.Value == cluster.ReportLastReadyStart {
			p := l.pipe(o.Job, o.Pipeline)
			p.restoredAt, p.awaitFirst = l.now(), true
		}
	}
}
