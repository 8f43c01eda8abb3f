package workloads

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"path"
	"slices"
	"strconv"
	"time"

	"github.com/ckptsim/ckptsim/core/coord"
	"github.com/ckptsim/ckptsim/core/savepoint"
	"github.com/ckptsim/ckptsim/core/variant"
	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/sim/simfs"
	"github.com/ckptsim/ckptsim/workloads/cluster"
	"github.com/ckptsim/ckptsim/workloads/oracle"
)

// savepoints writes job savepoints through the real savepoint store on a
// simulated file system and hands what it wrote, what committed and what
// the store lists and reads back to the savepoint checks (chk,
// oracle.SavepointStore), so that the run can check that only explicit
// deletes ever remove a savepoint.
type savepoints struct {
	w         *sim.World
	pipelines int
	fs        *simfs.FS
	store     *savepoint.Store
	seq       int64
	chk       *oracle.SavepointStore // savepoint-crash, savepoint-retention, restore-integrity
	log       []string
	h         *histories
	// onError sees each pipeline write the savepoint store refused.
	onError func(job int64, pipeline int, id int64, err error)
	// onWrite sees each pipeline part core hands the session, before the
	// store's write (cluster.Cluster.SavepointWrite).
	onWrite func(job int64, pipeline int, id int64, sum uint64)

	// The master_crash fault.
	crashIn int                             // the crash step of the next commit; -1: none armed
	written map[savepointID]map[int32]int64 // pipeline -> checkpoint id written (the rot fault's target)
	crashes int

	// The savepoint_rot fault and the restore from a savepoint.
	rot     *rand.Rand             // sim.StreamSavepointRot; nil: the fault is off
	rotRate float64                // probability that a committed savepoint rots
	healed  func() bool            // faults have stopped: nothing rots
	rotted  map[savepointID]int32  // a rotted savepoint -> the pipeline whose payload rotted
	rotForm map[savepointID]string // a rotted savepoint -> the form: "state", "manifest", "torn"
	sums    map[spPipeline]uint64  // the states digest (cluster.StateSum) of each payload written
	load    func(job int64, pipeline int32) (*savepoint.CompletedCheckpoint, error)

	// The savepoint_failure fault: one operation of the store fails at one
	// of its file-system steps or reads (faulty).
	fail     *rand.Rand // sim.StreamSavepointFail; nil: the fault is off
	failRate float64
	// committedAt: per job, when each Commit that returned nil returned
	// (savepoint-outcome: a savepoint reported complete needs one).
	committedAt map[int64][]time.Duration
	// skipUnreadable: the store's listing leaves out a bundle it failed to
	// read (savepoint-list=skip-unreadable, F040).
	skipUnreadable bool
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

// savepointID names one savepoint of one job.
type savepointID struct{ job, id int64 }

// newSavepoints builds the savepoint store; with crashes (the master_crash
// fault) its file system resolves a crash adversarially (unsynced changes
// persist in any subset, files may be torn).
func newSavepoints(w *sim.World, pipelines int, crashes bool, list variant.SavepointList) *savepoints {
	var fs *simfs.FS
	if crashes {
		fs = simfs.New(w.Rand(sim.StreamCrashFS))
	} else {
		fs = simfs.New(nil)
	}
	sp := &savepoints{w: w, pipelines: pipelines, fs: fs, chk: oracle.NewSavepointStore(pipelines), crashIn: -1,
		written: map[savepointID]map[int32]int64{},
		rotted:  map[savepointID]int32{}, rotForm: map[savepointID]string{}, sums: map[spPipeline]uint64{}, healed: func() bool { return false }}
	sp.load = sp.restore
	sp.committedAt = map[int64][]time.Duration{}
	sp.skipUnreadable = list == variant.ListSkipUnreadable
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

// failWith switches the savepoint_failure fault on: while faults are on,
// each operation of the store fails with probability rate at one of its
// file-system steps or reads. Its draws come from a stream of their own,
// made only when the fault is on.
func (sp *savepoints) failWith(rate float64, healed func() bool) {
	if rate <= 0 {
		return
	}
	sp.fail, sp.failRate, sp.healed = sp.w.Rand(sim.StreamSavepointFail), rate, healed
}

// errSavepointFault is the I/O error the savepoint_failure fault injects.
var errSavepointFault = errors.New("simulated savepoint store failure")

// faulty runs op, one operation of the store (what names it), and draws
// the savepoint_failure fault for it: when it fires, the n-th of the
// operation's file-system steps (a write, fsync, rename, mkdir, remove or
// directory sync) or, half the time, of its reads (a listing, a file
// read, a stat) fails with an I/O error; an operation with fewer is not
// hit. n is below 12, and half the time below 2, so that the short
// operations (Delete's marker remove and directory sync, DeleteAll's
// listing) are hit as often as the long ones' first steps. It reports
// whether a step or read failed.
func (sp *savepoints) faulty(what string, job int64, op func()) bool {
	if sp.fail == nil || sp.healed() || sp.fail.Float64() >= sp.failRate {
		op()
		return false
	}
	reads, n := sp.fail.IntN(2) == 0, sp.fail.IntN(24)
	if n >= 12 {
		n %= 2 // half the time one of the first two: short operations are hit too
	}
	var hit string
	hook := func(o, p string) error {
		if hit != "" {
			return nil
		}
		if n > 0 {
			n--
			return nil
		}
		hit = o + " " + p
		return errSavepointFault
	}
	if reads {
		sp.fs.SetReadFailHook(hook)
	} else {
		sp.fs.SetFailHook(hook)
	}
	op()
	sp.fs.SetReadFailHook(nil)
	sp.fs.SetFailHook(nil)
	if hit == "" {
		return false
	}
	sp.w.Note("fault: savepoint store %s of job %d fails at %s", what, job, hit)
	return true
}

// open (re-)opens the store over the file system, as a restarted master does.
func (sp *savepoints) open() {
	sp.store = savepoint.NewStore(sp.fs, "ns", sp.w, savepoint.Options{Producer: spProducer, Logf: sp.logf,
		SkipUnreadable: sp.skipUnreadable})
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
	var w *savepoint.Writer
	var err error
	sp.faulty("begin", job, func() { w, err = sp.store.Begin(job, id, expected) })
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
		sum := cluster.StateSum(c)
		s.sp.sums[spPipeline{s.job, int32(c.Pipeline), c.ID}] = sum
		s.sp.chk.Wrote(s.job, s.id, int32(c.Pipeline), c.ID, sum)
		if s.sp.onWrite != nil {
			s.sp.onWrite(s.job, c.Pipeline, c.ID, sum)
		}
		s.sp.faulty("write", s.job, func() { err = s.w.WritePipeline(toSavepoint(c)) })
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
	var err error
	faulted := s.sp.faulty("commit", s.job, func() { err = s.w.Commit() })
	if crash {
		s.sp.fs.SetCrashHook(nil)
	}
	if hit := crash && s.sp.fs.Crashed(); hit && err != nil {
		s.sp.h.savepointCommitUnknown(s.job, s.id, call) // it may have committed before the crash
	} else if faulted && err != nil && s.sp.markerExists(s.job, s.id) {
		// The failure hit the directory sync after the marker's rename
		// (the commit point): the bundle is visible, its commit outcome
		// unknown to the caller, as after a crash.
		s.sp.h.savepointCommitUnknown(s.job, s.id, call)
		s.sp.chk.CrashHit(s.job, s.id)
	} else if err != nil {
		s.sp.h.savepointCommit(s.job, s.id, false, call)
	} else {
		s.sp.h.savepointCommit(s.job, s.id, true, call)
		s.sp.chk.Committed(s.job, s.id)
		s.sp.committedAt[s.job] = append(s.sp.committedAt[s.job], s.sp.w.Elapsed())
		s.sp.w.Note("savepoint %d of job %d committed", s.id, s.job)
		if !crash || !s.sp.fs.Crashed() {
			// Not when the crash hit a step the commit did not report (it
			// returned nil on a crashed file system, which the rot cannot
			// read: swarm seed 11 with redeploy, a harness panic).
			s.sp.maybeRot(s.job, s.id)
		}
	}
	if crash && s.sp.fs.Crashed() {
		s.sp.chk.CrashHit(s.job, s.id)
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
// goes to savepoint-retention first (oracle.SavepointStore.Listed): it must
// put the newest committed savepoint first (what a restore would use), but
// for one that rotted; otherwise the operator would delete it, and does not.
func (sp *savepoints) dispose(job int64) {
	var ms []*savepoint.Manifest
	var err error
	sp.faulty("list", job, func() { ms, err = sp.store.List(job) })
	if err != nil {
		sp.w.Note("dispose: list the savepoints of job %d: %v", job, err)
		return
	}
	ids := make([]int64, len(ms))
	for i, m := range ms {
		ids[i] = m.SavepointID
	}
	sp.h.savepointList(job, ids)
	if !sp.chk.Listed(job, ids) {
		return
	}
	for _, id := range ids[min(len(ids), keepSavepoints):] {
		call := int64(sp.w.Elapsed())
		if err := sp.retried("delete", job, func() error { return sp.store.Delete(job, id) }); err != nil {
			sp.w.Note("dispose of savepoint %d of job %d: %v", id, job, err)
			continue
		}
		sp.h.savepointDelete(job, id, call)
		sp.chk.Disposed(job, id)
		sp.w.Note("savepoint %d of job %d disposed", id, job)
	}
}

// recover is the master's restart after a crash during a commit: the file
// system restarts, the store is re-opened, and the harness hands each
// job's listing, and the bundles it reads back, to savepoint-crash
// (oracle.SavepointStore.Whole).
func (sp *savepoints) recover() {
	sp.crashes++
	sp.chk.Restarted()
	sp.w.Note("fault: master crashed during a savepoint commit; restarted, store re-opened")
	sp.fs.Restart()
	sp.open()
	for _, job := range sp.chk.Jobs() {
		ms, err := sp.store.List(job)
		var ids []int64
		for _, m := range ms {
			ids = append(ids, m.SavepointID)
		}
		sp.chk.Whole(job, ids, err, func(id int64) (map[int32]int64, error) { return sp.readBack(job, id) })
	}
}

// readBack reads a listed bundle back: each pipeline's checkpoint id.
func (sp *savepoints) readBack(job, id int64) (map[int32]int64, error) {
	b, err := sp.store.Read(job, id)
	if err != nil {
		return nil, err
	}
	held := map[int32]int64{}
	for p := range int32(sp.pipelines) {
		if c := b.Pipeline(p); c != nil {
			held[p] = c.CheckpointID
		}
	}
	return held, nil
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

// retention lists every job with a committed savepoint at the end of the
// run, records the listing (model-savepoints) and hands it to
// savepoint-retention.
func (sp *savepoints) retention(f *oracle.Findings, at time.Duration) {
	sp.chk.OrderFindings(f, at)
	for _, j := range sp.chk.CommittedJobs() {
		ms, err := sp.store.List(j)
		if err != nil {
			sp.chk.Retention(f, at, j, nil, err)
			continue
		}
		var ids []int64
		for _, m := range ms {
			ids = append(ids, m.SavepointID)
		}
		sp.h.savepointList(j, ids)
		sp.chk.Retention(f, at, j, ids, nil)
	}
}

// maybeRot draws the savepoint_rot fault for a savepoint that just
// committed. The draw u that decides the rot (u < rate) also picks its
// form, so that a seed drawing the first form rots as it did before the
// other two existed (each form makes the same three further draws):
//
//   - u < rate/2, a state bit: one bit of one pipeline's state flips in its
//     payload file, durably, the manifest's SHA-256 of the payload left as
//     written. The payload ends with the pipeline's last task's state
//     (toSavepoint writes no task statistics), so the flipped bit is state:
//     the payload still decodes, with the same ids and other states, and
//     only the checksum can tell.
//   - rate/2 <= u < 3*rate/4, the manifest: one bit of the producer name in
//     the bundle's commit marker (_metadata.ser) flips. The manifest still
//     parses, to the same ids, entries and trigger time; only its envelope
//     checksum can tell (savepoint.ParseManifest).
//   - 3*rate/4 <= u, a torn payload: one pipeline's payload file loses its
//     tail, durably: on an even third draw it is cut where its task states
//     begin (it still decodes, to the same ids and no states: only the
//     length and SHA-256 the manifest records can tell), on an odd one at
//     a random length (it may not decode at all).
//
// A rotted savepoint, whatever the form, leaves the set of savepoints List
// may return (List verifies every bundle as Read does and skips one that
// fails), so the model sees the rot as a delete.
func (sp *savepoints) maybeRot(job, id int64) {
	if sp.rot == nil || sp.healed() {
		return
	}
	u := sp.rot.Float64()
	if u >= sp.rotRate {
		return
	}
	p := int32(sp.rot.IntN(sp.pipelines))
	ck := sp.written[savepointID{job, id}][p]
	dir := path.Join("ns", savepoint.SavepointDir, strconv.FormatInt(job, 10), strconv.FormatInt(id, 10))
	name := path.Join(dir, savepoint.PayloadFile(p, ck))
	data, err := sp.fs.ReadFile(name)
	if err != nil {
		panic(fmt.Sprintf("savepoint rot: read back %s: %v", name, err)) // the commit just landed it
	}
	var what, form string
	switch {
	case u < sp.rotRate/2:
		last := lastState(data, name)
		if err := sp.fs.Flip(name, len(data)-1-sp.rot.IntN(len(last)), 1<<sp.rot.IntN(8)); err != nil {
			panic(fmt.Sprintf("savepoint rot: flip %s: %v", name, err))
		}
		if rotted, _ := sp.fs.ReadFile(name); sp.sumOf(lastDecoded(rotted, name)) == sp.sums[spPipeline{job, p, ck}] {
			panic(fmt.Sprintf("savepoint rot: %s still carries the states written", name))
		}
		what, form = fmt.Sprintf("pipeline %d (file %s)", p, name), "state"
	case u < sp.rotRate*3/4:
		marker := path.Join(dir, savepoint.MetadataFile)
		m, err := sp.fs.ReadFile(marker)
		if err != nil {
			panic(fmt.Sprintf("savepoint rot: read back %s: %v", marker, err))
		}
		at := bytes.Index(m, []byte(spProducer))
		if at < 0 || bytes.Index(m[at+1:], []byte(spProducer)) >= 0 {
			panic(fmt.Sprintf("savepoint rot: %s does not name the producer once", marker))
		}
		at += sp.rot.IntN(len(spProducer))
		if err := sp.fs.Flip(marker, at, 1<<sp.rot.IntN(8)); err != nil {
			panic(fmt.Sprintf("savepoint rot: flip %s: %v", marker, err))
		}
		what, form = fmt.Sprintf("manifest (file %s, byte %d)", marker, at), "manifest"
	default:
		cut := sp.rot.IntN(len(data))
		if sp.rot.IntN(8)%2 == 0 {
			cut = statesAt(data, name)
		}
		if err := sp.fs.Truncate(name, cut); err != nil {
			panic(fmt.Sprintf("savepoint rot: truncate %s: %v", name, err))
		}
		what, form = fmt.Sprintf("pipeline %d torn to %d of %d bytes (file %s)", p, cut, len(data), name), "torn"
	}
	sp.rotted[savepointID{job, id}] = p
	sp.rotForm[savepointID{job, id}] = form
	sp.chk.Rotted(job, id)
	sp.h.savepointRotted(job, id)
	sp.w.Note("fault: savepoint rot job %d savepoint %d %s", job, id, what)
}

// spProducer is the engine version the harness's store records in each
// manifest.
const spProducer = "ckptsim-sim"

// statesAt is where a payload the harness wrote starts its task states:
// its ids, type and timestamps come first, so the bytes before are the
// encoding of the checkpoint without its states.
func statesAt(data []byte, name string) int {
	c := *lastDecoded(data, name)
	c.ActionStates, c.TaskStatistics = nil, nil
	head := savepoint.EncodePayload(&c)
	if len(head) >= len(data) || !bytes.Equal(head, data[:len(head)]) {
		panic(fmt.Sprintf("savepoint rot: %s does not start with its ids and timestamps", name))
	}
	return len(head)
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

// deleteTries bounds the operator's attempts at one delete (retried).
const deleteTries = 16

// retried runs a delete of the store (Delete or DeleteAll), which the
// savepoint_failure fault may fail, and retries it at once until it
// returns nil, deleteTries times at most: a failed delete may have removed
// the bundle's marker (Store.Delete removes it first) and then failed its
// directory sync, leaving a savepoint that no longer lists and that no
// delete returned for; the operator's retry finishes it (a missing marker
// is no error), so that every savepoint gone went by a delete that
// returned (savepoint-retention).
func (sp *savepoints) retried(what string, job int64, del func() error) error {
	var err error
	for range deleteTries {
		if sp.faulty(what, job, func() { err = del() }); err == nil {
			return nil
		}
		sp.w.Note("savepoint store %s of job %d failed: %v; retrying", what, job, err)
	}
	return err
}

// markerExists reports whether savepoint id of job has its commit marker
// (read as the harness does: no fault, no scheduling point).
func (sp *savepoints) markerExists(job, id int64) bool {
	_, err := sp.fs.Stat(path.Join("ns", savepoint.SavepointDir, strconv.FormatInt(job, 10), strconv.FormatInt(id, 10), savepoint.MetadataFile))
	return err == nil
}

// committedBetween reports whether a Commit of job returned nil in
// [from, to] (savepoint-outcome).
func (sp *savepoints) committedBetween(job int64, from, to time.Duration) bool {
	return slices.ContainsFunc(sp.committedAt[job], func(at time.Duration) bool { return at >= from && at <= to })
}

// restore is what a job started from its savepoints reads for a pipeline:
// core's savepoint.Restore, the newest committed savepoint that List
// returns (none here falls back to checkpoints, of which this file
// system holds none).
func (sp *savepoints) restore(job int64, pipeline int32) (*savepoint.CompletedCheckpoint, error) {
	return savepoint.Restore(sp.store, savepoint.NewCheckpoints(sp.fs, "ns", 1, sp.logf), job, pipeline)
}

// restoreFrom reads every pipeline's restore point from the job's
// savepoints, as the job resumed from its savepoint does, and hands the
// states each load carries to restore-integrity (a restore must skip or
// refuse a rotted savepoint, never load it).
func (sp *savepoints) restoreFrom(job int64) {
	for p := range int32(sp.pipelines) {
		var c *savepoint.CompletedCheckpoint
		var err error
		sp.faulty("restore", job, func() { c, err = sp.load(job, p) })
		if err != nil {
			if !errors.Is(err, savepoint.ErrNotFound) {
				sp.logf("savepoint: restore job %d pipeline %d: %v", job, p, err)
			}
			continue
		}
		sp.chk.Loaded(sp.w.Elapsed(), job, p, c.CheckpointID, sp.sumOf(c))
	}
}

// deleteAll is the operator's disposal of a canceled job's savepoints
// (run.cancel.delete_savepoints): every savepoint of the job goes at once
// (core's Store.DeleteAll). Each savepoint whose commit returned before
// the call is a SavepointDelete in the model's history once the call
// returned and is disposed of for savepoint-retention, which then fires if
// the store still lists one at the end of the run (or lost another job's).
// A failed DeleteAll is noted and retried nowhere: its savepoints stay
// undisposed, so savepoint-retention still expects every one it kept.
func (sp *savepoints) deleteAll(job int64) {
	ids := sp.chk.CommittedIDs(job)
	call := int64(sp.w.Elapsed())
	if err := sp.retried("delete-all", job, func() error { return sp.store.DeleteAll(job) }); err != nil {
		sp.w.Note("dispose of every savepoint of canceled job %d: %v", job, err)
		return
	}
	for _, id := range ids {
		sp.h.savepointDelete(job, id, call)
		sp.chk.Disposed(job, id)
	}
	sp.w.Note("every savepoint of canceled job %d disposed (%d committed)", job, len(ids))
}
