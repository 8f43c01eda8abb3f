package oracle

import (
	"fmt"
	"slices"
	"time"

	"github.com/ckptsim/ckptsim/workloads/cluster"
)

// Storage judges checkpoint storage against the retention protocol, from
// boundary observations only (cluster.Obs: Storage.Store, Storage.IDs,
// Storage.Delete, the restores the harness drove, Transport.NotifyComplete
// and RestoreState) and what the simulated storage holds (read by the
// harness without a scheduling point), never from a coordinator event or
// counter.
//
// The rule (core/coord's retention with max-retained N): the checkpoints
// retained are those whose store wrote, in the order the writes landed;
// once they are 2N or more, all but the newest N are deleted. A store
// whose write landed counts whether its reply came back or was lost (the
// caller saw an error and reconciles with storage: it lists storage,
// which reorders the retained by id, and then deletes down to N the same
// way); a store that failed before writing changes nothing; a restore
// lists storage (the same reordering) and deletes down to N. So what
// storage holds per pipeline is a function of the writes that landed and
// of nothing core keeps in memory. A canceled job's cleanup
// (Storage.DeleteJob, cluster.ObsJobDeleted) retains nothing of its
// pipelines: storage must hold only what lands after it.
//
//   - retention: storage never holds more than 2N-1 checkpoints of a
//     pipeline, except while a retention step is open (from a store's
//     landed write until the storing thread's next boundary call: its
//     Storage.Delete, its status write or notification; Storage.IDs is
//     part of the step), when it may hold 2N; never more.
//   - storage-retention: at every quiescent point (no Storage.Store of the
//     pipeline in flight, no restore the harness drove in flight, no
//     retention step open) and at the end of the run, storage holds
//     exactly what the rule keeps: no orphan (a checkpoint the rule
//     deleted, still stored), no premature delete (one the rule keeps,
//     missing).
//   - restore-integrity: every checkpoint handed to a task (NotifyComplete,
//     RestoreState) whose id a landed store wrote carries the states that
//     store carried (a digest, cluster.StateSum): a restore never loads
//     rotted bytes. A RestoreState hand-over (a redeploy's, of what the
//     restore read back from storage) carries an id a landed checkpoint
//     store of the pipeline wrote, or none.
//   - restore-newest: a restore the harness drove (ObsRestoreBegin to
//     ObsRestoreEnd) hands the tasks, by Transport.NotifyComplete on the
//     thread that called Coordinator.Restore (its re-commit; the
//     completions of other threads meanwhile are not the restore's), a
//     checkpoint at least as new (by id) as the newest one whose write
//     landed before the restore began (reply lost or not), that no
//     Storage.Delete or job cleanup removed and that did not rot
//     (bit_rot) by the hand-over; a restore that returned without error
//     and handed nothing, while such a checkpoint is stored at its end,
//     is a violation too (except for a pipeline whose sources the harness
//     finished: a finished pipeline is not restored). Writes landing
//     during the restore may be picked and need not be. A redeploy the
//     harness drove (ObsRestoreBegin with Redeploy: Coordinator.Restore
//     (false), then each task reports WAITING_RESTORE) hands the state by
//     Transport.RestoreState instead, after the call, on each task's
//     report: every RestoreState hand-over of a pipeline carries a
//     checkpoint at least as new as the newest one whose write landed
//     before the pipeline's latest redeploy began and that is stored
//     intact at the hand-over (not nil while there is one, not another
//     pipeline's, not an older one).
type Storage struct {
	f        *Findings
	now      func() time.Duration
	n        int
	pipes    map[cluster.PipelineID]*stPipe
	steps    map[int32]*stPipe // thread -> the pipeline whose retention step it has open
	listings map[int32]*stPipe // thread -> the pipeline whose rebuild listing it has open (stPipe.listing)
	// seq numbers the landed writes in the order they landed (restore-newest).
	seq      int64
	obs      int64 // observations so far (the order of savepoint writes and redeploys)
	restores map[rnKey]*rnWindow
}

// rnKey is a restore in flight: the thread that called the restore and
// the pipeline (a whole-job restore opens one per pipeline on one thread).
type rnKey struct {
	thread int32
	pipe   *stPipe
}

// rnWindow is one restore in flight, for restore-newest.
type rnWindow struct {
	begin  int64 // Storage.seq when the restore began: writes numbered up to it landed before
	call   int64
	handed bool
}

type stPipe struct {
	subj string
	keep []int64          // the ids the rule retains, oldest first
	sums map[int64]uint64 // id -> the states digest its landed store carried
	// savepoints: id -> the pipeline's part of a savepoint
	// (ObsSavepointWrite): a savepoint is never stored as a checkpoint,
	// and a restore that finds none stored newer keeps it (a redeployed
	// task may be handed it).
	savepoints map[int64]spWrite
	// redeployAt: the observation (Storage.obs) the latest redeploy began at
	redeployAt int64
	storing    map[int32]stCall // thread -> its Storage.Store in flight
	// step: a retention step open on thread stepBy since stepAt;
	// trimLater: its write's reply was lost, the rule trims at the
	// caller's listing (or at the step's end).
	step      bool
	stepBy    int32
	stepAt    time.Duration
	trimLater bool
	restoring int
	// restore-newest: id -> the seq its write landed at; the ids rotted
	// and the ids deleted since they landed; the sources finished.
	landedAt map[int64]int64
	rotted   map[int64]bool
	gone     map[int64]bool
	finished bool
	// stranded: ids a failed Storage.Delete did not delete durably (an
	// ObsDeleted "failed"): held or not, they are no orphan, and they
	// count against no bound, until a listing shows them stored (the
	// caller rebuilds its retention from the listing: they are retained
	// again, in id order, and deleted in turn) or a delete removes them.
	stranded map[int64]bool
	// unsure: ids a failed delete touched, until a delete of them returns
	// (or the id lands again): one retained again at a listing may still be
	// gone later, when a storage crash resolves its unsynced removal
	// (Checkpoints.Delete failing at its directory sync), so it is never
	// missing early.
	unsure map[int64]bool
	// unsettled: the storing thread's reconcile listing failed inside its
	// retention step (storage_read_failure; the caller reconciles after a
	// lost reply, or after BUGGIFY's store-fails-after-write): the trim
	// waits for the pipeline's next listing, the restore's that the
	// failure leads to; until then storage may hold 2N and is not judged
	// but at the end of the run.
	unsettled bool
	// listing: a thread's listing showed 2N or more ids stored (a rebuild
	// of the retained ids from storage, a restore's or a reconcile's, that
	// trims next): storage may hold 2N until that thread's next boundary
	// call, its delete (listingBy; a slow listing reply, BUGGIFY
	// restore-list-slow, keeps the window open).
	listing   bool
	listingBy int32
	// redeploy: the pipeline's latest redeploy (nil: none yet), whose
	// RestoreState hand-overs restore-newest judges.
	redeploy *rnWindow
}

type stCall struct {
	id  int64
	sum uint64
}

// NewStorage returns the storage checks for max-retained n, reporting to f.
func NewStorage(f *Findings, now func() time.Duration, n int) *Storage {
	return &Storage{f: f, now: now, n: n, pipes: map[cluster.PipelineID]*stPipe{}, steps: map[int32]*stPipe{}, listings: map[int32]*stPipe{}, restores: map[rnKey]*rnWindow{}}
}

// Attach subscribes the checks to a cluster's boundary observations.
func (k *Storage) Attach(c View) { c.OnBoundary(k.Observe) }

func (k *Storage) pipe(job int64, p int) *stPipe {
	key := cluster.PipelineID{Job: job, Pipeline: p}
	s, ok := k.pipes[key]
	if !ok {
		s = &stPipe{subj: Subject(job, p), sums: map[int64]uint64{}, savepoints: map[int64]spWrite{}, storing: map[int32]stCall{},
			landedAt: map[int64]int64{}, rotted: map[int64]bool{}, gone: map[int64]bool{}, stranded: map[int64]bool{}, unsure: map[int64]bool{}}
		k.pipes[key] = s
	}
	return s
}

// Observe takes one boundary observation.
func (k *Storage) Observe(o cluster.Obs) {
	k.obs++
	if s := k.steps[o.Thread]; s != nil && o.Kind != cluster.ObsListed && o.Kind != cluster.ObsFault && o.Kind != cluster.ObsSavepointWrite {
		k.endStep(s) // the storing thread made its next call: the step is over
	}
	if s := k.listings[o.Thread]; s != nil && o.Kind != cluster.ObsListed {
		delete(k.listings, o.Thread) // the listing thread made its next call (its trim's delete)
		s.listing = false
	}
	if o.Pipeline < 0 {
		return
	}
	p := k.pipe(o.Job, o.Pipeline)
	switch o.Kind {
	case cluster.ObsRestoreBegin:
		p.restoring++
		if o.Redeploy {
			p.redeploy = &rnWindow{begin: k.seq, call: o.Call} // no re-commit: judged at each RestoreState
			p.redeployAt = k.obs
			break
		}
		k.restores[rnKey{o.Thread, p}] = &rnWindow{begin: k.seq, call: o.Call}
	case cluster.ObsRestoreEnd:
		p.restoring--
		k.restoreEnd(p, o)
	case cluster.ObsStoreBegin:
		p.storing[o.Thread] = stCall{o.ID, o.Sum}
	case cluster.ObsStored:
		k.landed(p, o.Thread, false)
	case cluster.ObsStoreFailed:
		if o.Value == "landed" {
			k.landed(p, o.Thread, true)
		} else {
			delete(p.storing, o.Thread)
		}
	case cluster.ObsListed:
		p.unsettled = false
		if len(o.IDs) >= 2*k.n && k.n > 0 {
			if q := k.listings[p.listingBy]; q == p {
				delete(k.listings, p.listingBy)
			}
			p.listing, p.listingBy = true, o.Thread
			k.listings[o.Thread] = p
		}
		// A listing that shows a stranded id stored is the caller's rebuild
		// of its retention from storage: every listed id that landed and
		// that no delete removed is retained again (the stranded ones and
		// those the rule trimmed before whose delete has not come yet), and
		// the trim below runs over all of them, as the caller's does.
		if slices.ContainsFunc(o.IDs, func(id int64) bool { return p.stranded[id] }) {
			for _, id := range o.IDs {
				_, landed := p.landedAt[id]
				if (p.stranded[id] || landed && !p.gone[id]) && !slices.Contains(p.keep, id) {
					p.keep = append(p.keep, id)
				}
				delete(p.stranded, id)
			}
		}
		slices.Sort(p.keep)
		if p.step && p.stepBy == o.Thread {
			p.trimLater = false
		}
		p.trim(k.n)
	case cluster.ObsSavepointWrite:
		p.savepoints[o.ID] = spWrite{sum: o.Sum, at: k.obs}
	case cluster.ObsNotify, cluster.ObsRestoreState:
		k.integrity(p, o)
		if w := k.restores[rnKey{o.Thread, p}]; w != nil && o.Kind == cluster.ObsNotify {
			k.handed(p, w, o)
		}
		if o.Kind == cluster.ObsRestoreState && p.redeploy != nil {
			k.redeployed(p, p.redeploy, o)
		}
	case cluster.ObsDeleted:
		for _, id := range o.IDs {
			if o.Value == "failed" {
				p.stranded[id] = true
				p.unsure[id] = true
				continue
			}
			p.gone[id] = true
			delete(p.stranded, id)
			delete(p.unsure, id)
		}
	case cluster.ObsFault:
		if o.Fault == cluster.FaultBitRot || o.Fault == cluster.FaultTorn {
			p.rotted[o.ID] = true
		}
		if o.Fault == cluster.FaultRead && p.step && p.stepBy == o.Thread {
			p.unsettled = true // the storing thread's reconcile listing failed
		}
	case cluster.ObsSourcesFinished:
		p.finished = true
	case cluster.ObsJobDeleted:
		if o.Value == "failed" { // some may be gone, some held: stranded until the retried cleanup
			for _, id := range p.keep {
				p.stranded[id] = true
				p.unsure[id] = true
			}
			p.keep = nil
			break
		}
		p.keep = nil // job-terminal cleanup: nothing is retained (a store still in flight may land after)
		clear(p.stranded)
		clear(p.unsure)
		for id := range p.landedAt {
			p.gone[id] = true
		}
	}
}

// newestBefore is the newest checkpoint (by id) whose write landed at or
// before seq and that is stored intact now (not deleted, not rotted); 0:
// none.
func (p *stPipe) newestBefore(seq int64) int64 {
	newest := int64(0)
	for id, at := range p.landedAt {
		if at <= seq && id > newest && !p.gone[id] && !p.rotted[id] {
			newest = id
		}
	}
	return newest
}

// handed judges a restore's hand-over (restore-newest).
func (k *Storage) handed(p *stPipe, w *rnWindow, o cluster.Obs) {
	w.handed = true
	if want := p.newestBefore(w.begin); o.ID < want {
		k.f.Once(RestoreNewest, k.now(), p.subj, "restore call %d handed task %d checkpoint %d (Transport.NotifyComplete) while checkpoint %d, "+
			"newer, landed before the restore began and is stored intact: the restore skipped a readable checkpoint", w.call, o.Task, o.ID, want)
	}
}

// redeployed judges a redeploy's hand-over to one task (restore-newest):
// Transport.RestoreState must carry a checkpoint at least as new as the
// newest intact one that landed before the redeploy began (ID 0: it
// handed none). A pipeline whose sources the harness finished is exempt,
// as for a restore.
func (k *Storage) redeployed(p *stPipe, w *rnWindow, o cluster.Obs) {
	if p.finished {
		return
	}
	want := p.newestBefore(w.begin)
	if o.ID >= want {
		return
	}
	handed, from := fmt.Sprintf("checkpoint %d", o.ID), "an older state"
	if o.ID == 0 {
		handed, from = "no checkpoint", "empty"
	}
	k.f.Once(RestoreNewest, k.now(), p.subj, "redeploy (restore call %d) handed task %d %s (Transport.RestoreState) while checkpoint %d, "+
		"newer, landed before the redeploy began and is stored intact: the redeployed task restarts from %s", w.call, o.Task, handed, want, from)
}

// restoreEnd closes a restore's window: one that returned without error
// and handed nothing while a checkpoint that landed before it is stored
// intact restarted its tasks from empty (restore-newest).
func (k *Storage) restoreEnd(p *stPipe, o cluster.Obs) {
	key := rnKey{o.Thread, p}
	w := k.restores[key]
	if w == nil || w.call != o.Call {
		return
	}
	delete(k.restores, key)
	if w.handed || o.Value == "failed" || p.finished {
		return
	}
	if want := p.newestBefore(w.begin); want > 0 {
		k.f.Once(RestoreNewest, k.now(), p.subj, "restore call %d returned without error and handed the tasks no checkpoint while checkpoint %d "+
			"landed before it began and is stored intact: the restore started from empty", w.call, want)
	}
}

// landed takes a store whose write took effect on thread t: the rule
// retains it and, unless its reply was lost, trims at once; a retention
// step opens on t.
func (k *Storage) landed(p *stPipe, t int32, lost bool) {
	call := p.storing[t]
	delete(p.storing, t)
	p.sums[call.id] = call.sum
	k.seq++
	p.landedAt[call.id] = k.seq
	delete(p.gone, call.id)
	delete(p.rotted, call.id)
	delete(p.stranded, call.id)
	delete(p.unsure, call.id)
	p.keep = append(p.keep, call.id)
	if !lost {
		p.trim(k.n)
	}
	if p.step {
		k.endStep(p) // another thread's step (only across a restore)
	}
	p.step, p.stepBy, p.stepAt, p.trimLater = true, t, k.now(), lost
	k.steps[t] = p
}

func (k *Storage) endStep(p *stPipe) {
	delete(k.steps, p.stepBy)
	if p.trimLater && !p.unsettled {
		p.trim(k.n)
	}
	p.step, p.trimLater = false, false
}

// trim deletes all but the newest n once 2n or more are retained.
func (p *stPipe) trim(n int) {
	if len(p.keep) >= 2*n {
		p.keep = slices.Clone(p.keep[len(p.keep)-n:])
	}
}

// spWrite is a pipeline's part of a savepoint: the states digest core
// handed the savepoint session, and the observation (Storage.obs) it came at.
type spWrite struct {
	sum uint64
	at  int64
}

func (k *Storage) integrity(p *stPipe, o cluster.Obs) {
	want, ok := p.sums[o.ID]
	if w, sp := p.savepoints[o.ID]; !ok && sp && o.Kind == cluster.ObsRestoreState &&
		(p.redeploy == nil || w.at < p.redeployAt) {
		want, ok = w.sum, true // a savepoint of the pipeline's ready tasks, before the redeploy began
	}
	if !ok && o.Kind == cluster.ObsRestoreState && o.ID != 0 && !p.finished {
		// A redeployed task is handed what the restore read back from
		// storage (or a checkpoint its tasks completed since they were
		// ready): one no checkpoint store of this pipeline wrote is
		// another pipeline's, or was taken while the tasks waited for
		// their state (a savepoint created after the redeploy began).
		k.f.Once(RestoreIntegrity, k.now(), p.subj, "Transport.RestoreState handed task %d checkpoint %d, which no checkpoint store of this "+
			"pipeline wrote (another pipeline's, or a savepoint taken while the redeployed tasks waited for their state): "+
			"the task restores a state that is not what its pipeline stored", o.Task, o.ID)
		return
	}
	if !ok || o.Sum == want {
		return
	}
	call := "Transport.NotifyComplete"
	if o.Kind == cluster.ObsRestoreState {
		call = "Transport.RestoreState"
	}
	k.f.Once(RestoreIntegrity, k.now(), p.subj, "%s handed task %d checkpoint %d with states (digest %016x) other than its store wrote (digest %016x): "+
		"corrupt stored bytes were loaded instead of skipped", call, o.Task, o.ID, o.Sum, want)
}

// Retention judges a pipeline's stored count (the ids held, sampled by
// the harness); the ids a failed delete stranded do not count.
func (k *Storage) Retention(job int64, pipeline int, ids []int64) {
	p := k.pipe(job, pipeline)
	held := 0
	for _, id := range ids {
		if !p.stranded[id] {
			held++
		}
	}
	limit := 2*k.n - 1
	if p.step || p.unsettled || p.listing {
		limit = 2 * k.n // a landed write before its retention step ran, or a rebuild before its trim
	}
	if held > limit {
		k.f.Once(Retention, k.now(), p.subj, "holds %d checkpoints, max-retained %d allows at most %d", held, k.n, 2*k.n-1)
	}
}

// Quiescent reports whether storage of a pipeline is settled: no store in
// flight, no restore in flight, no retention step open (at the end of the
// run, a step open for at least settle is taken as done: the storing
// thread made no boundary call since, and the step makes no scheduling
// wait).
func (k *Storage) quiescent(p *stPipe, settle time.Duration) bool {
	if len(p.storing) > 0 || p.restoring > 0 || (p.unsettled && settle == 0) {
		return false
	}
	return !p.step || (settle > 0 && k.now()-p.stepAt >= settle)
}

// Judge compares what storage holds for a pipeline (ids, oldest first)
// with what the rule keeps, if the pipeline is quiescent. settle > 0 at
// the end of the run (see quiescent).
func (k *Storage) Judge(job int64, pipeline int, held []int64, settle time.Duration) {
	p := k.pipe(job, pipeline)
	if !k.quiescent(p, settle) {
		return
	}
	keep := slices.Sorted(slices.Values(p.keep))
	if slices.Equal(keep, held) {
		return
	}
	excused := slices.DeleteFunc(slices.Clone(held), func(id int64) bool { return p.stranded[id] })
	if sure := slices.DeleteFunc(slices.Clone(keep), func(id int64) bool { return p.unsure[id] && !slices.Contains(held, id) }); slices.Equal(sure, excused) {
		return
	}
	var orphans, missing []int64
	for _, id := range held {
		if !slices.Contains(keep, id) && !p.stranded[id] {
			orphans = append(orphans, id)
		}
	}
	for _, id := range keep {
		if !slices.Contains(held, id) && !p.unsure[id] {
			missing = append(missing, id)
		}
	}
	k.f.Once(StorageRetention, k.now(), p.subj, "storage holds %v where retention (max-retained %d) keeps %v of the writes that landed: "+
		"orphans %v (retention or the job's cleanup deleted them), deleted early %v", held, k.n, keep, orphans, missing)
}

// Pipelines returns the pipelines seen, in order.
func (k *Storage) Pipelines() []cluster.PipelineID {
	ps := make([]cluster.PipelineID, 0, len(k.pipes))
	for id := range k.pipes {
		ps = append(ps, id)
	}
	slices.SortFunc(ps, func(a, b cluster.PipelineID) int {
		if a.Job != b.Job {
			return int(a.Job - b.Job)
		}
		return a.Pipeline - b.Pipeline
	})
	return ps
}
