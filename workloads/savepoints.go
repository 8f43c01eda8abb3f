package workloads

import (
	"fmt"
	"slices"
	"time"

	"github.com/ckptsim/ckptsim/core/coord"
	"github.com/ckptsim/ckptsim/core/savepoint"
	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/sim/simfs"
)

// savepoints writes job savepoints through the real savepoint store on a
// simulated file system and remembers what committed, so that the run can
// check that only explicit deletes ever remove a savepoint.
type savepoints struct {
	w         *sim.World
	pipelines int
	fs        *simfs.FS
	store     *savepoint.Store
	seq       int64
	committed map[int64][]int64 // job -> savepoint ids
	log       []string
	h         *histories
	// onError sees each pipeline write the savepoint store refused.
	onError func(job int64, pipeline int, id int64, err error)
}

func newSavepoints(w *sim.World, pipelines int) *savepoints {
	sp := &savepoints{w: w, pipelines: pipelines, fs: simfs.New(nil), committed: map[int64][]int64{}}
	sp.store = savepoint.NewStore(sp.fs, "ns", w, savepoint.Options{Producer: "ckptsim-sim", Logf: sp.logf})
	return sp
}

func (sp *savepoints) logf(format string, args ...any) {
	sp.log = append(sp.log, fmt.Sprintf(format, args...))
}

// begin opens a session for one job-wide savepoint.
func (sp *savepoints) begin(job int64, at time.Duration) coord.SavepointSession {
	sp.seq++
	id := at.Milliseconds()*1000 + sp.seq
	var expected []int32
	for p := range sp.pipelines {
		expected = append(expected, int32(p))
	}
	w, err := sp.store.Begin(job, id, expected)
	return &session{sp: sp, job: job, id: id, w: w, err: err}
}

type session struct {
	sp  *savepoints
	job int64
	id  int64
	w   *savepoint.Writer
	err error
}

func (s *session) WritePipeline(c *coord.Completed) error {
	err := s.err
	if err == nil {
		err = s.w.WritePipeline(toSavepoint(c))
	}
	if err != nil && s.sp.onError != nil { // the savepoint store refused: a failure cause the harness sees
		s.sp.onError(c.Job, c.Pipeline, c.ID, err)
	}
	return err
}

func (s *session) Commit() error {
	if s.err != nil {
		return s.err
	}
	call := int64(s.sp.w.Elapsed())
	if err := s.w.Commit(); err != nil {
		s.sp.h.savepointCommit(s.job, s.id, false, call)
		return err
	}
	s.sp.h.savepointCommit(s.job, s.id, true, call)
	s.sp.committed[s.job] = append(s.sp.committed[s.job], s.id)
	s.sp.w.Note("savepoint %d of job %d committed", s.id, s.job)
	return nil
}

func (s *session) Abort() {
	if s.w != nil {
		s.w.Abort()
	}
}

// toSavepoint converts a coordinator checkpoint to the storage type.
func toSavepoint(c *coord.Completed) *savepoint.CompletedCheckpoint {
	typ, _ := savepoint.ParseCheckpointType(c.Type.String()) // both spell the upstream names
	out := &savepoint.CompletedCheckpoint{JobID: c.Job, PipelineID: int32(c.Pipeline), CheckpointID: c.ID,
		Type: typ, TriggerTimestampMs: c.TriggeredAt.UnixMilli(),
		CompletedTimestampMs: c.CompletedAt.UnixMilli()}
	tasks := make([]coord.TaskID, 0, len(c.States))
	for t := range c.States {
		tasks = append(tasks, t)
	}
	slices.Sort(tasks)
	as := savepoint.ActionState{Key: "pipeline-task", Parallelism: int32(len(tasks))}
	for _, t := range tasks {
		as.Subtasks = append(as.Subtasks, savepoint.SubtaskState{Index: int32(t), State: [][]byte{c.States[t]}})
	}
	out.ActionStates = []savepoint.ActionState{as}
	return out
}

// check lists every job's savepoints and reports committed ones missing.
func (sp *savepoints) check() []string {
	var out []string
	jobs := make([]int64, 0, len(sp.committed))
	for j := range sp.committed {
		jobs = append(jobs, j)
	}
	slices.Sort(jobs)
	for _, j := range jobs {
		ms, err := sp.store.List(j)
		if err != nil {
			out = append(out, fmt.Sprintf("savepoint-retention: list job %d: %v", j, err))
			continue
		}
		have := map[int64]bool{}
		var ids []int64
		for _, m := range ms {
			have[m.SavepointID] = true
			ids = append(ids, m.SavepointID)
		}
		sp.h.savepointList(j, ids)
		for _, id := range sp.committed[j] {
			if !have[id] {
				out = append(out, fmt.Sprintf("savepoint-retention: committed savepoint %d of job %d is gone without a delete", id, j))
			}
		}
	}
	return out
}
