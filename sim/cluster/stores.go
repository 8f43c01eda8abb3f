package cluster

import (
	"fmt"
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
}

func newStorage(c *Cluster) *Storage {
	return &Storage{c: c, mu: c.W.NewMutex("sim.storage"), m: map[PipelineID][]*coord.Completed{}}
}

// Store writes a checkpoint, after a latency, unless a fault fails it.
func (s *Storage) Store(cp *coord.Completed) error {
	s.c.leases.effect("Storage.Store")
	if s.OnStore != nil {
		s.OnStore(cp, nil, true)
	}
	s.c.sleep(s.c.cfg.Workload.StorageLatency)
	if s.c.injected(s.c.cfg.Faults.StorageFail, FaultStorage, cp.Job, cp.Pipeline, cp.ID) {
		s.c.W.Note("fault: storage write fails job %d pipeline %d id %d", cp.Job, cp.Pipeline, cp.ID)
		err := fmt.Errorf("simulated storage failure")
		if s.OnStore != nil {
			s.OnStore(cp, err, false)
		}
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := PipelineID{cp.Job, cp.Pipeline}
	s.m[k] = append(s.m[k], cp)
	slices.SortFunc(s.m[k], func(a, b *coord.Completed) int { return int(a.ID - b.ID) })
	s.c.observe(Obs{Kind: ObsStored, Job: cp.Job, Pipeline: cp.Pipeline, ID: cp.ID})
	return nil
}

// Delete removes checkpoints by id.
func (s *Storage) Delete(job int64, pipeline int, ids []int64) error {
	s.c.leases.effect("Storage.Delete")
	s.mu.Lock()
	defer s.mu.Unlock()
	k := PipelineID{job, pipeline}
	s.m[k] = slices.DeleteFunc(s.m[k], func(c *coord.Completed) bool { return slices.Contains(ids, c.ID) })
	s.Deleted += len(ids)
	return nil
}

// Latest returns the newest checkpoint, or nil.
func (s *Storage) Latest(job int64, pipeline int) (*coord.Completed, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
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
	for _, c := range s.m[PipelineID{job, pipeline}] {
		ids = append(ids, c.ID)
	}
	return ids, nil
}

// Has reports whether a pipeline's checkpoint id is stored.
func (s *Storage) Has(job int64, pipeline int, id int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.ContainsFunc(s.m[PipelineID{job, pipeline}], func(c *coord.Completed) bool { return c.ID == id })
}

// Count returns how many checkpoints a pipeline holds.
func (s *Storage) Count(job int64, pipeline int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
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
	s.c.leases.effect("StatusStore.Set")
	if job, p, ok := statusPipeline(k); ok {
		s.c.observe(Obs{Kind: ObsStatusSet, Job: job, Pipeline: p, Value: v})
	}
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
	s.c.leases.effect("StatusStore.Delete")
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
	i.c.leases.effect("IDCounter.Next")
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
	i.c.leases.effect("IDCounter.Set")
	i.mu.Lock()
	defer i.mu.Unlock()
	i.next[PipelineID{job, pipeline}] = next
	return nil
}
