package watermark

import (
	"fmt"
	"slices"
	"time"

	"github.com/ckptsim/ckptsim/core/env"
)

// Checkpointer turns asynchronous batch resolutions into per-partition
// committable watermarks. It is owned by one thread, the pipeline runtime,
// and is not safe for concurrent use; only its Issuers and Acks are used
// from other threads, and they reach it through an unbounded queue that
// Drain empties.
type Checkpointer struct {
	env  Env
	opts Options
	in   *inbox

	epoch    Epoch
	trackers map[Partition]*tracker
	order    []Partition            // tracked partitions, sorted
	admitted map[Partition]struct{} // admitted to epoch, live or revoked

	spareRegs []registration
	spareAcks []resolution
	deferred  []resolution
	retired   []retiredCount
	stats     Stats
}

// New returns a checkpointer with no epoch. Call BeginEpoch when the source
// reports its first assignment.
func New(e Env, opts Options) *Checkpointer {
	return &Checkpointer{
		env:      e,
		opts:     opts,
		in:       newInbox(e, opts.PendingCeiling),
		trackers: map[Partition]*tracker{},
		admitted: map[Partition]struct{}{},
	}
}

// NewIssuer returns an issuer for one pipeline thread. It may be called
// from any thread.
func (c *Checkpointer) NewIssuer() *Issuer { return &Issuer{in: c.in} }

// Epoch returns the current epoch (0 before the first BeginEpoch).
func (c *Checkpointer) Epoch() Epoch { return c.epoch }

// BeginEpoch starts epoch with exactly partitions assigned. Every tracker is
// rebuilt empty; batches of earlier epochs still in flight resolve as stale
// and their offsets are re-delivered by the source (at-least-once). The new
// epoch is published to issuers only after its trackers exist.
//
// Epochs must strictly increase, starting above 0; anything else is a
// programming error and panics. Call BeginEpoch before handing the new
// assignment to pipeline threads, so they issue under it.
func (c *Checkpointer) BeginEpoch(partitions []Partition, epoch Epoch) {
	if epoch <= c.epoch {
		panic(fmt.Sprintf("watermark: epochs must be strictly increasing: %d -> %d", c.epoch, epoch))
	}
	c.probeEpochEnd(partitions)
	c.epoch = epoch
	c.trackers = make(map[Partition]*tracker, len(partitions))
	c.admitted = make(map[Partition]struct{}, len(partitions))
	c.order = c.order[:0]
	c.track(partitions)
	c.in.publish(epoch, partitions)
}

// ExtendEpoch adds partitions to the current epoch without disturbing the
// batches in flight for the others (additive, cooperative assignment). It
// refuses, changing nothing, if any partition was already admitted to this
// epoch, even if revoked since: a returning partition needs a new epoch,
// because its issuer's sequences would not restart.
func (c *Checkpointer) ExtendEpoch(partitions []Partition) error {
	if c.epoch == 0 {
		return ErrNoEpoch
	}
	for _, p := range partitions {
		if _, ok := c.admitted[p]; ok {
			return fmt.Errorf("partition %d in epoch %d: %w", p, c.epoch, ErrReadmitted)
		}
	}
	hit(c.env, env.ProbeEpochExtended)
	c.track(partitions)
	c.in.admit(partitions)
	return nil
}

// probeEpochEnd counts what BeginEpoch drops of the epoch it replaces:
// batches still pending, and partitions left out of the new assignment.
func (c *Checkpointer) probeEpochEnd(partitions []Partition) {
	pending, dropped := false, false
	for _, p := range c.order {
		pending = pending || c.trackers[p].pending() > 0
		dropped = dropped || !slices.Contains(partitions, p)
	}
	if pending {
		hit(c.env, env.ProbeEpochDropsPending)
	}
	if dropped {
		hit(c.env, env.ProbeEpochDropsPartition)
	}
}

func (c *Checkpointer) track(partitions []Partition) {
	for _, p := range partitions {
		if _, ok := c.admitted[p]; ok {
			continue
		}
		c.admitted[p] = struct{}{}
		c.trackers[p] = &tracker{}
		c.order = append(c.order, p)
	}
	slices.Sort(c.order)
}

// Revoke drops tracking of partitions mid-epoch (partial revocation or
// shutdown). Their later registrations and resolutions are discarded as
// stale. A revoked partition returns only in a new epoch.
func (c *Checkpointer) Revoke(partitions []Partition) {
	for _, p := range partitions {
		if t := c.trackers[p]; t != nil && t.pending() > 0 {
			hit(c.env, env.ProbeRevokeWithPending)
		}
		delete(c.trackers, p)
	}
	c.order = slices.DeleteFunc(c.order, func(p Partition) bool { return c.trackers[p] == nil })
	c.in.forget(partitions)
}

// Drain applies every queued registration, then every queued resolution.
// A resolution whose registration it has not seen yet (issued and resolved
// after the registrations were taken) is retried once after taking the
// registrations again; the issuer queues a registration before its ack
// exists, so one that is still unknown is a driver bug, counted in
// DrainStats.Unknown.
func (c *Checkpointer) Drain() DrainStats {
	var st DrainStats
	c.drainRegs(&st)
	acks := c.in.takeAcks(c.spareAcks)
	for _, r := range acks {
		c.apply(r, &st, true)
	}
	c.spareAcks = acks[:0]
	if len(c.deferred) > 0 {
		c.drainRegs(&st)
		for _, r := range c.deferred {
			c.apply(r, &st, false)
		}
		c.deferred = c.deferred[:0]
	}
	c.noteStalls()
	c.stats.DrainStats.add(st)
	c.stats.Drains++
	return st
}

func (c *Checkpointer) drainRegs(st *DrainStats) {
	regs := c.in.takeRegs(c.spareRegs)
	var now time.Time
	if len(regs) > 0 {
		now = c.env.Now()
	}
	for _, r := range regs {
		t := c.current(r.id)
		if t == nil {
			hit(c.env, env.ProbeStaleRegistration)
			st.Stale++
			continue
		}
		t.register(r.id.Seq, r.lastOffset, now)
	}
	c.spareRegs = regs[:0]
}

// current returns the tracker for id if id belongs to the current epoch and
// a tracked partition.
func (c *Checkpointer) current(id BatchID) *tracker {
	if id.Epoch != c.epoch {
		return nil
	}
	return c.trackers[id.Partition]
}

func (c *Checkpointer) apply(r resolution, st *DrainStats, mayDefer bool) {
	t := c.current(r.id)
	if t == nil {
		hit(c.env, env.ProbeStaleResolution)
		st.Stale++
		return
	}
	switch t.resolve(r.id.Seq, r.failed) {
	case outcomeApplied:
		st.Applied++
	case outcomeDuplicate, outcomeAdvanced:
		st.Duplicates++
	case outcomeUnregistered:
		if mayDefer {
			c.deferred = append(c.deferred, r)
		} else {
			st.Unknown++
		}
	}
}

// noteStalls stamps the start of a stall on every partition whose head
// batch has failed, unless quarantine will advance past it.
func (c *Checkpointer) noteStalls() {
	if c.opts.DeadLetter != nil {
		return
	}
	var now time.Time
	for _, p := range c.order {
		t := c.trackers[p]
		if t.headFailed() && !t.stalled() {
			if now.IsZero() {
				now = c.env.Now()
			}
			hit(c.env, env.ProbeStallBegins)
			t.stalledSince = now
		}
	}
}

// TakeWatermarks returns the current epoch and the watermarks that advanced
// since the last call, sorted by partition: for each tracked partition whose
// contiguous prefix of resolved-OK batches grew, one past the last offset of
// that prefix. It is idempotent: empty until new progress, so callers skip
// the commit. The epoch lets a commit be fenced end to end: a sink of
// commits can refuse watermarks of an epoch older than one it has seen.
//
// With Options.DeadLetter set, failed head batches are passed to it and
// advanced past, in partition order.
func (c *Checkpointer) TakeWatermarks() (Epoch, []Watermark) {
	var out []Watermark
	c.retired = c.retired[:0]
	for _, p := range c.order {
		offset, popped, moved := c.advance(p, c.trackers[p])
		if moved {
			out = append(out, Watermark{Partition: p, Offset: offset})
			c.retired = append(c.retired, retiredCount{p: p, n: popped})
		}
	}
	if len(c.retired) > 0 {
		c.in.retire(c.retired)
	}
	c.noteStalls()
	return c.epoch, out
}

// advance pops p's delivered prefix and, under quarantine, every failed
// head batch together with what follows it.
func (c *Checkpointer) advance(p Partition, t *tracker) (offset int64, popped int, moved bool) {
	for {
		o, n, m := t.advance()
		popped += n
		if m {
			offset, moved = o, true
		}
		if c.opts.DeadLetter == nil || !t.headFailed() {
			return offset, popped, moved
		}
		seq := t.headSeq
		s := t.pop()
		hit(c.env, env.ProbeQuarantine)
		c.stats.Quarantined++
		c.opts.DeadLetter(Quarantined{Batch: BatchID{Partition: p, Epoch: c.epoch, Seq: seq}, LastOffset: s.lastOffset})
		offset, popped, moved = s.lastOffset+1, popped+1, true
	}
}

// Pending returns the batches of partition p registered and not yet advanced
// past by TakeWatermarks: the backpressure input. 0 for an untracked
// partition. Registrations still queued are not counted until Drain.
func (c *Checkpointer) Pending(p Partition) int {
	if t := c.trackers[p]; t != nil {
		return t.pending()
	}
	return 0
}

// MaxPending returns the largest Pending over tracked partitions.
func (c *Checkpointer) MaxPending() int {
	m := 0
	for _, t := range c.trackers {
		m = max(m, t.pending())
	}
	return m
}

// StalledPartitions reports, sorted by partition, every tracked partition
// whose watermark is held back by its head batch: a failed one (Failed,
// permanent until the next epoch, Since = when the failure was first seen at
// the head by Drain or TakeWatermarks) or an unresolved one (Since = when its
// registration was drained). A health probe alerts on Failed entries and on
// unresolved ones older than it tolerates: an ack that is never resolved
// stays here, ageing, which is how a leaked ack becomes visible.
func (c *Checkpointer) StalledPartitions() []Stall {
	var out []Stall
	for _, p := range c.order {
		if s, ok := c.stall(p, c.trackers[p]); ok {
			out = append(out, s)
		}
	}
	return out
}

func (c *Checkpointer) stall(p Partition, t *tracker) (Stall, bool) {
	if t.pending() == 0 {
		return Stall{}, false
	}
	h := t.headSlot()
	s := Stall{
		Partition:  p,
		Batch:      BatchID{Partition: p, Epoch: c.epoch, Seq: t.headSeq},
		LastOffset: h.lastOffset,
	}
	switch {
	case t.stalled():
		s.Failed, s.Since = true, t.stalledSince
	case h.state == slotPending:
		s.Since = h.registered
	default:
		return Stall{}, false
	}
	return s, true
}

// Stats returns the counters since New.
func (c *Checkpointer) Stats() Stats {
	s := c.stats
	s.DoubleResolved, s.AddAfterResolve = c.in.misuse()
	return s
}
