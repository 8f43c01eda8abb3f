package coord

import (
	"errors"
	"fmt"

	"github.com/ckptsim/ckptsim/core/env"
	"github.com/ckptsim/ckptsim/core/sched"
)

// SavepointSession is one job-wide savepoint attempt: each pipeline writes
// through its SavepointWriter, then the manager commits the bundle once
// every pipeline completed, or aborts it.
type SavepointSession interface {
	SavepointWriter
	Commit() error
	Abort()
}

// ManagerDeps are a job's boundaries; Lease is filled per pipeline.
type ManagerDeps struct {
	Deps
	Scheduler sched.Scheduler
	// WrapLease, when set, decorates each pipeline's lease (the simulator
	// checks the scheduler's contract through it).
	WrapLease func(job int64, pipeline int, l Lease) Lease
}

// Manager is the CheckpointManager of one job: one coordinator per
// pipeline, leases from the member's scheduler, job-wide savepoints,
// routing of task reports and acknowledgements, failover and cancel.
type Manager struct {
	e      env.Env
	job    int64
	mu     env.Mutex // "coord.manager": savepoint de-duplication; taken before coord.lock or alone
	coords []*Coordinator
	sp     *Future[error]
}

// NewManager builds the coordinators of a job with pipelines pipelines.
func NewManager(d ManagerDeps, job int64, pipelines int, cfg Config) *Manager {
	m := &Manager{e: d.Env, job: job, mu: d.Env.NewMutex("coord.manager")}
	for p := range pipelines {
		cd := d.Deps
		cd.Lease = SchedLease(d.Scheduler.Lease(job, p))
		if d.WrapLease != nil {
			cd.Lease = d.WrapLease(job, p, cd.Lease)
		}
		m.coords = append(m.coords, New(cd, job, p, cfg, nil))
	}
	return m
}

// Job returns the job id.
func (m *Manager) Job() int64 { return m.job }

// Coordinators returns the coordinators in pipeline order.
func (m *Manager) Coordinators() []*Coordinator { return m.coords }

// Coordinator returns pipeline p's coordinator.
func (m *Manager) Coordinator(p int) *Coordinator { return m.coords[p] }

// Start marks every task of every pipeline ready.
func (m *Manager) Start() {
	for _, c := range m.coords {
		c.Start()
	}
}

// Acknowledge routes a task's acknowledgement to its pipeline.
func (m *Manager) Acknowledge(pipeline int, task TaskID, id int64, state []byte) {
	m.coords[pipeline].Acknowledge(task, id, state)
}

// AcknowledgeBarrier routes a task's acknowledgement of barrier b to its
// pipeline (Coordinator.AcknowledgeBarrier).
func (m *Manager) AcknowledgeBarrier(pipeline int, task TaskID, b Barrier, state []byte) {
	m.coords[pipeline].AcknowledgeBarrier(task, b, state)
}

// ReportTask routes a task report to its pipeline.
func (m *Manager) ReportTask(pipeline int, task TaskID, st TaskState) {
	m.coords[pipeline].ReportTask(task, st)
}

// Restore fails over every pipeline of the job (a master failover).
func (m *Manager) Restore() error {
	var errs []error
	for _, c := range m.coords {
		if err := c.Restore(true); err != nil {
			errs = append(errs, fmt.Errorf("pipeline %d: %w", c.pipeline, err))
			if c.pipeline < len(m.coords)-1 {
				env.Hit(m.e, env.ProbeJobRestorePartFails) // the next pipelines restore still
			}
		}
	}
	return errors.Join(errs...)
}

// Cancel cancels every pipeline.
func (m *Manager) Cancel() {
	for _, c := range m.coords {
		c.Cancel()
	}
}

// TriggerSavepoint starts a savepoint on every pipeline in parallel (one
// thread per pipeline, like upstream's parallelStream) and commits the
// session once all completed, or aborts it. A request while one is in
// flight returns the same future.
func (m *Manager) TriggerSavepoint(s SavepointSession) *Future[error] {
	m.mu.Lock()
	if m.sp != nil && !m.sp.Done() {
		f := m.sp
		m.mu.Unlock()
		return f
	}
	f := NewFuture[error](m.e)
	m.sp = f
	m.mu.Unlock()
	m.e.Go(fmt.Sprintf("savepoint-job-%d", m.job), func() { f.Complete(m.savepoint(s)) })
	return f
}

func (m *Manager) savepoint(s SavepointSession) error {
	results := make([]*Future[*Completed], len(m.coords))
	starts := NewFuture[struct{}](m.e)
	mu := m.e.NewMutex("coord.fanout")
	left := len(m.coords)
	var errs []error
	for i, c := range m.coords {
		m.e.Go(fmt.Sprintf("savepoint-job-%d-pipeline-%d", m.job, i), func() {
			r, err := c.StartSavepoint(s)
			mu.Lock()
			results[i] = r
			if err != nil {
				errs = append(errs, fmt.Errorf("pipeline %d: %w", i, err))
				if left > 1 {
					env.Hit(m.e, env.ProbeSavepointPartFails) // other parts have not answered
				}
			}
			left--
			if left == 0 {
				starts.Complete(struct{}{})
			}
			mu.Unlock()
		})
	}
	starts.Get()
	for i, r := range results {
		if r == nil {
			continue
		}
		if _, err := r.Get(); err != nil {
			errs = append(errs, fmt.Errorf("pipeline %d: %w", i, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		s.Abort()
		return err
	}
	return s.Commit()
}
