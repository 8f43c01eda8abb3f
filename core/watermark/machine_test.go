package watermark

import (
	"errors"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// The state machine drives a Checkpointer and a reference model side by side
// through issue, resolve (shared acks, worst status), double resolution,
// drain, take, BeginEpoch, ExtendEpoch, Revoke and clock ticks, under a
// drawn pending ceiling and quarantine policy. The model is deliberately
// naive: queues are slices, trackers are maps from sequence to batch.
//
// Property "epoch churn never leaks stale acks": every DrainStats, watermark
// list, pending count, stall report and gate decision equals the model's,
// where the model ignores every message of another epoch or an untracked
// partition. On top of that, each take asserts directly that watermarks are
// only for tracked partitions and strictly increase per partition within an
// epoch.

const universe = 4 // partitions 0..3; epoch 1 starts with 0..2

type modelBatch struct {
	last       int64
	registered time.Time
	state      slotState
}

type modelTracker struct {
	batches      map[uint64]*modelBatch
	head, next   uint64
	stalledSince time.Time
}

type heldAck struct {
	ack     *Ack
	holders int
	failed  bool
}

type model struct {
	env        *fakeEnv
	cp         *Checkpointer
	is         *Issuer
	ceiling    int
	quarantine bool
	dead       []Quarantined // from the SUT's handler
	wantDead   []Quarantined

	epoch       Epoch
	trackers    map[Partition]*modelTracker
	admitted    map[Partition]bool
	retired     map[Partition]uint64
	lastMark    map[Partition]int64
	offsets     map[Partition]int64
	issuerEpoch Epoch
	issuerSeqs  map[Partition]uint64

	regs     []registration
	acks     []resolution
	held     []*heldAck
	resolved []*Ack
	double   int
}

func newModel(t *rapid.T) *model {
	m := &model{
		env:        newFakeEnv(),
		ceiling:    rapid.IntRange(0, 4).Draw(t, "ceiling"),
		quarantine: rapid.Bool().Draw(t, "quarantine"),
		issuerSeqs: map[Partition]uint64{},
	}
	opts := Options{PendingCeiling: m.ceiling}
	if m.quarantine {
		opts.DeadLetter = func(q Quarantined) { m.dead = append(m.dead, q) }
	}
	m.cp = New(m.env, opts)
	m.is = m.cp.NewIssuer()
	m.begin([]Partition{0, 1, 2}, 1)
	return m
}

func (m *model) begin(ps []Partition, epoch Epoch) {
	m.cp.BeginEpoch(ps, epoch)
	m.epoch = epoch
	m.trackers, m.admitted = map[Partition]*modelTracker{}, map[Partition]bool{}
	m.retired, m.lastMark, m.offsets = map[Partition]uint64{}, map[Partition]int64{}, map[Partition]int64{}
	m.track(ps)
}

func (m *model) track(ps []Partition) {
	for _, p := range ps {
		m.admitted[p] = true
		m.trackers[p] = &modelTracker{batches: map[uint64]*modelBatch{}}
		m.retired[p] = 0
	}
}

func (m *model) syncIssuer() {
	if m.issuerEpoch != m.epoch {
		m.issuerEpoch, m.issuerSeqs = m.epoch, map[Partition]uint64{}
	}
}

var partitionGen = rapid.Custom(func(t *rapid.T) Partition {
	return Partition(rapid.Int32Range(0, universe-1).Draw(t, "p"))
})

var partitionsGen = rapid.SliceOfNDistinct(partitionGen, 0, universe, rapid.ID[Partition])

func (m *model) issue(t *rapid.T) {
	var ps []Partition
	for p := range Partition(universe) {
		if m.admitted[p] {
			ps = append(ps, p) // live or revoked: a lane may still issue
		}
	}
	if len(ps) == 0 {
		t.Skip("nothing admitted")
	}
	p := rapid.SampledFrom(ps).Draw(t, "partition")
	holders := rapid.IntRange(1, 3).Draw(t, "holders")
	m.offsets[p] += int64(rapid.IntRange(1, 20).Draw(t, "records"))
	a := m.is.Issue(p, m.offsets[p]-1)
	a.Add(holders - 1)
	m.syncIssuer()
	want := BatchID{Partition: p, Epoch: m.epoch, Seq: m.issuerSeqs[p]}
	m.issuerSeqs[p]++
	if a.Batch() != want {
		t.Fatalf("issued %+v, want %+v", a.Batch(), want)
	}
	m.regs = append(m.regs, registration{id: want, lastOffset: m.offsets[p] - 1})
	m.held = append(m.held, &heldAck{ack: a, holders: holders})
}

func (m *model) resolve(t *rapid.T) {
	if len(m.held) == 0 {
		t.Skip("nothing held")
	}
	i := rapid.IntRange(0, len(m.held)-1).Draw(t, "held")
	h := m.held[i]
	if rapid.IntRange(0, 4).Draw(t, "fail?") == 0 {
		h.ack.Fail()
		h.failed = true
	} else {
		h.ack.Done()
	}
	if h.holders--; h.holders == 0 {
		m.acks = append(m.acks, resolution{id: h.ack.Batch(), failed: h.failed})
		m.held = slices.Delete(m.held, i, i+1)
		m.resolved = append(m.resolved, h.ack)
	}
}

func (m *model) resolveAgain(t *rapid.T) {
	if len(m.resolved) == 0 {
		t.Skip("nothing resolved")
	}
	rapid.SampledFrom(m.resolved).Draw(t, "resolved").Done()
	m.double++
}

// current mirrors Checkpointer.current.
func (m *model) current(id BatchID) *modelTracker {
	if id.Epoch != m.epoch {
		return nil
	}
	return m.trackers[id.Partition]
}

func (m *model) drain(t *rapid.T) {
	var want DrainStats
	for _, r := range m.regs {
		if mt := m.current(r.id); mt != nil {
			mt.batches[mt.next] = &modelBatch{last: r.lastOffset, registered: m.env.now}
			mt.next++
		} else {
			want.Stale++
		}
	}
	for _, r := range m.acks {
		m.applyModel(r, &want)
	}
	m.regs, m.acks = nil, nil
	if got := m.cp.Drain(); got != want {
		t.Fatalf("Drain() = %+v, want %+v", got, want)
	}
	m.noteStalls()
}

func (m *model) applyModel(r resolution, want *DrainStats) {
	mt := m.current(r.id)
	switch {
	case mt == nil:
		want.Stale++
	case r.id.Seq < mt.head || mt.batches[r.id.Seq].state != slotPending:
		want.Duplicates++
	default:
		mt.batches[r.id.Seq].state = slotDelivered
		if r.failed {
			mt.batches[r.id.Seq].state = slotFailed
		}
		want.Applied++
	}
}

func (m *model) noteStalls() {
	for _, mt := range m.trackers {
		if h := mt.batches[mt.head]; !m.quarantine && h != nil && h.state == slotFailed && mt.stalledSince.IsZero() {
			mt.stalledSince = m.env.now
		}
	}
}

func (m *model) take(t *rapid.T) {
	epoch, got := m.cp.TakeWatermarks()
	m.checkTake(t, epoch, got)
	var want []Watermark
	for _, p := range m.sortedTracked() {
		mt, moved := m.trackers[p], false
		for h := mt.batches[mt.head]; h != nil && (h.state == slotDelivered || h.state == slotFailed && m.quarantine); h = mt.batches[mt.head] {
			if h.state == slotFailed {
				m.wantDead = append(m.wantDead, Quarantined{BatchID{p, m.epoch, mt.head}, h.last})
			}
			delete(mt.batches, mt.head)
			mt.head++
			m.retired[p]++
			m.lastMark[p], moved = h.last+1, true
		}
		if moved {
			want = append(want, Watermark{p, m.lastMark[p]})
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("TakeWatermarks() = %v, want %v", got, want)
	}
	if !slices.Equal(m.dead, m.wantDead) {
		t.Fatalf("dead letters %v, want %v", m.dead, m.wantDead)
	}
	m.noteStalls()
}

// checkTake states the property directly, independent of the model's
// arithmetic: right epoch, tracked partitions only, strictly increasing.
func (m *model) checkTake(t *rapid.T, epoch Epoch, got []Watermark) {
	if epoch != m.epoch {
		t.Fatalf("TakeWatermarks epoch %d, want %d", epoch, m.epoch)
	}
	for _, w := range got {
		if m.trackers[w.Partition] == nil {
			t.Fatalf("watermark %v for untracked partition", w)
		}
		if old, ok := m.lastMark[w.Partition]; ok && w.Offset <= old {
			t.Fatalf("watermark of %d not increasing: %d -> %d", w.Partition, old, w.Offset)
		}
	}
}

func (m *model) sortedTracked() []Partition {
	var ps []Partition
	for p := range m.trackers {
		ps = append(ps, p)
	}
	slices.Sort(ps)
	return ps
}

func (m *model) newEpoch(t *rapid.T) {
	ps := partitionsGen.Draw(t, "partitions")
	m.begin(ps, m.epoch+Epoch(rapid.IntRange(1, 3).Draw(t, "epochStep")))
}

func (m *model) extend(t *rapid.T) {
	ps := partitionsGen.Draw(t, "partitions")
	refuse := slices.ContainsFunc(ps, func(p Partition) bool { return m.admitted[p] })
	err := m.cp.ExtendEpoch(ps)
	if refuse != errors.Is(err, ErrReadmitted) || !refuse && err != nil {
		t.Fatalf("ExtendEpoch(%v) = %v, want refused=%v", ps, err, refuse)
	}
	if !refuse {
		m.track(ps)
	}
}

func (m *model) revoke(t *rapid.T) {
	ps := partitionsGen.Draw(t, "partitions")
	m.cp.Revoke(ps)
	for _, p := range ps {
		delete(m.trackers, p)
		delete(m.retired, p)
	}
}

func (m *model) tick(t *rapid.T) {
	m.env.advance(time.Duration(rapid.IntRange(1, 1000).Draw(t, "ms")) * time.Millisecond)
}

// check compares every observable that does not consume anything.
func (m *model) check(t *rapid.T) {
	maxPending := 0
	for p := range Partition(universe) {
		want := 0
		if mt := m.trackers[p]; mt != nil {
			want = len(mt.batches)
		}
		maxPending = max(maxPending, want)
		if got := m.cp.Pending(p); got != want {
			t.Fatalf("Pending(%d) = %d, want %d", p, got, want)
		}
		m.checkGate(t, p)
	}
	if got := m.cp.MaxPending(); got != maxPending {
		t.Fatalf("MaxPending() = %d, want %d", got, maxPending)
	}
	if got, want := m.cp.StalledPartitions(), m.stalls(); !slices.Equal(got, want) {
		t.Fatalf("StalledPartitions() = %+v, want %+v", got, want)
	}
	if got := m.cp.Stats().DoubleResolved; got != m.double {
		t.Fatalf("DoubleResolved = %d, want %d", got, m.double)
	}
}

func (m *model) checkGate(t *rapid.T, p Partition) {
	got := m.is.AtCeiling(p)
	m.syncIssuer()
	retired, ok := m.retired[p]
	want := ok && m.ceiling > 0 && m.issuerSeqs[p]-retired >= uint64(m.ceiling)
	if got != want {
		t.Fatalf("AtCeiling(%d) = %v, want %v", p, got, want)
	}
}

func (m *model) stalls() []Stall {
	var out []Stall
	for _, p := range m.sortedTracked() {
		mt := m.trackers[p]
		h := mt.batches[mt.head]
		if h == nil {
			continue
		}
		s := Stall{Partition: p, Batch: BatchID{p, m.epoch, mt.head}, LastOffset: h.last}
		switch {
		case !mt.stalledSince.IsZero():
			s.Failed, s.Since = true, mt.stalledSince
		case h.state == slotPending:
			s.Since = h.registered
		default:
			continue
		}
		out = append(out, s)
	}
	return out
}

func TestEpochChurnNeverLeaksStaleAcks(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := newModel(t)
		t.Repeat(map[string]func(*rapid.T){
			"issue":        m.issue,
			"resolve":      m.resolve,
			"resolveAgain": m.resolveAgain,
			"drain":        m.drain,
			"take":         m.take,
			"beginEpoch":   m.newEpoch,
			"extendEpoch":  m.extend,
			"revoke":       m.revoke,
			"tick":         m.tick,
			"":             m.check,
		})
	})
}
