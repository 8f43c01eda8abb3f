package oracle

import (
	"fmt"
	"slices"
	"time"
)

// SavepointStore holds the checks on the harness's job savepoints:
// savepoint-crash, savepoint-retention and restore-integrity. They judge
// from what the harness handed the savepoint store and saw it return (each
// pipeline's checkpoint and states digest it wrote, the commits that
// returned, the commits a master crash hit), the faults it injected (a
// rotted savepoint), what the store lists and reads back when the harness
// asks after a restart and at the end of the run, and the states a restore
// from the savepoints loaded; never from what the store reports about
// itself beyond those answers.
type SavepointStore struct {
	pipelines int
	committed map[int64][]int64            // job -> savepoint ids whose commit returned nil, in order
	written   map[[2]int64]map[int32]int64 // (job, savepoint) -> pipeline -> checkpoint id written
	sums      map[savepointPayload]uint64  // the states digest of each payload written
	ambiguous map[[2]int64]bool            // a crash hit the commit: it may or may not have committed
	rotted    map[[2]int64]bool            // the savepoint_rot fault hit the savepoint
	disposed  map[[2]int64]bool            // the operator deleted it (Store.Delete returned nil)
	order     []string                     // savepoint-retention: an operator's listing whose newest is not the newest committed
	crashes   int                          // master restarts after a crash in a commit
	crash     []string                     // savepoint-crash, as found after each restart
	loads     []savepointLoad              // restore-integrity: loads of states other than written
}

type savepointPayload struct {
	job      int64
	pipeline int32
	id       int64
}

type savepointLoad struct {
	at        time.Duration
	payload   savepointPayload
	got, want uint64
}

// NewSavepointStore returns the checks for job savepoints of pipelines
// pipelines each.
func NewSavepointStore(pipelines int) *SavepointStore {
	return &SavepointStore{pipelines: pipelines, committed: map[int64][]int64{}, written: map[[2]int64]map[int32]int64{},
		sums: map[savepointPayload]uint64{}, ambiguous: map[[2]int64]bool{}, rotted: map[[2]int64]bool{}, disposed: map[[2]int64]bool{}}
}

// Wrote: the harness handed the store pipeline's checkpoint for savepoint
// id of job, whose task states digest to sum (recorded before the call: the
// manager may commit while the call is still returning).
func (s *SavepointStore) Wrote(job, id int64, pipeline int32, checkpoint int64, sum uint64) {
	k := [2]int64{job, id}
	if s.written[k] == nil {
		s.written[k] = map[int32]int64{}
	}
	s.written[k][pipeline] = checkpoint
	s.sums[savepointPayload{job, pipeline, checkpoint}] = sum
}

// Committed: the commit of savepoint id of job returned nil.
func (s *SavepointStore) Committed(job, id int64) { s.committed[job] = append(s.committed[job], id) }

// CrashHit: a master crash hit the commit of savepoint id of job.
func (s *SavepointStore) CrashHit(job, id int64) { s.ambiguous[[2]int64{job, id}] = true }

// Rotted: the savepoint_rot fault hit savepoint id of job: a state bit of
// a payload or a bit of the manifest flipped, or a payload lost its tail.
// List must skip it from then on, and a restore never load it: core's List
// verifies every bundle in full as Read does (manifest envelope checksum,
// ids, each payload's length, SHA-256, decoding and ids) and skips one that
// fails; a listing that returns it is a savepoint-retention finding.
func (s *SavepointStore) Rotted(job, id int64) { s.rotted[[2]int64{job, id}] = true }

// Listed: the operator listed job's savepoints (newest first) before
// disposing of all but the newest. The listing must put the newest
// committed savepoint first (what a restore would use), but for one that
// rotted or was disposed, or a newer one whose commit a crash hit and that
// survived it, and hold none that rotted (List must skip it);
// it reports whether it did (the operator deletes nothing otherwise).
func (s *SavepointStore) Listed(job int64, ids []int64) bool {
	newest := int64(-1)
	for _, id := range s.committed[job] {
		if k := [2]int64{job, id}; !s.rotted[k] && !s.disposed[k] {
			newest = max(newest, id)
		}
	}
	for _, id := range ids {
		if s.rotted[[2]int64{job, id}] {
			s.order = append(s.order, fmt.Sprintf("savepoint-retention: the listing of job %d holds savepoint %d, which rotted (List must skip a bundle that fails Read's checks)", job, id))
			return false
		}
	}
	// A savepoint whose commit a master crash hit (ambiguous) may have
	// reached its commit point (the marker renamed, its directory not yet
	// synced) and survived the restart: listed first, newer than every
	// commit that returned nil, it is the newest whole bundle the store
	// holds (savepoint 21000007 of the rot test's seed 2: "marker renamed
	// but not synced").
	first := int64(-1)
	if len(ids) > 0 {
		first = ids[0]
	}
	if k := [2]int64{job, first}; first > newest && s.ambiguous[k] && !s.disposed[k] {
		return true
	}
	if len(ids) > 0 && ids[0] != newest {
		s.order = append(s.order, fmt.Sprintf("savepoint-retention: the listing of job %d puts savepoint %d first, the newest committed is %d", job, ids[0], newest))
		return false
	}
	return true
}

// Disposed: the operator's Store.Delete of savepoint id of job returned nil.
func (s *SavepointStore) Disposed(job, id int64) { s.disposed[[2]int64{job, id}] = true }

// Jobs are the jobs with a savepoint written, sorted.
func (s *SavepointStore) Jobs() []int64 {
	var out []int64
	for k := range s.written {
		if !slices.Contains(out, k[0]) {
			out = append(out, k[0])
		}
	}
	slices.Sort(out)
	return out
}

// CommittedJobs are the jobs with a committed savepoint, sorted.
func (s *SavepointStore) CommittedJobs() []int64 {
	jobs := make([]int64, 0, len(s.committed))
	for j := range s.committed {
		jobs = append(jobs, j)
	}
	slices.Sort(jobs)
	return jobs
}

// CommittedIDs are the savepoints of job whose commit returned nil, in
// commit order.
func (s *SavepointStore) CommittedIDs(job int64) []int64 { return slices.Clone(s.committed[job]) }

// Restarted: the master restarted after a crash during a commit and
// re-opened the store.
func (s *SavepointStore) Restarted() { s.crashes++ }

func (s *SavepointStore) crashFinding(format string, args ...any) {
	s.crash = append(s.crash, fmt.Sprintf("after crash %d: ", s.crashes)+fmt.Sprintf(format, args...))
}

// Whole checks job's savepoints after a restart (savepoint-crash): only
// whole bundles are listed (each listed one committed, or its commit was
// hit by the crash, and every pipeline holds the checkpoint the harness
// wrote), every committed one is still listed, and the newest listed (what
// a restore uses) is the newest whole one. listed is what the store lists
// for the job, newest first (listErr: the listing failed); read reads a
// listed bundle back, each pipeline's checkpoint id (a pipeline missing:
// absent), and is called only for the bundles the harness committed or saw
// a crash hit.
func (s *SavepointStore) Whole(job int64, listed []int64, listErr error, read func(id int64) (map[int32]int64, error)) {
	if listErr != nil {
		s.crashFinding("list job %d: %v", job, listErr)
		return
	}
	isListed := map[int64]bool{}
	var newest int64 = -1
	for _, id := range listed {
		isListed[id] = true
		if s.disposed[[2]int64{job, id}] {
			s.crashFinding("savepoint %d of job %d is listed although it was deleted", id, job)
			continue
		}
		if !slices.Contains(s.committed[job], id) && !s.ambiguous[[2]int64{job, id}] {
			s.crashFinding("savepoint %d of job %d is listed but its commit never succeeded", id, job)
			continue
		}
		s.bundle(job, id, read)
		newest = max(newest, id)
	}
	for _, id := range s.committed[job] {
		if k := [2]int64{job, id}; s.rotted[k] || s.disposed[k] {
			continue // disposed, or List skips it: its payload no longer matches its manifest
		}
		if !isListed[id] {
			s.crashFinding("committed savepoint %d of job %d is not listed after the restart", id, job)
		}
		newest = max(newest, id)
	}
	if len(listed) > 0 && listed[0] != newest {
		s.crashFinding("a restore of job %d would use savepoint %d, the newest whole one is %d", job, listed[0], newest)
	}
}

// bundle: every pipeline of a listed bundle holds the checkpoint the
// harness wrote for it.
func (s *SavepointStore) bundle(job, id int64, read func(id int64) (map[int32]int64, error)) {
	held, err := read(id)
	if err != nil {
		s.crashFinding("listed savepoint %d of job %d does not read back: %v", id, job, err)
		return
	}
	want := s.written[[2]int64{job, id}]
	for p := range int32(s.pipelines) {
		ck, ok := held[p]
		switch {
		case !ok:
			s.crashFinding("listed savepoint %d of job %d has no pipeline %d", id, job, p)
		case ck != want[p]:
			s.crashFinding("listed savepoint %d of job %d pipeline %d holds checkpoint %d, the harness wrote %d", id, job, p, ck, want[p])
		}
	}
}

// CrashFindings reports savepoint-crash for each inconsistency found after
// a restart, at the end of the run.
func (s *SavepointStore) CrashFindings(f *Findings, at time.Duration) {
	for _, v := range s.crash {
		f.Add(SavepointCrash, at, "savepoint store", "%s", v)
	}
}

// Retention checks one job's savepoints at the end of the run
// (savepoint-retention): every savepoint whose commit returned is still
// listed, unless the savepoint_rot fault hit it or the operator deleted
// it, and none the operator deleted or the rot hit is (List skips a bundle
// that fails any of Read's checks). listed is what the store lists for the
// job (listErr: the listing failed).
func (s *SavepointStore) Retention(f *Findings, at time.Duration, job int64, listed []int64, listErr error) {
	if listErr != nil {
		f.Add(SavepointRetention, at, "savepoint store", "savepoint-retention: list job %d: %v", job, listErr)
		return
	}
	for _, id := range s.committed[job] {
		k := [2]int64{job, id}
		switch have := slices.Contains(listed, id); {
		case s.disposed[k] && have:
			f.Add(SavepointRetention, at, "savepoint store", "savepoint-retention: savepoint %d of job %d is still listed after its delete returned", id, job)
		case s.rotted[k] && have:
			f.Add(SavepointRetention, at, "savepoint store", "savepoint-retention: savepoint %d of job %d is still listed after it rotted (List must skip a bundle that fails Read's checks)", id, job)
		case !s.disposed[k] && !have && !s.rotted[k]:
			f.Add(SavepointRetention, at, "savepoint store", "savepoint-retention: committed savepoint %d of job %d is gone without a delete", id, job)
		}
	}
}

// OrderFindings reports savepoint-retention for each operator's listing
// that did not put the newest committed savepoint first.
func (s *SavepointStore) OrderFindings(f *Findings, at time.Duration) {
	for _, v := range s.order {
		f.Add(SavepointRetention, at, "savepoint store", "%s", v)
	}
}

// Loaded: a restore from job's savepoints loaded pipeline's checkpoint
// with task states digesting to got. A load of states other than the
// harness wrote for that checkpoint is a restore-integrity finding (a
// restore must skip or refuse a rotted savepoint, never load it).
func (s *SavepointStore) Loaded(at time.Duration, job int64, pipeline int32, checkpoint int64, got uint64) {
	k := savepointPayload{job, pipeline, checkpoint}
	if want, ok := s.sums[k]; ok && got != want {
		s.loads = append(s.loads, savepointLoad{at: at, payload: k, got: got, want: want})
	}
}

// IntegrityFindings reports restore-integrity for each load of states
// other than written, at the time of the load.
func (s *SavepointStore) IntegrityFindings(f *Findings) {
	for _, l := range s.loads {
		f.Add(RestoreIntegrity, l.at, Subject(l.payload.job, int(l.payload.pipeline)), "%s", fmt.Sprintf(
			"a restore from the job's savepoints loaded checkpoint %d with states (digest %016x) other than the savepoint writer wrote (digest %016x): "+
				"corrupt stored bytes were loaded instead of skipped", l.payload.id, l.got, l.want))
	}
}

// SavepointRequest is a savepoint the harness requested
// (Manager.TriggerSavepoint), whether its future returned an outcome and
// whether that outcome was success, and whether a Commit of the job's
// savepoint store returned nil between the request and the answer.
type SavepointRequest struct {
	Job       int64
	At        time.Duration
	Answered  bool
	Completed bool
	Committed bool
}

// SavepointOutcomes reports savepoint-outcome for every request that
// neither completed nor failed by the end of the run, and for every one
// that completed while no commit of its job's savepoint store returned
// nil meanwhile: a savepoint whose write or commit failed (the
// savepoint_failure fault) must be reported failed to its caller.
func SavepointOutcomes(f *Findings, at time.Duration, reqs []SavepointRequest) {
	for _, q := range reqs {
		switch {
		case !q.Answered:
			f.Add(SavepointOutcome, at, fmt.Sprintf("job %d", q.Job),
				"the savepoint requested at %v neither completed nor failed by the end of the run", q.At)
		case q.Completed && !q.Committed:
			f.Add(SavepointOutcome, at, fmt.Sprintf("job %d", q.Job),
				"the savepoint requested at %v completed, but no commit of the job's savepoint store returned nil since the request: "+
					"a savepoint that failed was reported complete", q.At)
		}
	}
}
