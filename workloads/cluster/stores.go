package cluster

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/ckptsim/ckptsim/core/coord"
	"github.com/ckptsim/ckptsim/core/env"
)

// Storage is simulated checkpoint storage: durable once Store returns.
type Storage struct {
	c  *Cluster
	mu env.Mutex
	m  map[PipelineID][]*coord.Completed // by id
	// Deleted counts deletions, for retention checks.
	Deleted int
	// OnStore sees each store call (before the write) and its outcome;
	// OnLatest each read of the latest checkpoint (0: none).
	OnStore  func(cp *coord.Completed, err error, begin bool)
	OnLatest func(job int64, pipeline int, id int64)
	// file: checkpoints go to files through core's production store
	// (Config.FileStorage); nil: the in-memory map.
	file *fileStore
	// rotted: the in-memory checkpoints BitRot flipped, per pipeline.
	rotted map[PipelineID]map[int64]bool
}

func newStorage(c *Cluster) *Storage {
	s := &Storage{c: c, mu: c.W.NewMutex("sim.storage"), m: map[PipelineID][]*coord.Completed{}}
	if c.cfg.FileStorage {
		s.file = newFileStore(c)
	}
	return s
}

// Store writes a checkpoint, after a latency, unless a fault fails it.
// Under StoreReplyLost the write takes effect and the call still returns
// an error (the reply was lost); under BitRot the committed copy's bytes
// rot once the store returned (Load and Latest return the rotted copy).
func (s *Storage) Store(cp *coord.Completed) error {
	s.c.call("Storage.Store")
	if s.OnStore != nil {
		s.OnStore(cp, nil, true)
	}
	s.c.observe(Obs{Kind: ObsStoreBegin, Job: cp.Job, Pipeline: cp.Pipeline, ID: cp.ID, Sum: StateSum(cp)})
	s.c.sleep(s.c.cfg.Workload.StorageLatency)
	s.c.panicAt("Storage.Store", cp.Job, cp.Pipeline, cp.ID)
	if s.file != nil {
		return s.storeFile(cp)
	}
	k := PipelineID{cp.Job, cp.Pipeline}
	if s.c.injected(s.c.cfg.Faults.StorageFail, FaultStorage, cp.Job, cp.Pipeline, cp.ID) {
		s.c.W.Note("fault: storage write fails job %d pipeline %d id %d", cp.Job, cp.Pipeline, cp.ID)
		return s.settle(k, cp, fmt.Errorf("simulated storage failure"), false)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[k] = append(s.m[k], cp)
	slices.SortFunc(s.m[k], func(a, b *coord.Completed) int { return int(a.ID - b.ID) })
	return s.settle(k, cp, nil, true)
}

// settle ends a store call of either backend: a write that landed may
// still lose its reply (StoreReplyLost), and once landed its bytes may rot
// (BitRot). It tells OnStore and the checks the outcome the caller sees.
func (s *Storage) settle(k PipelineID, cp *coord.Completed, err error, landed bool) error {
	if err == nil && s.c.injected(s.c.cfg.Faults.StoreReplyLost, FaultReplyLost, cp.Job, cp.Pipeline, cp.ID) {
		s.c.W.Note("fault: storage reply lost job %d pipeline %d id %d (the write landed)", cp.Job, cp.Pipeline, cp.ID)
		err = fmt.Errorf("simulated storage failure: reply lost")
	}
	if err != nil && s.OnStore != nil {
		s.OnStore(cp, err, false)
	}
	switch {
	case err != nil && !landed:
		s.c.observe(Obs{Kind: ObsStoreFailed, Job: cp.Job, Pipeline: cp.Pipeline, ID: cp.ID})
		return err
	case err != nil: // the write landed; the caller sees an error
		s.c.observe(Obs{Kind: ObsStoreFailed, Job: cp.Job, Pipeline: cp.Pipeline, ID: cp.ID, Value: "landed"})
	default:
		s.c.observe(Obs{Kind: ObsStored, Job: cp.Job, Pipeline: cp.Pipeline, ID: cp.ID})
	}
	if s.file != nil {
		s.rotFile(k, cp)
	} else {
		s.rot(k, cp)
	}
	return err
}

// rot draws the BitRot fault for a checkpoint just committed: the stored
// copy (a copy, so the caller's states stay intact) gets one byte of one
// task's state flipped, the checksum it carries left as written.
//
// A checkpoint rots only while another of its pipeline's newest
// max_retained stored checkpoints stays intact (mayRot): a restore always
// finds an intact checkpoint, yet may meet a rotted newest one and a
// rotted one below it, which it skips in turn (coord latestIntact, probe
// restore-skips-corrupt). When none is intact core fails the restore
// closed (coord.ErrNoIntactCheckpoint), an outcome that needs an
// operator, which a campaign's liveness checks would report as a stuck
// pipeline.
func (s *Storage) rot(k PipelineID, cp *coord.Completed) {
	ids := make([]int64, 0, len(s.m[k]))
	for _, o := range s.m[k] {
		ids = append(ids, o.ID)
	}
	if len(cp.States) == 0 || !s.mayRot(ids, cp.ID, s.rotted[k]) ||
		!s.c.injected(s.c.cfg.Faults.BitRot, FaultBitRot, cp.Job, cp.Pipeline, cp.ID) {
		return
	}
	tasks := slices.Sorted(maps.Keys(cp.States))
	tasks = slices.DeleteFunc(tasks, func(t coord.TaskID) bool { return len(cp.States[t]) == 0 })
	if len(tasks) == 0 {
		return
	}
	r := *cp
	r.States = maps.Clone(cp.States)
	t := tasks[s.c.faults.IntN(len(tasks))]
	b := slices.Clone(r.States[t])
	b[s.c.faults.IntN(len(b))] ^= 1 << s.c.faults.IntN(8)
	r.States[t] = b
	if s.rotted == nil {
		s.rotted = map[PipelineID]map[int64]bool{}
	}
	if s.rotted[k] == nil {
		s.rotted[k] = map[int64]bool{}
	}
	s.rotted[k][cp.ID] = true
	s.c.W.Note("fault: bit rot job %d pipeline %d id %d task %d", cp.Job, cp.Pipeline, cp.ID, t)
	l := s.m[k]
	l[slices.Index(l, cp)] = &r
}

// mayRot reports whether checkpoint id of a pipeline may rot, given the
// pipeline's stored ids (oldest first, id among them) and those rotted
// already: another of the newest max_retained ids must stay intact. The
// newest max_retained stored are never deleted by retention (the
// coordinator deletes only ids with max_retained newer ones it stored,
// all of them in storage), so an intact one among them stays stored
// until a newer intact one, or a rotted one beside an intact one, takes
// its place: a restore always finds one.
func (s *Storage) mayRot(ids []int64, id int64, rotted map[int64]bool) bool {
	n := s.c.cfg.Coord.MaxRetained
	if n <= 0 {
		n = 20 // coord.Config's default
	}
	if len(ids) > n {
		ids = ids[len(ids)-n:]
	}
	return slices.ContainsFunc(ids, func(o int64) bool { return o != id && !rotted[o] })
}

// Delete removes checkpoints by id. Under StorageDeleteFail the call
// fails: in file storage one step of one id's delete (the others go), in
// memory the whole call. ObsDeleted carries the ids deleted; a second
// one, Value "failed", the ids a failed call did not delete durably
// (still stored, or removed without the directory sync).
func (s *Storage) Delete(job int64, pipeline int, ids []int64) error {
	s.c.call("Storage.Delete")
	s.mu.Lock()
	defer s.mu.Unlock()
	fail := s.c.injected(s.c.cfg.Faults.StorageDeleteFail, FaultDelete, job, pipeline, 0)
	var err error
	deleted, failed := ids, []int64(nil)
	switch {
	case s.file != nil:
		deleted, failed, err = s.deleteFile(job, pipeline, ids, fail)
	case fail:
		s.c.W.Note("fault: storage delete fails job %d pipeline %d ids %v", job, pipeline, ids)
		deleted, failed, err = nil, ids, errors.New("simulated storage delete failure")
	default:
		k := PipelineID{job, pipeline}
		s.m[k] = slices.DeleteFunc(s.m[k], func(c *coord.Completed) bool { return slices.Contains(ids, c.ID) })
	}
	s.Deleted += len(deleted)
	s.c.observe(Obs{Kind: ObsDeleted, Job: job, Pipeline: pipeline, IDs: slices.Clone(deleted)})
	if len(failed) > 0 {
		s.c.observe(Obs{Kind: ObsDeleted, Job: job, Pipeline: pipeline, IDs: slices.Clone(failed), Value: "failed"})
	}
	return err
}

// DeleteJob is job-terminal cleanup after a cancel: every checkpoint of
// the job goes (file storage: core's Checkpoints.DeleteJob), observed as
// one ObsJobDeleted per pipeline once it succeeded. A store of the job
// still in flight may land after it. Under StorageDeleteFail it fails
// (file storage: its first remove or its directory sync; in memory the
// call, deleting nothing), observed with Value "failed": the operator
// retries it (Cluster.CancelJob).
func (s *Storage) DeleteJob(job int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	fail := s.c.injected(s.c.cfg.Faults.StorageDeleteFail, FaultDelete, job, -1, 0)
	var err error
	switch {
	case s.file != nil:
		err = s.deleteJobFile(job, fail)
	case fail:
		s.c.W.Note("fault: storage cleanup of job %d fails", job)
		err = errors.New("simulated storage delete failure")
	default:
		for p := range s.c.cfg.Pipelines {
			delete(s.m, PipelineID{job, p})
		}
	}
	value := ""
	if err != nil {
		value = "failed" // it may have removed some or all of the job's checkpoints
	}
	for p := range s.c.cfg.Pipelines {
		s.c.observe(Obs{Kind: ObsJobDeleted, Job: job, Pipeline: p, Value: value})
	}
	return err
}

// Load returns a stored checkpoint by id, or nil when it is not stored.
func (s *Storage) Load(job int64, pipeline int, id int64) (*coord.Completed, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.file != nil {
		return s.loadFile(job, pipeline, id)
	}
	if s.readFails(job, pipeline, id, "load") {
		return nil, errReadFault
	}
	for _, c := range s.m[PipelineID{job, pipeline}] {
		if c.ID == id {
			return c, nil
		}
	}
	return nil, nil
}

// Peek lists a pipeline's stored ids, oldest first, as the harness reads
// them: no lock (the simulator runs one thread at a time), so the run is
// unchanged.
func (s *Storage) Peek(job int64, pipeline int) []int64 {
	if s.file != nil {
		return s.peekFile(PipelineID{job, pipeline})
	}
	var ids []int64
	for _, c := range s.m[PipelineID{job, pipeline}] {
		ids = append(ids, c.ID)
	}
	return ids
}

// Latest returns the newest checkpoint, or nil.
func (s *Storage) Latest(job int64, pipeline int) (*coord.Completed, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.file != nil {
		return s.latestFile(job, pipeline)
	}
	if s.readFails(job, pipeline, 0, "latest") {
		return nil, errReadFault
	}
	l := s.m[PipelineID{job, pipeline}]
	var latest *coord.Completed
	if len(l) > 0 {
		latest = l[len(l)-1]
	}
	if s.OnLatest != nil {
		id := int64(0)
		if latest != nil {
			id = latest.ID
		}
		s.OnLatest(job, pipeline, id)
	}
	return latest, nil
}

// IDs lists stored ids oldest first.
func (s *Storage) IDs(job int64, pipeline int) ([]int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []int64
	if s.file != nil {
		var err error
		if ids, err = s.idsFile(job, pipeline); err != nil {
			return nil, err
		}
	} else if s.readFails(job, pipeline, 0, "list") {
		return nil, errReadFault
	}
	for _, c := range s.m[PipelineID{job, pipeline}] {
		ids = append(ids, c.ID)
	}
	s.c.observe(Obs{Kind: ObsListed, Job: job, Pipeline: pipeline, IDs: slices.Clone(ids)})
	return ids, nil
}

// errReadFault is what a read of in-memory storage returns under
// StorageReadFail.
var errReadFault = errors.New("simulated storage read failure")

// readFails draws StorageReadFail for one read call of in-memory storage.
func (s *Storage) readFails(job int64, pipeline int, id int64, what string) bool {
	if !s.c.injected(s.c.cfg.Faults.StorageReadFail, FaultRead, job, pipeline, id) {
		return false
	}
	s.c.W.Note("fault: storage read fails (%s) job %d pipeline %d", what, job, pipeline)
	return true
}

// StateSum digests a checkpoint's task states (FNV-1a of each task's id
// and bytes, summed, so map order does not matter); 0 for nil.
func StateSum(cp *coord.Completed) uint64 {
	if cp == nil {
		return 0
	}
	var sum uint64
	for t, b := range cp.States {
		h := uint64(14695981039346656037) ^ uint64(t)
		h *= 1099511628211
		for _, c := range b {
			h = (h ^ uint64(c)) * 1099511628211
		}
		sum += h
	}
	return sum
}

// Has reports whether a pipeline's checkpoint id is stored.
func (s *Storage) Has(job int64, pipeline int, id int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.file != nil {
		return slices.Contains(s.peekFile(PipelineID{job, pipeline}), id)
	}
	return slices.ContainsFunc(s.m[PipelineID{job, pipeline}], func(c *coord.Completed) bool { return c.ID == id })
}

// Count returns how many checkpoints a pipeline holds.
func (s *Storage) Count(job int64, pipeline int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.file != nil {
		return len(s.peekFile(PipelineID{job, pipeline}))
	}
	return len(s.m[PipelineID{job, pipeline}])
}

// StatusStore is the simulated status store ("IMap"), where coordinators
// write their generation status (coord.GenStatus).
type StatusStore struct {
	c  *Cluster
	mu env.Mutex
	m  map[string]string
}

func (s *StatusStore) op(k string) error {
	s.c.sleep(s.c.cfg.Workload.StatusLatency)
	if !s.c.healed {
		s.c.sleep(s.c.cfg.Workload.StatusSlow)
	}
	job, p, ok := statusPipeline(k)
	if !ok {
		job, p = -1, -1
	}
	if s.c.injected(s.c.cfg.Faults.StatusRetryable, FaultStatus, job, p, 0) {
		return fmt.Errorf("simulated status store: %w", coord.ErrRetryable)
	}
	return nil
}

// Get reads a key ("" when absent).
func (s *StatusStore) Get(k string) (string, error) {
	if err := s.op(k); err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[k], nil
}

// Peek reads a key as the harness does: no latency, no fault, no lock
// (the simulator runs one thread at a time), so the run is unchanged.
func (s *StatusStore) Peek(k string) string { return s.m[k] }

// Set writes a key.
func (s *StatusStore) Set(k, v string) error {
	s.c.call("StatusStore.Set")
	job, p, ok := statusPipeline(k)
	if ok {
		s.c.observe(Obs{Kind: ObsStatusSet, Job: job, Pipeline: p, Value: v})
	} else {
		job, p = -1, -1
	}
	s.c.panicAt("StatusStore.Set", job, p, 0)
	if err := s.op(k); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[k] = v
	return nil
}

// Delete removes a key.
func (s *StatusStore) Delete(k string) error {
	s.c.call("StatusStore.Delete")
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, k)
	return nil
}

// IDs is the simulated checkpoint id counter.
type IDs struct {
	c    *Cluster
	mu   env.Mutex
	next map[PipelineID]int64
}

// Next returns the next id of a pipeline, starting at 1.
func (i *IDs) Next(job int64, pipeline int) (int64, error) {
	i.c.call("IDCounter.Next")
	if i.c.injected(i.c.cfg.Faults.IDFail, FaultID, job, pipeline, 0) {
		i.c.W.Note("fault: id allocation fails job %d pipeline %d", job, pipeline)
		return 0, fmt.Errorf("simulated id counter failure")
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	k := PipelineID{job, pipeline}
	if i.next[k] == 0 {
		i.next[k] = 1
	}
	id := i.next[k]
	i.next[k]++
	i.c.observe(Obs{Kind: ObsAllocate, Job: job, Pipeline: pipeline, ID: id})
	return id, nil
}

// Set sets the next id (restore from savepoint).
func (i *IDs) Set(job int64, pipeline int, next int64) error {
	i.c.call("IDCounter.Set")
	i.mu.Lock()
	defer i.mu.Unlock()
	i.next[PipelineID{job, pipeline}] = next
	return nil
}
