package watermark

import (
	"sync/atomic"

	"github.com/ckptsim/ckptsim/core/env"
)

// Ack is the acknowledgement handle of one source poll batch. It starts with
// one holder; Add registers more (one per record or per sink that will
// resolve it). Each holder resolves it exactly once, by Done or Fail, from
// any goroutine. When the last holder resolves, the batch's resolution is
// queued for the Checkpointer with the worst status seen: failed if any
// holder called Fail.
//
// Resolving never blocks on capacity: it appends to an unbounded queue
// under a short leaf lock. Resolving an ack whose count has already reached
// zero is counted (Stats.DoubleResolved) and otherwise ignored; an Add on a
// resolved ack is counted (Stats.AddAfterResolve) and refused. An ack that
// is never resolved holds its partition's watermark and shows in
// Checkpointer.StalledPartitions as an unresolved head.
type Ack struct {
	id         BatchID
	lastOffset int64
	in         *inbox
	holders    atomic.Int64
	failed     atomic.Bool
}

// Batch returns the batch's identity.
func (a *Ack) Batch() BatchID { return a.id }

// LastOffset returns the highest source offset in the batch.
func (a *Ack) LastOffset() int64 { return a.lastOffset }

// Add registers n more holders, each of which must call Done or Fail. Call
// it before handing the ack to them, while the caller still holds it.
func (a *Ack) Add(n int) {
	for {
		h := a.holders.Load()
		if h <= 0 {
			a.in.countAddAfterResolve()
			return
		}
		if a.holders.CompareAndSwap(h, h+int64(n)) {
			return
		}
	}
}

// Done resolves one holder's share as delivered (or filtered, or skipped by
// policy: anything after which the offset may be committed).
func (a *Ack) Done() { a.release() }

// Fail resolves one holder's share as failed: the whole batch fails and the
// partition's watermark will not pass it.
func (a *Ack) Fail() {
	a.failed.Store(true)
	a.release()
}

// release drops one holder; the last one queues the resolution. The failed
// flag is stored before the decrement that publishes it (Go atomics are
// sequentially consistent), so the last holder sees every earlier Fail.
func (a *Ack) release() {
	for {
		h := a.holders.Load()
		if h <= 0 {
			a.in.countDoubleResolve()
			return
		}
		if a.holders.CompareAndSwap(h, h-1) {
			if h == 1 {
				a.in.pushResolution(resolution{id: a.id, failed: a.failed.Load()})
			}
			return
		}
	}
}

// Issuer creates the acks of one pipeline thread. Within an epoch each
// partition must be issued from exactly one Issuer, because sequences are
// issuer-local; the pipeline runtime guarantees this by giving each
// partition to exactly one thread. Breaking this leaves a gap in a
// partition's sequences, which Checkpointer.Drain reports by panicking. An
// Issuer is not safe for concurrent use; create one per thread with
// Checkpointer.NewIssuer.
type Issuer struct {
	in    *inbox
	epoch Epoch
	seqs  map[Partition]uint64 // batches issued per partition in epoch
}

// Issue creates the ack of a new poll batch of partition p whose highest
// offset is lastOffset. The batch's registration is queued before the ack
// exists, so the checkpointer always finds a resolution's registration in
// the same or an earlier drain. It never blocks on capacity.
func (i *Issuer) Issue(p Partition, lastOffset int64) *Ack {
	i.in.mu.Lock()
	i.syncEpoch()
	id := BatchID{Partition: p, Epoch: i.epoch, Seq: i.seqs[p]}
	i.seqs[p]++
	i.in.regs = append(i.in.regs, registration{id: id, lastOffset: lastOffset})
	i.in.mu.Unlock()
	a := &Ack{id: id, lastOffset: lastOffset, in: i.in}
	a.holders.Store(1)
	return a
}

// AtCeiling reports whether p has Options.PendingCeiling batches issued by
// this issuer in the current epoch and not yet retired by TakeWatermarks.
// The source calls it at its poll boundary and skips polling p while it
// reports true; one poll issues one batch, so pending stays at or under the
// ceiling. Always false without a ceiling or for a partition that is not
// tracked.
func (i *Issuer) AtCeiling(p Partition) bool {
	i.in.mu.Lock()
	defer i.in.mu.Unlock()
	i.syncEpoch()
	retired, ok := i.in.retired[p]
	issued := i.seqs[p]
	return ok && i.in.ceiling > 0 && issued > retired && issued-retired >= uint64(i.in.ceiling)
}

// syncEpoch restarts sequences when the published epoch changed. Called
// with in.mu held.
func (i *Issuer) syncEpoch() {
	if i.seqs == nil || i.epoch != i.in.epoch {
		if i.seqs != nil {
			hit(i.in.e, env.ProbeIssuerEpochResync)
		}
		i.epoch = i.in.epoch
		i.seqs = map[Partition]uint64{}
	}
}
