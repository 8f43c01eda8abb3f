package coord

import (
	"fmt"
	"slices"
	"time"

	"github.com/ckptsim/ckptsim/core/env"
	"github.com/ckptsim/ckptsim/core/variant"
)

// Acknowledge records a task's acknowledgement of checkpoint id. The last
// acknowledgement completes the pending future on this thread (SPEC 1.7).
// A caller that has the barrier the task acknowledges should use
// AcknowledgeBarrier: an id alone cannot tell two COMPLETED_POINTs apart.
func (c *Coordinator) Acknowledge(task TaskID, id int64, state []byte) {
	c.acknowledge(task, id, time.Time{}, state)
}

// AcknowledgeBarrier records a task's acknowledgement of barrier b, as
// upstream's TaskAcknowledgeOperation carries it: an acknowledgement whose
// trigger timestamp is not the pending checkpoint's is stale and dropped.
// Ids never repeat but for the COMPLETED_POINT's fixed id, so without the
// timestamp a task's acknowledgement of a replaced generation's final
// barrier, arriving after a restore, counted for the restored generation's
// final checkpoint, which then completed and finished the pipeline without
// that task's acknowledgement of its own barrier (finish-before-close,
// idle-close-late seeds 2 and 3).
func (c *Coordinator) AcknowledgeBarrier(task TaskID, b Barrier, state []byte) {
	c.acknowledge(task, b.ID, b.Timestamp, state)
}

// acknowledge is Acknowledge; a non-zero stamp must be the pending
// checkpoint's trigger timestamp (ack-match=id: it need not, as upstream's
// acknowledgeTask matches by id alone, F032).
func (c *Coordinator) acknowledge(task TaskID, id int64, stamp time.Time, state []byte) {
	if c.isCompleted() {
		return
	}
	p := c.lookup(id)
	if p == nil {
		c.log().Debug("skip already acked or unknown checkpoint", "id", id, "task", task)
		return
	}
	if !stamp.IsZero() && !stamp.Equal(p.TriggeredAt) && c.cfg.Variants.AckMatch == variant.MatchStamp {
		c.log().Debug("skip an acknowledgement of another trigger of the same id", "id", id, "task", task)
		return
	}
	if env.Buggify(c.e, env.SiteAckSlow) {
		c.e.Sleep(c.cfg.PendingBackoff) // BUGGIFY: the acknowledging thread pauses
	}
	last, dup := p.ack(task, state)
	if dup {
		return
	}
	if !p.Type.Final() {
		c.idleAcked(p, task)
	}
	if last && !p.fut.Complete(p.completed(c.e.Now())) {
		env.Hit(c.e, env.ProbeAckAfterAbort) // a clean aborted it after the lookup
	}
}

// complete is completePendingCheckpoint (SPEC 1.8), serialised by
// coord.completion. It stores the checkpoint before reporting it.
func (c *Coordinator) complete(p *Pending, cp *Completed) error {
	c.complMu.Lock()
	defer c.complMu.Unlock()
	if c.deferredFence() {
		if cur, _ := c.Generation(); cur != p.Gen {
			env.Hit(c.e, env.ProbeCompleteStaleGeneration)
			c.stale(p.Gen, ReasonCompleteFailed, 0) // a restore replaced the generation
			p.stored.Fail(&Aborted{Reason: ReasonReset})
			return nil
		}
	}
	if err := c.persist(cp); err != nil {
		return err
	}
	if !c.installLatest(p, cp) {
		env.Hit(c.e, env.ProbeCompleteReplacedDuringStore)
		c.stale(p.Gen, ReasonCompleteFailed, 0) // a restore replaced the generation while it was stored
		p.stored.Fail(&Aborted{Reason: ReasonReset})
		return nil
	}
	c.idleStored(cp)
	p.stored.Complete(cp)
	c.emit(Event{Kind: EvCompleted, Gen: p.Gen, ID: cp.ID, Type: cp.Type})
	if err := c.notifyCompleted(cp); err != nil {
		c.handleError(p.Gen, ReasonNotifyFailed, err, fenceDeferred)
		return nil // the error path's clean resets the counter
	}
	p.cancelWatchdog()
	// Remove and decrement atomically, and only if a clean has not taken
	// the pending away meanwhile (upstream decrements unconditionally, so
	// a completion straddling a clean drives the counter to -1).
	c.mapMu.Lock()
	present := c.pending[p.ID] == p
	var n int32
	if present || c.cfg.Variants.PendingDecrement == variant.DecrementAlways {
		delete(c.pending, p.ID)
		n = c.pendingCounter.Add(-1)
	}
	c.mapMu.Unlock()
	if !present {
		env.Hit(c.e, env.ProbeCompleteAfterClean)
		c.stale(p.Gen, ReasonCompleteFailed, 0)
		return nil
	}
	c.emit(Event{Kind: EvPendingCount, Count: int(n)})
	if c.isCompleted() {
		c.finish(p.Gen, cp.Type)
	}
	return nil
}

// installLatest makes cp the latest completed checkpoint, unless (with the
// deferred fence) a restore replaced p's generation meanwhile: the check
// and the store are one step under coord.generation, where a restore
// installs its generation before it reloads the latest completed from
// storage, so a completion that straddles a restore can no longer install
// the old generation's checkpoint over the restored one.
//
// Found by checkpoint-progress on h5-savepoint-under-lock (fixed design,
// PCT seeds 500004 and 1500001): the savepoint's stored future completed
// before latestCompleted was set, the manager committed the job's
// savepoint and the harness restored the job in between, and the late
// store then installed the old generation's SAVEPOINT (final, not
// restored) in the restored generation, which therefore looked completed:
// guard 5 stopped its periodic trigger for good.
func (c *Coordinator) installLatest(p *Pending, cp *Completed) bool {
	c.genMu.Lock()
	defer c.genMu.Unlock()
	if c.deferredFence() && c.gen != p.Gen {
		return false
	}
	c.latestCompleted.Store(cp)
	return true
}

// persist writes the checkpoint (or savepoint) and applies retention.
func (c *Coordinator) persist(cp *Completed) error {
	memory := c.cfg.Variants.Retention == variant.RetainMemory
	if cp.Type == CompletedPoint {
		if memory {
			c.retain(cp.ID) // upstream counts it although it is never stored (#12096)
		}
		return nil
	}
	if cp.Type == Savepoint {
		if w := c.savepointWriter(); w != nil {
			if err := w.WritePipeline(cp); err != nil {
				return fmt.Errorf("write savepoint: %w", err)
			}
			return nil
		}
	}
	if err := c.d.Storage.Store(cp); err != nil {
		c.reconcileRetention()
		return fmt.Errorf("store checkpoint %d: %w", cp.ID, err)
	}
	if env.Buggify(c.e, env.SiteStoreSlow) {
		c.e.Sleep(c.cfg.PendingBackoff) // BUGGIFY: the reply arrives late, the write durable
	}
	if env.Buggify(c.e, env.SiteStoreFailsAfterWrite) {
		c.reconcileRetention()
		return fmt.Errorf("store checkpoint %d: reply lost after the write took effect (buggify)", cp.ID)
	}
	return c.retain(cp.ID)
}

// reconcileRetention rebuilds the retention deque from storage after a
// store that reported failure: the write may have taken effect (a lost
// reply), and a checkpoint stored but never retained was deleted only by
// the next restore's rebuild. When the failure it reports is stale (a
// restore already replaced the generation) no restore follows, and storage
// held more than 2N-1 checkpoints until some later restore (retention;
// BUGGIFY store-fails-after-write, idle-close seed 5400169 and
// idle-close-late seed 5700241). The memory variant keeps upstream's
// deque as it is (H10).
func (c *Coordinator) reconcileRetention() {
	if c.cfg.Variants.Retention == variant.RetainMemory {
		return
	}
	c.retainMu.Lock()
	defer c.retainMu.Unlock()
	ids, err := c.d.Storage.IDs(c.job, c.pipeline)
	if err != nil {
		return // the next restore rebuilds it
	}
	c.mapMu.Lock()
	c.completedIDs = ids
	drop := c.trimLocked()
	c.mapMu.Unlock()
	_ = c.deleteRetained(drop)
}

// retain appends id to the retention deque and, once the deque holds 2N
// ids (N = MaxRetained), deletes the oldest down to N (upstream's batch
// deletion: N..2N-1 kept).
//
// Upstream deletes only when the size is a multiple of N above the first
// (size % N == 0 && size / N > 1). That is the same while ids arrive one
// at a time from an aligned deque, but a deque rebuilt from storage after
// a store whose reply was lost (the checkpoint is stored, never retained,
// and the generation fails) can start unaligned, and then N..2N-1 no
// longer holds: 2N ids rebuilt grow to 3N before the next deletion (found
// by BUGGIFY, site store-fails-after-write, smoke seeds 3 and 4).
func (c *Coordinator) retain(id int64) error {
	c.retainMu.Lock()
	defer c.retainMu.Unlock()
	c.mapMu.Lock()
	if c.cfg.Variants.Retention != variant.RetainMemory && slices.Contains(c.completedIDs, id) {
		// A restore's rebuild listed this store, which landed before it.
		env.Hit(c.e, env.ProbeRetainListed)
		c.mapMu.Unlock()
		return nil
	}
	c.completedIDs = append(c.completedIDs, id)
	drop := c.trimLocked()
	c.mapMu.Unlock()
	return c.deleteRetained(drop)
}

// trimLocked takes the oldest retained ids down to N once the deque holds
// 2N or more, and returns them; the caller holds coord.pending.
func (c *Coordinator) trimLocked() []int64 {
	n := c.cfg.MaxRetained
	k := len(c.completedIDs)
	if k < 2*n {
		return nil
	}
	drop := append([]int64(nil), c.completedIDs[:k-n]...)
	c.completedIDs = append([]int64(nil), c.completedIDs[k-n:]...)
	return drop
}

func (c *Coordinator) deleteRetained(drop []int64) error {
	if len(drop) == 0 {
		return nil
	}
	return c.d.Storage.Delete(c.job, c.pipeline, drop)
}

// notifyCompleted sends CheckpointFinished to every task; the schema-change
// after checkpoint also ends the schema change and re-arms the trigger.
func (c *Coordinator) notifyCompleted(cp *Completed) error {
	if cp == nil {
		return nil
	}
	for i, t := range c.tasks {
		if err := c.d.Transport.NotifyComplete(c.job, c.pipeline, t, cp); err != nil {
			if i > 0 {
				env.Hit(c.e, env.ProbeNotifyPartial) // earlier tasks were told
			}
			return fmt.Errorf("notify task %d of checkpoint %d: %w", t, cp.ID, err)
		}
	}
	if cp.Type == SchemaChangeAfter && (!cp.Restored || c.cfg.Variants.SchemaRecommit == variant.RecommitEnds) { // a restore's re-commit ends no schema change
		if !c.schemaChanging.CompareAndSwap(true, false) {
			return fmt.Errorf("schema change after checkpoint %d completed while not schema changing", cp.ID)
		}
		c.armPeriodic(c.cfg.Interval)
	}
	return nil
}

// finish ends a generation whose final checkpoint completed.
//
// It captures the generation's own future first: the status update is
// slow, and re-reading "the current future" afterwards would end a
// generation that a restore installed meanwhile (found by swarm).
func (c *Coordinator) finish(gen uint64, t Type) {
	st := Finished
	if t == Savepoint {
		st = Suspended
	}
	cur, f := c.Generation()
	if cur != gen {
		return // a restore already replaced the generation
	}
	c.endedGen.Store(gen) // before the clean: a restore in flight may clear the shutdown flag after it (F044)
	c.clean(ReasonCompleted, gen)
	c.updateStatus(gen, st)
	if c.cfg.Variants.FinishFuture == variant.FinishCurrent {
		_, f = c.Generation() // upstream re-reads the future field after the status write
	}
	if f.Complete(st) {
		if t == CompletedPoint {
			c.finishedFinal.Store(true)
		}
		c.emit(Event{Kind: EvFinished, Gen: gen, Type: t})
	}
}
