package oracle

import (
	"time"

	"github.com/ckptsim/ckptsim/core/coord"
	"github.com/ckptsim/ckptsim/sim/cluster"
)

// Events holds the checks that read the coordinator's own events
// (coord.Event): one-pending, increasing-ids, generation-fence and
// generation-order. Their evidence is self-reported (Source SelfReport):
// a coordinator that mislabels its events defeats them, which is why the
// generation checks of generation.go exist. They stay as diagnostics that
// still give a verdict until each has a boundary replacement.
type Events struct {
	f     *Findings
	now   func() time.Duration
	pipes map[[2]int64]*eventPipe
}

type eventPipe struct {
	lastID int64
	gen    uint64
}

// NewEvents returns the event checks reporting to f.
func NewEvents(f *Findings, now func() time.Duration) *Events {
	return &Events{f: f, now: now, pipes: map[[2]int64]*eventPipe{}}
}

func (e *Events) pipe(job int64, p int) *eventPipe {
	k := [2]int64{job, int64(p)}
	s, ok := e.pipes[k]
	if !ok {
		s = &eventPipe{gen: 1}
		e.pipes[k] = s
	}
	return s
}

// Observe checks one coordinator event.
func (e *Events) Observe(r cluster.Record) {
	ev := r.Event
	s := e.pipe(ev.Job, ev.Pipeline)
	subj := Subject(ev.Job, ev.Pipeline)
	switch ev.Kind {
	case coord.EvPendingCount:
		e.f.Assert(ev.Count <= 1 && ev.Count >= 0, OnePending, r.At, subj, "pending counter is %d", ev.Count)
	case coord.EvTriggered:
		if ev.ID != coord.CompletedPointID {
			e.f.Assert(ev.ID > s.lastID, IncreasingIDs, r.At, subj, "checkpoint id %d after %d", ev.ID, s.lastID)
			s.lastID = ev.ID
		}
	case coord.EvGenFailed:
		e.f.Assert(ev.ArmedGen == ev.Gen, GenerationFence, r.At, subj, "%s armed in generation %d failed generation %d",
			ev.Reason, ev.ArmedGen, ev.Gen)
	case coord.EvRestored:
		e.f.Assert(ev.Gen > s.gen, GenerationOrder, r.At, subj, "restored generation %d after %d", ev.Gen, s.gen)
		s.gen = ev.Gen
	}
}
