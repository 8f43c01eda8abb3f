package watermark

import (
	"fmt"
	"time"
)

type slotState uint8

const (
	slotPending slotState = iota
	slotDelivered
	slotFailed
)

type slot struct {
	lastOffset int64
	registered time.Time
	state      slotState
}

type outcome uint8

const (
	outcomeApplied outcome = iota
	outcomeDuplicate
	outcomeAdvanced // the batch was already advanced past
	outcomeUnregistered
)

// tracker turns one partition's registrations (in sequence order) and
// resolutions (in any order) into a committable watermark, within one
// epoch. Its batches sit in a ring indexed by seq-headSeq, so a resolution is
// one slot write however far out of order it arrives, and advancing pops
// the delivered prefix in O(popped). A failed batch at the head stops
// advance until the quarantine path drops it. Not safe for concurrent use.
type tracker struct {
	ring    []slot // len is 0 or a power of two
	head    int    // ring index of headSeq
	n       int    // batches registered and not advanced past
	headSeq uint64 // sequence of the oldest batch in the ring
	// stalledSince is when a failed batch was first seen at the head; zero
	// while not stalled.
	stalledSince time.Time
}

func (t *tracker) pending() int      { return t.n }
func (t *tracker) nextSeq() uint64   { return t.headSeq + uint64(t.n) }
func (t *tracker) at(i int) *slot    { return &t.ring[(t.head+i)&(len(t.ring)-1)] }
func (t *tracker) stalled() bool     { return !t.stalledSince.IsZero() }
func (t *tracker) headSlot() *slot   { return t.at(0) }
func (t *tracker) headFailed() bool  { return t.n > 0 && t.headSlot().state == slotFailed }
func (t *tracker) headPending() bool { return t.n > 0 && t.headSlot().state == slotPending }

// register appends batch seq. Sequences must be contiguous: a gap means an
// issuer numbered batches wrongly, which would corrupt the watermark, so it
// panics.
func (t *tracker) register(seq uint64, lastOffset int64, now time.Time) {
	if seq != t.nextSeq() {
		panic(fmt.Sprintf("watermark: batch registration gap: expected seq %d, got %d", t.nextSeq(), seq))
	}
	if t.n == len(t.ring) {
		t.grow()
	}
	*t.at(t.n) = slot{lastOffset: lastOffset, registered: now, state: slotPending}
	t.n++
}

func (t *tracker) grow() {
	ring := make([]slot, max(8, 2*len(t.ring)))
	for i := 0; i < t.n; i++ {
		ring[i] = *t.at(i)
	}
	t.ring, t.head = ring, 0
}

// resolve records the outcome of batch seq.
func (t *tracker) resolve(seq uint64, failed bool) outcome {
	if seq < t.headSeq {
		return outcomeAdvanced
	}
	if seq >= t.nextSeq() {
		return outcomeUnregistered
	}
	s := t.at(int(seq - t.headSeq))
	if s.state != slotPending {
		return outcomeDuplicate
	}
	s.state = slotDelivered
	if failed {
		s.state = slotFailed
	}
	return outcomeApplied
}

// advance pops the contiguous delivered prefix. It reports the new
// committable offset (one past the last popped batch) and how many batches
// it popped; moved is false when nothing was popped.
func (t *tracker) advance() (offset int64, popped int, moved bool) {
	for t.n > 0 && t.headSlot().state == slotDelivered {
		offset = t.headSlot().lastOffset + 1
		t.pop()
		popped++
	}
	return offset, popped, popped > 0
}

// pop drops the head batch whatever its state and returns it.
func (t *tracker) pop() slot {
	s := *t.headSlot()
	*t.headSlot() = slot{}
	t.head = (t.head + 1) & (len(t.ring) - 1)
	t.headSeq++
	t.n--
	return s
}
