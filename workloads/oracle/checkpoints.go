package oracle

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ckptsim/ckptsim/core/coord"
	"github.com/ckptsim/ckptsim/workloads/cluster"
)

// Checkpoints holds the checks of a pipeline's checkpoint sequence:
// increasing-ids, generation-order, one-outstanding and
// barrier-in-lease-body. Like the generation checks they see only boundary
// observations (cluster.Obs) and virtual time, never a coordinator event:
//
//   - A checkpoint id is seen when IDCounter.Next returns it, when a
//     barrier (Transport.TriggerBarrier) or Storage.Store carries an id
//     the counter did not hand out, and again when a barrier carries a
//     known id with another trigger timestamp (a new checkpoint under an
//     old id); never for the COMPLETED_POINT id (one fixed id per
//     pipeline). A new id must be above every id the pipeline saw before: increasing-ids when no restore the harness drove began
//     since that id was seen, generation-order when one did (a restore must
//     never rewind the pipeline's id sequence).
//   - A checkpoint is outstanding from its first barrier until
//     Storage.Store returns it or Transport.NotifyComplete names it (a
//     savepoint and the COMPLETED_POINT are never stored), or the
//     pipeline's Lease.CancelAll returns (the end of every clean: a
//     failure's, a restore's, the finish's). A checkpoint whose id was
//     seen before the latest CancelAll is dead even if its barriers go
//     out later (a continuation still running after the clean). When a
//     barrier of one checkpoint goes out while another is outstanding,
//     two are in flight at once: one-outstanding.
//   - A barrier dispatched from inside a lease task body (the lease
//     decorator's account of the calling thread) is barrier-in-lease-body.
type Checkpoints struct {
	f     *Findings
	now   func() time.Duration
	pipes map[cluster.PipelineID]*cpPipe
}

type cpSeen struct {
	at       time.Duration
	restores int // restores of its pipeline begun before it was seen
	epoch    int // CancelAlls of its pipeline before it was seen
	how      string
	done     bool          // stored or notified complete
	stamp    int64         // the trigger timestamp its barriers carry (0: none seen yet)
	liveAt   time.Duration // its first barrier
}

type cpPipe struct {
	subj     string // Subject, made once (it named every observation)
	ids      map[int64]*cpSeen
	max      int64 // the highest id seen (0: none)
	restores int   // restores begun
	epoch    int   // CancelAlls returned
	live     []int64
	// the highest id IDCounter.Next handed out, when, and how many
	// restores had begun then
	maxAlloc         int64
	maxAllocAt       time.Duration
	maxAllocRestores int
}

// NewCheckpoints returns the checkpoint-sequence checks reporting to f.
func NewCheckpoints(f *Findings, now func() time.Duration) *Checkpoints {
	return &Checkpoints{f: f, now: now, pipes: map[cluster.PipelineID]*cpPipe{}}
}

// Attach subscribes the checks to a cluster's boundary observations.
func (k *Checkpoints) Attach(c View) { c.OnBoundary(k.Observe) }

func (k *Checkpoints) pipe(job int64, p int) *cpPipe {
	key := cluster.PipelineID{Job: job, Pipeline: p}
	s, ok := k.pipes[key]
	if !ok {
		s = &cpPipe{subj: Subject(job, p), ids: map[int64]*cpSeen{}}
		k.pipes[key] = s
	}
	return s
}

// Observe takes one boundary observation.
func (k *Checkpoints) Observe(o cluster.Obs) {
	if o.Pipeline < 0 {
		return
	}
	p := k.pipe(o.Job, o.Pipeline)
	now, subj := k.now(), p.subj
	switch o.Kind {
	case cluster.ObsRestoreBegin:
		p.restores++
	case cluster.ObsCancelAll:
		p.epoch++
		p.live = p.live[:0]
	case cluster.ObsAllocate:
		k.see(p, o.ID, now, subj, "handed out by IDCounter.Next", true, true)
	case cluster.ObsStored:
		k.see(p, o.ID, now, subj, "stored", false, false)
		p.done(o.ID)
	case cluster.ObsNotify:
		p.done(o.ID)
	case cluster.ObsBarrier:
		if o.InLeaseBody {
			k.f.Once(BarrierInLeaseBody, now, subj, "the barrier of checkpoint %s to task %d was dispatched from inside a lease task body "+
				"(on the scheduler's dispatch thread, not handed off to the coordinator executor)", idText(o.ID), o.Task)
		}
		s := p.ids[o.ID]
		// A barrier of a known id with another trigger timestamp is a new
		// checkpoint under an old id (for COMPLETED_POINT, whose id is
		// fixed, the next one).
		reused := s != nil && s.stamp != 0 && s.stamp != o.Stamp
		s = k.see(p, o.ID, now, subj, "carried by a barrier", reused, false)
		if reused {
			s.done = false
		}
		if s.stamp == 0 {
			s.stamp = o.Stamp
		}
		if s.epoch != p.epoch || slices.Contains(p.live, o.ID) || s.done {
			return // a dead checkpoint's late barrier, or one more task of a live one
		}
		if len(p.live) > 0 {
			var others []string
			for _, id := range p.live {
				t := p.ids[id]
				others = append(others, fmt.Sprintf("#%s (first barrier at %v)", idText(id), t.liveAt))
			}
			k.f.Once(OneOutstanding, now, subj, "the first barrier of checkpoint #%s went out while %s was outstanding: "+
				"neither stored, nor notified complete, nor cleaned (Lease.CancelAll) since", idText(o.ID), strings.Join(others, ", "))
		}
		p.live = append(p.live, o.ID)
		s.liveAt = now
	}
}

// see records id's sighting and judges its order. fresh: the sighting
// is a new checkpoint even if id was seen before (IDCounter.Next handed it
// out, or a barrier carries it with another trigger timestamp); counter:
// IDCounter.Next handed it out. A new checkpoint's id must be above every
// id seen before (increasing-ids), and the counter must not hand out,
// after a restore the harness drove, an id at or below one it handed out
// before that restore (generation-order: the restore rewound it).
func (k *Checkpoints) see(p *cpPipe, id int64, now time.Duration, subj, how string, fresh, counter bool) *cpSeen {
	s, ok := p.ids[id]
	if ok && !fresh {
		return s
	}
	var m cpSeen // the highest id's sighting, before this one
	if p.max > 0 {
		m = *p.ids[p.max]
	}
	if !ok {
		s = &cpSeen{}
		p.ids[id] = s
	}
	*s = cpSeen{at: now, restores: p.restores, epoch: p.epoch, how: how}
	if id == coord.CompletedPointID {
		return s
	}
	switch {
	case counter && p.maxAlloc > 0 && id <= p.maxAlloc && p.maxAllocRestores < p.restores:
		k.f.Once(GenerationOrder, now, subj, "IDCounter.Next handed out checkpoint id %d after %d restore(s) the harness drove, "+
			"not above id %d it handed out at %v before them", id, p.restores-p.maxAllocRestores, p.maxAlloc, p.maxAllocAt)
	case p.max > 0 && id <= p.max:
		k.f.Once(IncreasingIDs, now, subj, "checkpoint id %d %s after id %d (%s at %v)", id, how, p.max, m.how, m.at)
	}
	p.max = max(p.max, id)
	if counter && id > p.maxAlloc {
		p.maxAlloc, p.maxAllocAt, p.maxAllocRestores = id, now, p.restores
	}
	return s
}

// done ends id's outstanding span (stored, or notified complete).
func (p *cpPipe) done(id int64) {
	if i := slices.Index(p.live, id); i >= 0 {
		p.live = slices.Delete(p.live, i, i+1)
	}
	if s, ok := p.ids[id]; ok {
		s.done = true
	}
}

func idText(id int64) string {
	if id == coord.CompletedPointID {
		return "COMPLETED_POINT"
	}
	return fmt.Sprint(id)
}
