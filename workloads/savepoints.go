package workloads

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"path"
	"slices"
	"strconv"
	"time"

	"github.com/ckptsim/ckptsim/core/coord"
	"github.com/ckptsim/ckptsim/core/savepoint"
	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/sim/simfs"
	"github.com/ckptsim/ckptsim/workloads/cluster"
)

// savepoints writes job savepoints through the real savepoint store on a
// simulated file system and remembers what committed and what the
// operator deleted (dispose), so that the run can check that only
// explicit deletes ever remove a savepoint, and that they do.
type savepoints struct {
	w         *sim.World
	pipelines int
	fs        *simfs.FS
	store     *savepoint.Store
	seq       int64
	committed map[int64][]int64 // job -> savepoint ids
	// disposed: the committed savepoints the operator deleted
	// (Store.Delete), job -> id.
	disposed map[int64]map[int64]bool
	order    []string // savepoint-retention: a listing whose newest is not the newest committed
	log      []string
	h        *histories
	// onError sees each pipeline write the savepoint store refused.
	onError func(job int64, pipeline int, id int64, err error)

	// The master_crash fault: what the harness wrote and saw committed.
	crashIn   int                             // the crash step of the next commit; -1: none armed
	written   map[savepointID]map[int32]int64 // pipeline -> checkpoint id written
	ambiguous map[savepointID]bool            // a crash hit the commit: it may or may not have committed
	crashes   int
	findings  []string // savepoint-crash

	// The savepoint_rot fault and the restore from a savepoint.
	rot       *rand.Rand            // sim.StreamSavepointRot; nil: the fault is off
	rotRate   float64               // probability that a committed savepoint rots
	healed    func() bool           // faults have stopped: nothing rots
	rotted    map[savepointID]int32 // a rotted savepoint -> the pipeline whose payload rotted
	sums      map[spPipeline]uint64 // the states digest (cluster.StateSum) of each payload written
	load      func(job int64, pipeline int32) (*savepoint.CompletedCheckpoint, error)
	integrity []spLoad // restore-integrity: restores that loaded states other than written
}

// plantedLoad builds a planted restore from a savepoint over the
// harness's savepoint store (tests only: runner.planted).
type plantedLoad func(sp *savepoints) func(job int64, pipeline int32) (*savepoint.CompletedCheckpoint, error)

// spPipeline names the payload of one checkpoint of one pipeline.
type spPipeline struct {
	job      int64
	pipeline int32
	id       int64
}

// spLoad is a restore from a savepoint that loaded states other than the
// harness wrote.
type spLoad struct {
	at        time.Duration
	pipeline  spPipeline
	got, want uint64
}

// savepointID names one savepoint of one job.
type savepointID struct{ job, id int64 }

// newSavepoints builds the savepoint store; with crashes (the master_crash
// fault) its file system resolves a crash adversarially (unsynced changes
// persist in any subset, files may be torn).
func newSavepoints(w *sim.World, pipelines int, crashes bool) *savepoints {
	var fs *simfs.FS
	if crashes {
		fs = simfs.New(w.Rand(sim.StreamCrashFS))
	} else {
		fs = simfs.New(nil)
	}
	sp := &savepoints{w: w, pipelines: pipelines, fs: fs, committed: map[int64][]int64{}, disposed: map[int64]map[int64]bool{}, crashIn: -1,
		written: map[savepointID]map[int32]int64{}, ambiguous: map[savepointID]bool{},
		rotted: map[savepointID]int32{}, sums: map[spPipeline]uint64{}, healed: func() bool { return false }}
	sp.load = sp.restore
	sp.open()
	return sp
}

// rotWith switches the savepoint_rot fault on: each savepoint that
// commits while faults are on rots with probability rate. Its draws come
// from a stream of their own, made only when the fault is on, so a run
// without it draws as before.
func (sp *savepoints) rotWith(rate float64, healed func() bool) {
	if rate <= 0 {
		return
	}
	sp.rot, sp.rotRate, sp.healed = sp.w.Rand(sim.StreamSavepointRot), rate, healed
}

// open (re-)opens the store over the file system, as a restarted master does.
func (sp *savepoints) open() {
	sp.store = savepoint.NewStore(sp.fs, "ns", sp.w, savepoint.Options{Producer: "ckptsim-sim", Logf: sp.logf})
}

// armCrash makes the next commit crash the master at its n-th file-system
// step from the commit's start (a commit shorter than that finishes).
func (sp *savepoints) armCrash(n int) { sp.crashIn = n }

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
		k := savepointID{s.job, s.id} // what the harness hands the store, recorded before the call:
		if s.sp.written[k] == nil {   // the manager may commit while the call is still returning
			s.sp.written[k] = map[int32]int64{}
		}
		s.sp.written[k][int32(c.Pipeline)] = c.ID
		s.sp.sums[spPipeline{s.job, int32(c.Pipeline), c.ID}] = cluster.StateSum(c)
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
	crash := s.sp.crashIn >= 0
	if crash {
		s.sp.fs.CrashAt(s.sp.crashIn)
		s.sp.crashIn = -1
	}
	err := s.w.Commit()
	if crash {
		s.sp.fs.SetCrashHook(nil)
	}
	if hit := crash && s.sp.fs.Crashed(); hit && err != nil {
		s.sp.h.savepointCommitUnknown(s.job, s.id, call) // it may have committed before the crash
	} else if err != nil {
		s.sp.h.savepointCommit(s.job, s.id, false, call)
	} else {
		s.sp.h.savepointCommit(s.job, s.id, true, call)
		s.sp.committed[s.job] = append(s.sp.committed[s.job], s.id)
		s.sp.w.Note("savepoint %d of job %d committed", s.id, s.job)
		s.sp.maybeRot(s.job, s.id)
	}
	if crash && s.sp.fs.Crashed() {
		s.sp.ambiguous[savepointID{s.job, s.id}] = err != nil
		s.sp.recover()
	}
	if err == nil {
		s.sp.dispose(s.job)
	}
	return err
}

// keepSavepoints is how many committed savepoints of a job the operator
// keeps: after each commit it lists the job's savepoints (newest first)
// and disposes of the others (Store.Delete, as Flink's savepoint -d), so
// that deletes run beside commits, listings and the master_crash
// restarts.
const keepSavepoints = 1

// dispose lists a job's savepoints and deletes all but the newest
// keepSavepoints of the listing, each a SavepointDelete in the model's
// history; a delete that fails is retried at the next commit. The listing
// must put the newest committed savepoint first (what a restore would
// use), but for one that rotted (savepoint_rot: List skips it): otherwise
// the operator would delete it (savepoint-retention).
func (sp *savepoints) dispose(job int64) {
	ms, err := sp.store.List(job)
	if err != nil {
		sp.w.Note("dispose: list the savepoints of job %d: %v", job, err)
		return
	}
	ids := make([]int64, len(ms))
	for i, m := range ms {
		ids[i] = m.SavepointID
	}
	sp.h.savepointList(job, ids)
	newest := int64(-1) // the newest committed that List may return: a rotted one it skips
	for _, id := range sp.committed[job] {
		if _, rotted := sp.rotted[savepointID{job, id}]; !rotted && !sp.disposed[job][id] {
			newest = max(newest, id)
		}
	}
	if len(ids) > 0 && ids[0] != newest {
		sp.order = append(sp.order, fmt.Sprintf("savepoint-retention: the listing of job %d puts savepoint %d first, the newest committed is %d", job, ids[0], newest))
		return
	}
	for _, id := range ids[min(len(ids), keepSavepoints):] {
		call := int64(sp.w.Elapsed())
		if err := sp.store.Delete(job, id); err != nil {
			sp.w.Note("dispose of savepoint %d of job %d: %v", id, job, err)
			continue
		}
		sp.h.savepointDelete(job, id, call)
		if sp.disposed[job] == nil {
			sp.disposed[job] = map[int64]bool{}
		}
		sp.disposed[job][id] = true
		sp.w.Note("savepoint %d of job %d disposed", id, job)
	}
}

// recover is the master's restart after a crash during a commit: the file
// system restarts, the store is re-opened, and the harness checks it
// against what it wrote and saw committed: only whole bundles are listed
// (each listed one committed, or its commit was hit by the crash, and
// every pipeline holds the checkpoint the harness wrote), every committed
// one is still listed, and the newest listed (what a restore uses) is the
// newest whole one.
func (sp *savepoints) recover() {
	sp.crashes++
	sp.w.Note("fault: master crashed during a savepoint commit; restarted, store re-opened")
	sp.fs.Restart()
	sp.open()
	for _, job := range sp.jobs() {
		sp.checkWhole(job)
	}
}

// jobs are the jobs with a savepoint written, sorted.
func (sp *savepoints) jobs() []int64 {
	var out []int64
	for k := range sp.written {
		if !slices.Contains(out, k.job) {
			out = append(out, k.job)
		}
	}
	slices.Sort(out)
	return out
}

func (sp *savepoints) crashFinding(format string, args ...any) {
	sp.findings = append(sp.findings, fmt.Sprintf("after crash %d: ", sp.crashes)+fmt.Sprintf(format, args...))
}

func (sp *savepoints) checkWhole(job int64) {
	ms, err := sp.store.List(job)
	if err != nil {
		sp.crashFinding("list job %d: %v", job, err)
		return
	}
	listed := map[int64]bool{}
	var newest int64 = -1
	for _, m := range ms {
		id := m.SavepointID
		listed[id] = true
		k := savepointID{job, id}
		_, hit := sp.ambiguous[k]
		if sp.disposed[job][id] {
			sp.crashFinding("savepoint %d of job %d is listed although it was deleted", id, job)
			continue
		}
		if !slices.Contains(sp.committed[job], id) && !hit {
			sp.crashFinding("savepoint %d of job %d is listed but its commit never succeeded", id, job)
			continue
		}
		sp.checkBundle(job, id)
		newest = max(newest, id)
	}
	for _, id := range sp.committed[job] {
		if _, rotted := sp.rotted[savepointID{job, id}]; rotted || sp.disposed[job][id] {
			continue // disposed, or List skips it: its payload no longer matches its manifest
		}
		if !listed[id] {
			sp.crashFinding("committed savepoint %d of job %d is not listed after the restart", id, job)
		}
		newest = max(newest, id)
	}
	if len(ms) > 0 && ms[0].SavepointID != newest {
		sp.crashFinding("a restore of job %d would use savepoint %d, the newest whole one is %d", job, ms[0].SavepointID, newest)
	}
}

// checkBundle reads a listed bundle back: every pipeline holds the
// checkpoint the harness wrote for it.
func (sp *savepoints) checkBundle(job, id int64) {
	b, err := sp.store.Read(job, id)
	if err != nil {
		sp.crashFinding("listed savepoint %d of job %d does not read back: %v", id, job, err)
		return
	}
	want := sp.written[savepointID{job, id}]
	for p := range int32(sp.pipelines) {
		c := b.Pipeline(p)
		switch {
		case c == nil:
			sp.crashFinding("listed savepoint %d of job %d has no pipeline %d", id, job, p)
		case c.CheckpointID != want[p]:
			sp.crashFinding("listed savepoint %d of job %d pipeline %d holds checkpoint %d, the harness wrote %d", id, job, p, c.CheckpointID, want[p])
		}
	}
}

func (s *session) Abort() {
	if s.w != nil {
		s.w.Abort()
	}
}

// toSavepoint converts a coordinator checkpoint to the storage type.
func toSavepoint(c *coord.Completed) *savepoint.CompletedCheckpoint {
	out := &savepoint.CompletedCheckpoint{JobID: c.Job, PipelineID: int32(c.Pipeline), CheckpointID: c.ID,
		Type: c.Type, TriggerTimestampMs: c.TriggeredAt.UnixMilli(),
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
	out := slices.Clone(sp.order)
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
			_, rotted := sp.rotted[savepointID{j, id}]
			switch {
			case sp.disposed[j][id] && have[id]:
				out = append(out, fmt.Sprintf("savepoint-retention: savepoint %d of job %d is still listed after its delete returned", id, j))
			case !sp.disposed[j][id] && !have[id] && !rotted:
				out = append(out, fmt.Sprintf("savepoint-retention: committed savepoint %d of job %d is gone without a delete", id, j))
			}
		}
	}
	return out
}

// maybeRot draws the savepoint_rot fault for a savepoint that just
// committed: one bit of one pipeline's state flips in its payload file,
// durably, the manifest's SHA-256 of the payload left as written. The
// payload ends with the pipeline's last task's state (toSavepoint writes
// no task statistics), so the flipped bit is state: the payload still
// decodes, with the same ids and other states, and only the checksum can
// tell. A rotted savepoint leaves the set of savepoints List may return,
// so the model sees the rot as a delete.
func (sp *savepoints) maybeRot(job, id int64) {
	if sp.rot == nil || sp.healed() || sp.rot.Float64() >= sp.rotRate {
		return
	}
	p := int32(sp.rot.IntN(sp.pipelines))
	ck := sp.written[savepointID{job, id}][p]
	name := path.Join("ns", savepoint.SavepointDir, strconv.FormatInt(job, 10), strconv.FormatInt(id, 10), savepoint.PayloadFile(p, ck))
	data, err := sp.fs.ReadFile(name)
	if err != nil {
		panic(fmt.Sprintf("savepoint rot: read back %s: %v", name, err)) // the commit just landed it
	}
	last := lastState(data, name)
	if err := sp.fs.Flip(name, len(data)-1-sp.rot.IntN(len(last)), 1<<sp.rot.IntN(8)); err != nil {
		panic(fmt.Sprintf("savepoint rot: flip %s: %v", name, err))
	}
	if rotted, _ := sp.fs.ReadFile(name); sp.sumOf(lastDecoded(rotted, name)) == sp.sums[spPipeline{job, p, ck}] {
		panic(fmt.Sprintf("savepoint rot: %s still carries the states written", name))
	}
	sp.rotted[savepointID{job, id}] = p
	sp.h.savepointRotted(job, id)
	sp.w.Note("fault: savepoint rot job %d savepoint %d pipeline %d (file %s)", job, id, p, name)
}

// lastState is the state that ends a payload the harness wrote.
func lastState(data []byte, name string) []byte {
	c := lastDecoded(data, name)
	as := c.ActionStates
	if len(as) == 0 || len(as[len(as)-1].Subtasks) == 0 {
		panic(fmt.Sprintf("savepoint rot: %s holds no task state", name))
	}
	ss := as[len(as)-1].Subtasks
	st := ss[len(ss)-1].State
	if len(st) == 0 || len(st[len(st)-1]) == 0 {
		panic(fmt.Sprintf("savepoint rot: %s ends with an empty state", name))
	}
	return st[len(st)-1]
}

func lastDecoded(data []byte, name string) *savepoint.CompletedCheckpoint {
	c, err := savepoint.DecodePayload(data)
	if err != nil {
		panic(fmt.Sprintf("savepoint rot: decode %s: %v", name, err))
	}
	return c
}

// sumOf is cluster.StateSum of a stored payload's task states (one state
// per subtask, as toSavepoint writes them).
func (sp *savepoints) sumOf(c *savepoint.CompletedCheckpoint) uint64 {
	cp := &coord.Completed{States: map[coord.TaskID][]byte{}}
	for _, as := range c.ActionStates {
		for _, s := range as.Subtasks {
			for _, st := range s.State {
				cp.States[coord.TaskID(s.Index)] = st
			}
		}
	}
	return cluster.StateSum(cp)
}

// restore is what a job started from its savepoints reads for a pipeline:
// core's savepoint.Restore, the newest committed savepoint that List
// returns (none here falls back to checkpoints, of which this file
// system holds none).
func (sp *savepoints) restore(job int64, pipeline int32) (*savepoint.CompletedCheckpoint, error) {
	return savepoint.Restore(sp.store, savepoint.NewCheckpoints(sp.fs, "ns", 1, sp.logf), job, pipeline)
}

// restoreFrom reads every pipeline's restore point from the job's
// savepoints, as the job resumed from its savepoint does, and keeps each
// load whose states are not those the harness wrote for that checkpoint
// (restore-integrity): a restore must skip or refuse a rotted savepoint,
// never load it.
func (sp *savepoints) restoreFrom(job int64) {
	for p := range int32(sp.pipelines) {
		c, err := sp.load(job, p)
		if err != nil {
			if !errors.Is(err, savepoint.ErrNotFound) {
				sp.logf("savepoint: restore job %d pipeline %d: %v", job, p, err)
			}
			continue
		}
		k := spPipeline{job, p, c.CheckpointID}
		want, ok := sp.sums[k]
		if got := sp.sumOf(c); ok && got != want {
			sp.integrity = append(sp.integrity, spLoad{at: sp.w.Elapsed(), pipeline: k, got: got, want: want})
		}
	}
}

// integrityFindings renders the restores that loaded rotted states.
func (sp *savepoints) integrityFindings(add func(at time.Duration, job int64, pipeline int, msg string)) {
	for _, l := range sp.integrity {
		add(l.at, l.pipeline.job, int(l.pipeline.pipeline), fmt.Sprintf(
			"a restore from the job's savepoints loaded checkpoint %d with states (digest %016x) other than the savepoint writer wrote (digest %016x): "+
				"corrupt stored bytes were loaded instead of skipped", l.pipeline.id, l.got, l.want))
	}
}
