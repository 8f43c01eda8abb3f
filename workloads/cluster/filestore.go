package cluster

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/ckptsim/ckptsim/core/coord"
	"github.com/ckptsim/ckptsim/core/savepoint"
	"github.com/ckptsim/ckptsim/core/variant"
	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/sim/simfs"
)

// fileStore is Storage's file mode (Config.FileStorage): checkpoints go
// through core's production checkpoint store (savepoint.Checkpoints) onto
// a crashable simulated file system (sim/simfs), encoded, checksummed and
// decoded by core, instead of the in-memory map.
//
// The faults keep their meaning: a storage failure fails one step of the
// store's file-system sequence (mkdir, write, fsync, rename) or, half the
// time, crashes the storage at one of its steps (syncdir too) and restarts
// it at once (what survives is resolved adversarially, simfs's model);
// whether the write landed is then read back from the file system, so a
// crash whose resolution kept the rename is reported as a landed write
// with a lost reply (ObsStoreFailed "landed"). A lost reply lets the whole store land. Bit rot flips one bit
// of the committed file, so that core's own checksum refuses it.
type fileStore struct {
	fs  *simfs.FS
	cps *savepoint.Checkpoints
	// rotted: the ids whose file the harness rotted (a read that skips
	// one of them is justified).
	rotted map[PipelineID]map[int64]bool
	// legacy: the ids stored in the legacy v0 layout (Config.LegacyUntil),
	// which has no checksum: bit rot tears them rather than flipping a
	// bit, since nothing could tell a flipped state bit (rotFile).
	legacy  map[PipelineID]map[int64]bool
	crashes int
	log     []string
}

// fileNS is the namespace the simulated checkpoint store is rooted at.
const fileNS = "ns"

func newFileStore(c *Cluster) *fileStore {
	f := &fileStore{fs: simfs.New(c.W.Rand(sim.StreamCrashStore)), rotted: map[PipelineID]map[int64]bool{},
		legacy: map[PipelineID]map[int64]bool{}}
	// maxRetained 0: the coordinator's retention decides what is deleted
	// (the oracle judges it); the store never rotates behind it.
	f.cps = savepoint.NewCheckpoints(f.fs, fileNS, 0, func(format string, args ...any) {
		f.log = append(f.log, fmt.Sprintf(format, args...))
	}).ProbeTo(c.W) // the store's code probes count in the run
	if c.cfg.Coord.Variants.CheckpointDelete == variant.DeleteNoSync {
		f.cps.SkipDeleteSync() // upstream's unsynced delete (F036)
	}
	return f
}

// FileStorage reports whether the cluster stores checkpoints in files
// (Config.FileStorage), and how often the storage crashed.
func (s *Storage) FileStorage() (on bool, crashes int) {
	if s.file == nil {
		return false, 0
	}
	return true, s.file.crashes
}

// storeFile is Store in file mode, after the begin observation and the
// latency.
func (s *Storage) storeFile(cp *coord.Completed) error {
	f := s.file
	fail := s.c.injected(s.c.cfg.Faults.StorageFail, FaultStorage, cp.Job, cp.Pipeline, cp.ID)
	step, crash := 0, false
	if fail {
		// Every store takes at least the steps write, fsync, rename and
		// syncdir (after mkdirs when its directory is new). A crash may hit
		// any of the four; a failure one of the first three, so that a
		// failed store never leaves a visible entry its directory does not
		// hold durably (the oracle would count it landed, and a later
		// crash could lose it).
		crash = s.c.faults.IntN(2) == 0
		if crash {
			step = s.c.faults.IntN(4)
		} else {
			step = s.c.faults.IntN(3)
		}
	}
	s.mu.Lock() // the hooks count this store's steps only: no other call runs a step until Unlock
	defer s.mu.Unlock()
	if fail {
		n := 0
		if crash {
			s.c.W.Note("fault: storage crashes at step %d of the store of job %d pipeline %d id %d", step, cp.Job, cp.Pipeline, cp.ID)
			f.fs.CrashAt(step)
		} else {
			s.c.W.Note("fault: storage step %d fails in the store of job %d pipeline %d id %d", step, cp.Job, cp.Pipeline, cp.ID)
			f.fs.SetFailHook(func(op, path string) error {
				n++
				if n == step+1 {
					return errors.New("simulated storage failure")
				}
				return nil
			})
		}
	}
	k := PipelineID{cp.Job, cp.Pipeline}
	var err error
	if s.c.W.Elapsed() < s.c.cfg.LegacyUntil {
		err = f.storeLegacy(toCheckpoint(cp))
		if f.legacy[k] == nil {
			f.legacy[k] = map[int64]bool{}
		}
		f.legacy[k][cp.ID] = true
	} else {
		err = f.cps.Store(toCheckpoint(cp))
	}
	if fail {
		f.fs.SetCrashHook(nil)
		f.fs.SetFailHook(nil)
		if f.fs.Crashed() {
			f.crashes++
			f.fs.Restart()
			s.c.W.Note("storage restarted after crash %d", f.crashes)
		}
	}
	return s.settle(k, cp, err, slices.Contains(s.peekFile(k), cp.ID))
}

// rotFile draws the BitRot fault for a checkpoint file just committed:
// one bit of the file flips (anywhere: magic, version, payload or
// checksum), written back durably. A legacy v0 file (no checksum: a
// flipped state bit would go unseen) is torn instead, durably: it loses
// its tail, cut where its checkpoint's task states begin or at a random
// length inside the checkpoint; either way the envelope's field that
// holds the checkpoint runs past the end of the file, which core's legacy
// reader (savepoint.DecodeLegacy) must refuse.
//
// A file rots only while every other file its pipeline stores is intact
// and there is one: with at most one rotted file per pipeline and
// max-retained 2 or more, a restore always finds an intact checkpoint.
// Both core's production store (Checkpoints.Latest, when no checkpoint is
// readable) and the coordinator (coord.ErrNoIntactCheckpoint, when none
// passes its checksum) fail such a restore closed: the pipeline needs an
// operator, which the liveness checks would report as stuck.
func (s *Storage) rotFile(k PipelineID, cp *coord.Completed) {
	f := s.file
	intact := 0
	for _, id := range s.peekFile(k) {
		if f.rotted[k][id] {
			return
		}
		if id != cp.ID {
			intact++
		}
	}
	if intact == 0 {
		return
	}
	if !s.c.injected(s.c.cfg.Faults.BitRot, FaultBitRot, cp.Job, cp.Pipeline, cp.ID) {
		s.tearFile(k, cp)
		return
	}
	name := f.name(cp.Job, cp.Pipeline, cp.ID)
	b, err := f.fs.ReadFile(name)
	if err != nil || len(b) == 0 {
		panic(fmt.Sprintf("bit rot: read back %s: %v", name, err)) // the store just landed it
	}
	if f.legacy[k][cp.ID] {
		cut := legacyCut(b, s.c.faults.IntN(2) == 0, s.c.faults.IntN(len(b)), name)
		if err := f.fs.Truncate(name, cut); err != nil {
			panic(fmt.Sprintf("bit rot: truncate %s: %v", name, err))
		}
		f.markRotted(k, cp.ID)
		s.c.W.Note("fault: bit rot job %d pipeline %d id %d (legacy file %s torn to %d of %d bytes)", cp.Job, cp.Pipeline, cp.ID, name, cut, len(b))
		return
	}
	b[s.c.faults.IntN(len(b))] ^= 1 << s.c.faults.IntN(8)
	if err := f.fs.WriteFile(name, b); err != nil {
		panic(fmt.Sprintf("bit rot: write %s: %v", name, err))
	}
	f.markRotted(k, cp.ID)
	s.c.W.Note("fault: bit rot job %d pipeline %d id %d (file %s)", cp.Job, cp.Pipeline, cp.ID, name)
}

// peekFile lists a pipeline's stored ids oldest first, with no scheduling
// point (the simulated file system's lock is not the simulator's).
func (s *Storage) peekFile(k PipelineID) []int64 {
	ids, err := s.file.cps.List(k.Job, int32(k.Pipeline))
	if err != nil {
		panic(fmt.Sprintf("list checkpoints of %v: %v", k, err)) // simfs fails a read only while crashed
	}
	slices.Reverse(ids)
	return ids
}

// latestFile is Latest in file mode: core's Checkpoints.Latest, which
// skips files it cannot read. The register read reported to OnLatest is
// the newest id listed when every newer file it skipped is one the
// harness rotted (a justified skip; restore-integrity judges the
// content), and the id it returned otherwise (so that an unjustified skip
// reads stale in the register model).
func (s *Storage) latestFile(job int64, pipeline int) (*coord.Completed, error) {
	k := PipelineID{job, pipeline}
	listed := s.peekFile(k)
	var cp *savepoint.CompletedCheckpoint
	var err error
	faulted := s.readFault(job, pipeline, 0, "latest", 3, func() { cp, err = s.file.cps.Latest(job, int32(pipeline)) })
	if errors.Is(err, savepoint.ErrNotFound) {
		cp, err = nil, nil
	}
	if faulted && err != nil {
		return nil, err // the read never completed: no register read
	}
	got := int64(0)
	if cp != nil {
		got = cp.CheckpointID
	}
	read := got
	justified := true
	for _, id := range slices.Backward(listed) {
		if id == got {
			break
		}
		justified = justified && s.file.rotted[k][id]
	}
	if justified && len(listed) > 0 {
		read = listed[len(listed)-1]
	}
	if s.OnLatest != nil {
		s.OnLatest(job, pipeline, read)
	}
	if err != nil || cp == nil {
		return nil, err
	}
	return s.loaded(cp), nil
}

// loaded converts a checkpoint core read back: fromCheckpoint, or, for a
// file the harness rotted that core loaded anyway (it must refuse it),
// loadedRotted, so that what core loaded reaches the coordinator and the
// tasks and restore-integrity judges it, rather than the harness
// panicking on a layout it did not write.
func (s *Storage) loaded(cp *savepoint.CompletedCheckpoint) *coord.Completed {
	if s.file.rotted[PipelineID{cp.JobID, int(cp.PipelineID)}][cp.CheckpointID] {
		return loadedRotted(cp)
	}
	return fromCheckpoint(cp)
}

// addStates puts each subtask's first state (nil when it has none) into
// c.States under its index: the harness's layout holds one state per task.
func addStates(c *coord.Completed, subtasks []savepoint.SubtaskState) {
	for _, st := range subtasks {
		var b []byte
		if len(st.State) > 0 && len(st.State[0]) > 0 {
			b = st.State[0]
		}
		c.States[coord.TaskID(st.Index)] = b
	}
}

// loadedRotted is what a coordinator would make of a checkpoint decoded
// from a rotted file: its states, whatever survived, with the instants
// and Sum of its coordinator block when that survived whole (the
// coordinator then skips it if the states fail the Sum), and no Sum
// otherwise (the coordinator takes it as intact). No field is checked.
func loadedRotted(cp *savepoint.CompletedCheckpoint) *coord.Completed {
	c := &coord.Completed{Job: cp.JobID, Pipeline: int(cp.PipelineID), ID: cp.CheckpointID, Type: cp.Type,
		TriggeredAt: time.UnixMilli(cp.TriggerTimestampMs).In(sim.Epoch.Location()),
		CompletedAt: time.UnixMilli(cp.CompletedTimestampMs).In(sim.Epoch.Location()),
		States:      map[coord.TaskID][]byte{}}
	for _, as := range cp.ActionStates {
		if meta := as.Coordinator; len(meta) == 16+len(c.Sum) {
			c.TriggeredAt = time.Unix(0, int64(binary.BigEndian.Uint64(meta))).In(sim.Epoch.Location())
			c.CompletedAt = time.Unix(0, int64(binary.BigEndian.Uint64(meta[8:]))).In(sim.Epoch.Location())
			copy(c.Sum[:], meta[16:])
		}
		addStates(c, as.Subtasks)
	}
	return c
}

// loadFile is Load in file mode.
func (s *Storage) loadFile(job int64, pipeline int, id int64) (*coord.Completed, error) {
	var cp *savepoint.CompletedCheckpoint
	var err error
	s.readFault(job, pipeline, id, "load", 1, func() { cp, err = s.file.cps.Read(job, int32(pipeline), id) })
	if errors.Is(err, savepoint.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return s.loaded(cp), nil
}

// deleteFile is Delete in file mode: core's Checkpoints.Delete of each
// id (a remove, then the directory sync). Under the StorageDeleteFail
// fault (fail) one step of one id's delete fails; the ids whose delete
// returned nil are deleted, the others failed.
func (s *Storage) deleteFile(job int64, pipeline int, ids []int64, fail bool) (deleted, failed []int64, err error) {
	f := s.file
	if fail && len(ids) > 0 {
		i, step := s.c.faults.IntN(len(ids)), s.c.faults.IntN(2)
		s.c.W.Note("fault: storage delete of job %d pipeline %d id %d fails at its %s", job, pipeline, ids[i], [2]string{"remove", "directory sync"}[step])
		n := 0
		f.fs.SetFailHook(func(op, path string) error {
			n++
			if n == 2*i+step+1 {
				return errors.New("simulated storage delete failure")
			}
			return nil
		})
		defer f.fs.SetFailHook(nil)
	}
	var errs []error
	for _, id := range ids {
		if err := f.cps.Delete(job, int32(pipeline), id); err != nil {
			errs = append(errs, err)
			failed = append(failed, id)
			continue
		}
		deleted = append(deleted, id)
	}
	return deleted, failed, errors.Join(errs...)
}

// deleteJobFile is DeleteJob in file mode: core's Checkpoints.DeleteJob.
// Under StorageDeleteFail (fail) its first remove or its sync of the
// checkpoint root fails.
func (s *Storage) deleteJobFile(job int64, fail bool) error {
	f := s.file
	if fail {
		op := [2]string{"remove", "syncdir"}[s.c.faults.IntN(2)]
		s.c.W.Note("fault: storage cleanup of job %d fails at its first %s", job, op)
		done := false
		f.fs.SetFailHook(func(o, path string) error {
			if o == op && !done {
				done = true
				return errors.New("simulated storage delete failure")
			}
			return nil
		})
		defer f.fs.SetFailHook(nil)
	}
	return f.cps.DeleteJob(job)
}

// idsFile is IDs in file mode: core's Checkpoints.List, oldest first,
// whose directory read StorageReadFail may fail.
func (s *Storage) idsFile(job int64, pipeline int) ([]int64, error) {
	var ids []int64
	var err error
	s.readFault(job, pipeline, 0, "list", 1, func() { ids, err = s.file.cps.List(job, int32(pipeline)) })
	slices.Reverse(ids)
	return ids, err
}

// readFault runs read (a call of core's store) and, when the
// StorageReadFail fault fires, fails reads of the simulated file system
// during it with an I/O error, in one of the first forms forms: 0, the
// first directory listing (a Latest or IDs call; Load, whose only read is
// its file, fails that); 1, the first file read (the newest checkpoint's,
// in Latest); 2, every file read. It reports whether the fault fired.
func (s *Storage) readFault(job int64, pipeline int, id int64, what string, forms int, read func()) bool {
	if !s.c.injected(s.c.cfg.Faults.StorageReadFail, FaultRead, job, pipeline, id) {
		read()
		return false
	}
	form := s.c.faults.IntN(forms)
	if what == "load" {
		form = 1
	}
	names := [3]string{"the directory listing", "the first file read", "every file read"}
	s.c.W.Note("fault: storage read fails (%s: %s) job %d pipeline %d", what, names[form], job, pipeline)
	done := false
	s.file.fs.SetReadFailHook(func(op, path string) error {
		hit := false
		switch form {
		case 0:
			hit = op == "readdir" && !done
		case 1:
			hit = op == "read" && !done
		default:
			hit = op == "read"
		}
		if !hit {
			return nil
		}
		done = true
		return errors.New("simulated storage read failure")
	})
	defer s.file.fs.SetReadFailHook(nil)
	read()
	return true
}

// tearFile draws the StorageTorn fault for a checkpoint file just
// committed (versioned layout only: a legacy v0 file is torn by bit rot
// already): the file loses its tail, durably, cut to fewer bytes than the
// magic and the checksum take (half the time: core's length check) or
// anywhere past them (its SHA-256 no longer matches). Core must refuse it
// as it refuses a rotted file; the caller keeps rotFile's rule of one
// damaged file per pipeline.
func (s *Storage) tearFile(k PipelineID, cp *coord.Completed) {
	f := s.file
	if f.legacy[k][cp.ID] || !s.c.injected(s.c.cfg.Faults.StorageTorn, FaultTorn, cp.Job, cp.Pipeline, cp.ID) {
		return
	}
	name := f.name(cp.Job, cp.Pipeline, cp.ID)
	b, err := f.fs.ReadFile(name)
	if err != nil || len(b) <= tornShort {
		panic(fmt.Sprintf("torn file: read back %s: %d bytes, %v", name, len(b), err)) // the store just landed it
	}
	cut := 4 + s.c.faults.IntN(tornShort-4)
	if s.c.faults.IntN(2) == 0 {
		cut = tornShort + s.c.faults.IntN(len(b)-tornShort)
	}
	if err := f.fs.Truncate(name, cut); err != nil {
		panic(fmt.Sprintf("torn file: truncate %s: %v", name, err))
	}
	f.markRotted(k, cp.ID)
	s.c.W.Note("fault: checkpoint file torn job %d pipeline %d id %d (file %s cut to %d of %d bytes)", cp.Job, cp.Pipeline, cp.ID, name, cut, len(b))
}

// markRotted records that id's committed file of pipeline k was damaged
// (bit rot, a tear), so that a restore refusing it is justified.
func (f *fileStore) markRotted(k PipelineID, id int64) {
	if f.rotted[k] == nil {
		f.rotted[k] = map[int64]bool{}
	}
	f.rotted[k][id] = true
}

// tornShort is the shortest versioned checkpoint file core's length check
// lets through: its magic and a SHA-256.
const tornShort = 4 + 32

// The coordinator's checkpoint as a file holds it: one action
// ("pipeline-task") with a subtask per task; the action's coordinator
// state carries what the file format has no field for (the trigger and
// completion instants in nanoseconds, the coordinator's own checksum Sum),
// and one vertex's statistics carry each task's state size.
const fileAction = "pipeline-task"

func toCheckpoint(c *coord.Completed) *savepoint.CompletedCheckpoint {
	out := &savepoint.CompletedCheckpoint{JobID: c.Job, PipelineID: int32(c.Pipeline), CheckpointID: c.ID,
		Type: c.Type, TriggerTimestampMs: c.TriggeredAt.UnixMilli(), CompletedTimestampMs: c.CompletedAt.UnixMilli()}
	meta := binary.BigEndian.AppendUint64(nil, uint64(c.TriggeredAt.UnixNano()))
	meta = binary.BigEndian.AppendUint64(meta, uint64(c.CompletedAt.UnixNano()))
	meta = append(meta, c.Sum[:]...)
	tasks := make([]coord.TaskID, 0, len(c.States))
	for t := range c.States {
		tasks = append(tasks, t)
	}
	slices.Sort(tasks)
	as := savepoint.ActionState{Key: fileAction, Parallelism: int32(len(tasks)), Coordinator: meta}
	st := savepoint.TaskStatistics{VertexID: 1, Parallelism: int32(len(tasks))}
	for _, t := range tasks {
		as.Subtasks = append(as.Subtasks, savepoint.SubtaskState{Index: int32(t), State: [][]byte{c.States[t]}})
		st.Subtasks = append(st.Subtasks, savepoint.SubtaskStatistics{Index: int32(t), AckTimestampMs: c.CompletedAt.UnixMilli(),
			StateSize: int64(len(c.States[t])), Status: savepoint.StatusRunning})
	}
	out.ActionStates = []savepoint.ActionState{as}
	out.TaskStatistics = []savepoint.TaskStatistics{st}
	return out
}

// fromCheckpoint is toCheckpoint's inverse; it panics on a file core
// decoded but the harness did not write that way: a harness bug, or core
// decoding a field as another (checkFields).
func fromCheckpoint(cp *savepoint.CompletedCheckpoint) *coord.Completed {
	if len(cp.ActionStates) != 1 || cp.ActionStates[0].Key != fileAction || len(cp.ActionStates[0].Coordinator) != 16+len(coord.Completed{}.Sum) {
		panic(fmt.Sprintf("checkpoint file of job %d pipeline %d id %d: not the harness's layout", cp.JobID, cp.PipelineID, cp.CheckpointID))
	}
	as := cp.ActionStates[0]
	meta := as.Coordinator
	c := &coord.Completed{Job: cp.JobID, Pipeline: int(cp.PipelineID), ID: cp.CheckpointID, Type: cp.Type,
		TriggeredAt: time.Unix(0, int64(binary.BigEndian.Uint64(meta))).In(sim.Epoch.Location()),
		CompletedAt: time.Unix(0, int64(binary.BigEndian.Uint64(meta[8:]))).In(sim.Epoch.Location()),
		States:      map[coord.TaskID][]byte{}}
	copy(c.Sum[:], meta[16:])
	addStates(c, as.Subtasks)
	if err := checkFields(cp, c); err != nil {
		panic(fmt.Sprintf("checkpoint file of job %d pipeline %d id %d: %v", cp.JobID, cp.PipelineID, cp.CheckpointID, err))
	}
	return c
}

// checkFields compares the fields the file format has with what the
// harness wrote beside them in the coordinator state: the trigger and
// completion instants, and each task's statistics (state size, status).
// Core's checksum cannot see a decoder that reads a field as another (a
// legacy v0 file has no checksum at all); the states are judged by the
// coordinator's own checksum and restore-integrity.
func checkFields(cp *savepoint.CompletedCheckpoint, c *coord.Completed) error {
	if cp.TriggerTimestampMs != c.TriggeredAt.UnixMilli() || cp.CompletedTimestampMs != c.CompletedAt.UnixMilli() {
		return fmt.Errorf("decoded trigger/completion %d/%d ms, written %d/%d ms",
			cp.TriggerTimestampMs, cp.CompletedTimestampMs, c.TriggeredAt.UnixMilli(), c.CompletedAt.UnixMilli())
	}
	if len(cp.TaskStatistics) != 1 || len(cp.TaskStatistics[0].Subtasks) != len(c.States) {
		return fmt.Errorf("decoded %d task statistics, written one with %d subtasks", len(cp.TaskStatistics), len(c.States))
	}
	for _, st := range cp.TaskStatistics[0].Subtasks {
		b, ok := c.States[coord.TaskID(st.Index)]
		if !ok || st.StateSize != int64(len(b)) || st.Status != savepoint.StatusRunning || st.AckTimestampMs != cp.CompletedTimestampMs {
			return fmt.Errorf("decoded subtask %d statistics %+v, written state size %d, RUNNING, acknowledged at %d ms",
				st.Index, st, len(b), cp.CompletedTimestampMs)
		}
	}
	return nil
}
