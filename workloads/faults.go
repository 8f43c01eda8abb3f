package workloads

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/ckptsim/ckptsim/core/coord"
	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/workloads/cluster"
)

// times yields the fault times of a schedule below end, drawn from r.
func times(sc Schedule, end time.Duration, r *rand.Rand) []time.Duration {
	var out []time.Duration
	for _, a := range sc.At {
		if a.D < end {
			out = append(out, a.D)
		}
	}
	if sc.Every.D > 0 {
		for t := sc.Every.D; t < end; t += sc.Every.D {
			out = append(out, t)
		}
	}
	if sc.PerHour > 0 {
		mean := float64(time.Hour) / sc.PerHour
		for t := time.Duration(r.ExpFloat64() * mean); t < end; t += time.Duration(r.ExpFloat64() * mean) {
			out = append(out, t)
		}
	}
	return out
}

// injector runs the scheduled faults of a scenario against a cluster.
type injector struct {
	w *sim.World
	c *cluster.Cluster
	s *Scenario
	f Faults
	r *rand.Rand // sim.StreamInjector: never the cluster's rate-fault stream
	// spr: sim.StreamRedeploySavepoint, made at the first redeploy of a
	// scenario with savepoints (savepointAtRedeploy).
	spr *rand.Rand
	end time.Duration
	sp  *savepoints
	// requests are the savepoints the harness requested, in order.
	requests []*spRequest
}

// spRequest is one savepoint the harness requested and what came back.
type spRequest struct {
	job      int64
	at       time.Duration
	answered bool
	err      error
	// committed: a Commit of the job's savepoint store returned nil
	// between the request and its answer.
	committed bool
}

// start launches one thread per scheduled fault kind (FaultKinds).
func (in *injector) start() {
	for _, k := range faultKinds {
		if k.Shape != ShapeSchedule {
			continue // the cluster draws rate faults itself
		}
		sc := *k.sched(&in.f)
		ts := times(sc, in.end, in.r)
		if len(ts) == 0 {
			continue
		}
		in.w.Go("fault-"+k.thread, func() {
			for _, t := range ts {
				if d := t - in.w.Elapsed(); d > 0 {
					in.w.Sleep(d)
				}
				if in.c.Healed() {
					return
				}
				k.inject(in, sc)
			}
		})
	}
}

func (in *injector) job() *coord.Manager { return in.c.Managers[in.r.IntN(len(in.c.Managers))] }

func (in *injector) failover(sc Schedule) {
	m := in.job()
	in.w.Note("fault: master failover of job %d", m.Job())
	restore := in.c.Restore
	if sc.WholeJob {
		restore = in.c.RestoreJob
	}
	if err := restore(m.Job()); err != nil {
		in.w.Note("restore after failover: %v", err)
	}
}

func (in *injector) stepDown(sc Schedule) {
	d := sc.For.D
	if d <= 0 {
		d = 5 * time.Second
	}
	if sc.Graceful {
		start := in.w.Elapsed()
		grace := d
		if sc.Grace.D > 0 {
			grace = sc.Grace.D
		}
		in.c.StepDownGraceful(grace)
		if left := d - (in.w.Elapsed() - start); left > 0 {
			in.w.Sleep(left)
		}
	} else {
		in.c.StepDown()
		in.w.Sleep(d)
	}
	in.c.Reactivate()
	if sc.KeepCoordinators {
		return
	}
	for _, m := range in.c.Managers {
		if err := in.c.Restore(m.Job()); err != nil {
			in.w.Note("restore after step-down: %v", err)
		}
	}
}

// savepoint triggers a job-wide savepoint; when it commits, the job
// resumes from it (a restore) as an operator would.
func (in *injector) savepoint(Schedule) { in.savepointOf(in.job()) }

// savepointOf triggers a savepoint of job m (see savepoint).
func (in *injector) savepointOf(m *coord.Manager) {
	if in.c.Canceled(m.Job()) {
		in.w.Note("job %d is canceled: no savepoint", m.Job())
		return
	}
	sess := in.sp.begin(m.Job(), in.w.Elapsed())
	in.w.Note("fault: savepoint of job %d", m.Job())
	answer := in.c.Into("Manager.TriggerSavepoint", m.Job(), -1)
	f := m.TriggerSavepoint(sess)
	req := &spRequest{job: m.Job(), at: in.w.Elapsed()}
	in.requests = append(in.requests, req)
	in.w.Go(fmt.Sprintf("savepoint-waiter-%d", m.Job()), func() {
		err, _ := f.Get()
		answer.Give(err)
		req.answered, req.err = true, err // the boundary that requested it saw the outcome
		req.committed = in.sp.committedBetween(m.Job(), req.at, in.w.Elapsed())
		if err != nil {
			in.w.Note("savepoint of job %d failed: %v", m.Job(), err)
		} else {
			in.sp.restoreFrom(m.Job()) // read back what a start from the savepoint loads
		}
		if err := in.c.Restore(m.Job()); err != nil {
			in.w.Note("resume after savepoint: %v", err)
		}
	})
}

// awaitSavepoints waits (polling every 10 ms) until every savepoint
// requested for job has been answered: after a cancel no new one starts
// (savepoint checks Canceled), so the job's savepoint store is then at
// rest but for the reads of a resume (restoreFrom), which a delete only
// makes fail.
func (in *injector) awaitSavepoints(job int64) {
	for slices.ContainsFunc(in.requests, func(q *spRequest) bool { return q.job == job && !q.answered }) {
		in.w.Sleep(10 * time.Millisecond)
	}
}

// masterCrash arms a crash of the master during the next savepoint
// commit: the savepoint file system crashes at a random step of the commit,
// restarts, the store is re-opened and checked (savepoints.recover).
func (in *injector) masterCrash(Schedule) {
	in.w.Note("fault: master crash armed for the next savepoint commit")
	in.sp.armCrash(in.r.IntN(2*in.s.Cluster.Pipelines + 8))
}

// On reports whether the schedule has any time.
func (sc Schedule) On() bool { return len(sc.At) > 0 || sc.Every.D > 0 || sc.PerHour > 0 }

func (in *injector) schemaChange(sc Schedule) {
	m := in.job()
	co := m.Coordinator(in.r.IntN(len(m.Coordinators())))
	answer := in.c.Into("Coordinator.SchemaChangeBefore", co.Job(), co.Pipeline())
	ok := co.SchemaChangeBefore()
	answer.Give(nil)
	if !ok {
		return
	}
	d := sc.For.D
	if d <= 0 {
		d = time.Second
	}
	in.w.Sleep(d)
	answer = in.c.Into("Coordinator.SchemaChangeAfter", co.Job(), co.Pipeline())
	co.SchemaChangeAfter()
	answer.Give(nil)
}

// redeploy redeploys a random pipeline of a random job
// (cluster.RedeployPipeline: Coordinator.Restore(false), then every task
// reports WAITING_RESTORE and READY_START); one redeploy in four has a
// random task fail between its two reports, and the pipeline is redeployed
// again after the restart delay.
func (in *injector) redeploy(Schedule) {
	m := in.job()
	p := in.r.IntN(in.s.Cluster.Pipelines)
	failing := -1
	if in.r.IntN(4) == 0 {
		failing = in.r.IntN(in.s.Cluster.Tasks)
	}
	in.w.Note("fault: redeploy of job %d pipeline %d", m.Job(), p)
	in.savepointAtRedeploy(m)
	if err := in.c.RedeployPipeline(m.Job(), p, failing); err != nil {
		in.w.Note("redeploy of job %d pipeline %d: %v", m.Job(), p, err)
	}
}

// savepointAtRedeploy widens the windows of a savepoint request that
// meets a redeploy of its job (coord StartSavepoint and savepointCreate:
// ProbeSavepointNotReady, ProbeSavepointNotReadyAfterWait): where the
// scenario has the savepoint fault on, one redeploy in two also requests
// a savepoint of its job, as an operator's request can come at any time.
// Half of those start with the redeploy, so that a savepoint already
// waiting for a pending checkpoint sees the restore replace its tasks;
// the others come while the redeployed tasks report (within 200 ms,
// before every task is READY_START). Its draws come from a stream of
// their own, made only when both faults are on, so that a run without
// them draws as before.
func (in *injector) savepointAtRedeploy(m *coord.Manager) {
	if !in.f.Savepoint.On() {
		return
	}
	if in.spr == nil {
		in.spr = in.w.Rand(sim.StreamRedeploySavepoint)
	}
	if in.spr.IntN(2) == 0 {
		return
	}
	var delay time.Duration
	if in.spr.IntN(2) == 0 {
		delay = time.Millisecond + time.Duration(in.spr.Int64N(int64(199*time.Millisecond)))
	}
	in.w.Note("fault: savepoint of job %d meets its redeploy (after %v)", m.Job(), delay)
	in.w.Go(fmt.Sprintf("savepoint-at-redeploy-%d", m.Job()), func() {
		if delay > 0 {
			in.w.Sleep(delay)
		}
		if !in.c.Healed() {
			in.savepointOf(m)
		}
	})
}
