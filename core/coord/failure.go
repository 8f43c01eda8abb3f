package coord

import (
	"errors"
	"fmt"
)

// watchdog is the timeout body (SPEC 1.6 step 4). It runs on a dispatch
// thread and keeps only the lookup and the fully-acked check; the failing
// work is handed to the executor.
//
// Its re-check is what makes a cancel that loses to the hand-off harmless
// (H2); watchdog-recheck=none removes it.
func (c *Coordinator) watchdog(p *Pending) {
	if c.cfg.Variants.WatchdogRecheck != "none" && (c.lookup(p.ID) != p || p.FullyAcked()) {
		return
	}
	c.log().Warn("timeout checkpoint", "id", p.ID, "generation", p.Gen)
	c.expire(p)
}

// expire hands the expiry to the coordinator executor; if the executor
// rejects (master step-down, H11) it runs inline with a warning, because a
// dropped expiry would leave the checkpoint pending forever.
func (c *Coordinator) expire(p *Pending) {
	if c.cfg.Variants.ExpiryExec == "inline" {
		c.failExpired(p)
		return
	}
	if err := c.async(func() { c.failExpired(p) }); err != nil {
		if c.cfg.Variants.ExpiryFallback == "drop" {
			c.log().Warn("coordinator executor rejected the expiry; dropped", "id", p.ID, "err", err)
			return // H11: the checkpoint stays pending forever
		}
		c.log().Warn("coordinator executor rejected the expiry; expiring inline", "id", p.ID, "err", err)
		c.emit(Event{Kind: EvExpiryFallback, ID: p.ID, ArmedGen: p.Gen})
		c.failExpired(p)
	}
}

// failExpired is failExpiredCheckpoint(token): with expiry-fence=generation
// the expiry fails only the generation that armed it (H1).
func (c *Coordinator) failExpired(p *Pending) {
	fence := c.cfg.Variants.ExpiryFence == "generation"
	if fence && c.lookup(p.ID) != p {
		c.stale(p.Gen, ReasonExpired, c.effectStart(p.Gen, ReasonExpired))
		return
	}
	c.handleError(p.Gen, ReasonExpired, fmt.Errorf("checkpoint %d expired", p.ID), fence, false)
}

// stale drops a deferred step of an earlier generation; op pairs it with
// its EvEffect when it is a failure effect (0 otherwise).
func (c *Coordinator) stale(armed uint64, r Reason, op uint64) {
	cur, _ := c.Generation()
	c.log().Info("dropping a stale deferred effect", "armed_generation", armed, "generation", cur, "reason", r)
	c.emit(Event{Kind: EvStaleDropped, ArmedGen: armed, Gen: cur, Reason: r, Op: op})
}

// effectStart reports the start of a failure effect armed in armed.
func (c *Coordinator) effectStart(armed uint64, r Reason) uint64 {
	op := c.effects.Add(1)
	c.emit(Event{Kind: EvEffect, ArmedGen: armed, Reason: r, Op: op})
	return op
}

// handleError is handleCoordinatorError (SPEC 1.9). armed is the
// generation the failing work belongs to; with fence, work of an earlier
// generation is dropped instead of failing the current one (H1, H9).
// lockHeld is true only when called from inside coord.lock (inline
// variant).
func (c *Coordinator) handleError(armed uint64, r Reason, err error, fence, lockHeld bool) {
	op := c.effectStart(armed, r)
	msg := fmt.Sprintf("%s: %v", r, err)
	c.firstError.CompareAndSwap(nil, &msg)
	c.genMu.Lock()
	cur, f := c.gen, c.fut
	c.genMu.Unlock()
	if h := c.cfg.Hooks.Relabel; h != nil && r == ReasonExpired {
		armed = h(armed, cur) // the planted relabelling mutant (tests only)
	}
	if fence && armed != cur {
		c.stale(armed, r, op)
		return
	}
	if f.Done() {
		c.emit(Event{Kind: EvEffectNoop, ArmedGen: armed, Gen: cur, Reason: r, Op: op})
		return // first error wins
	}
	if !c.updateStatus(cur, Failed) {
		c.stale(armed, r, op) // a restore replaced the generation while this effect ran: it needs no failover
		return
	}
	if !f.Complete(Failed) {
		c.emit(Event{Kind: EvEffectNoop, ArmedGen: armed, Gen: cur, Reason: r, Op: op})
		return
	}
	c.log().Error("checkpoint coordinator failed", "reason", r, "err", err, "generation", cur)
	c.emit(Event{Kind: EvGenFailed, ArmedGen: armed, Gen: cur, Reason: r, Op: op})
	c.d.Master.HandleCheckpointError(c.job, c.pipeline, cur, r)
	c.clean(r, cur, lockHeld)
}

// updateStatus writes generation gen's status to the status store,
// retrying retryable errors up to StatusRetries times with StatusBackoff
// between (30 x 2 s upstream: the slow, blocking part of the error path).
// Writes are serialised, and a write for a generation a restore already
// replaced is skipped: otherwise a failing generation's FAILED, written
// while a restore installs the next one, could land after the new
// generation's RUNNING and leave a running pipeline marked FAILED (found
// by the generation model once it read the status store in simulation,
// issue 13). It returns false when it skipped the write for that reason.
func (c *Coordinator) updateStatus(gen uint64, s Status) bool {
	c.statusMu.Lock()
	defer c.statusMu.Unlock()
	if cur, _ := c.Generation(); cur != gen {
		c.log().Info("skipping the status write of a replaced generation", "status", s, "generation", gen, "current", cur)
		return false
	}
	if err := c.retryStatus(func() error { return c.d.Status.Set(c.statusKey(), s.String()) }); err != nil {
		c.log().Error("status update failed", "status", s, "err", err)
	}
	return true
}

// retryStatus runs a status-store operation with the IMap retry loop.
func (c *Coordinator) retryStatus(op func() error) error {
	var err error
	for range c.cfg.StatusRetries {
		if err = op(); err == nil || !errors.Is(err, ErrRetryable) {
			return err
		}
		c.e.Sleep(c.cfg.StatusBackoff)
	}
	return err
}

// clean is cleanPendingCheckpoint (SPEC 1.9). gen is the generation being
// cleaned: with the generation fence a clean for a generation that a
// restore already replaced does nothing (the restore cleaned it).
func (c *Coordinator) clean(r Reason, gen uint64, lockHeld bool) {
	if c.deferredFence() && r != ReasonReset {
		if cur, _ := c.Generation(); cur != gen {
			return
		}
	}
	c.shutdown.Store(true)
	c.allTaskReady.Store(false)
	unlock := c.lockUnlessHeld(lockHeld)
	defer unlock()
	for _, p := range c.takePending() {
		c.abort(p, r)
	}
	c.emit(Event{Kind: EvPendingCount, Count: 0})
	c.schemaChanging.Store(false)
	if r != ReasonReset {
		c.d.Status.Delete(c.statusKey() + "_ready_to_close")
	}
	c.d.Lease.CancelAll()
}

// takePending empties the pending map and the task bookkeeping.
func (c *Coordinator) takePending() []*Pending {
	ps := c.pendingSnapshot()
	c.mapMu.Lock()
	c.cleans++
	c.pendingCounter.Store(0)
	clear(c.pending)
	clear(c.taskStatus)
	clear(c.readyToClose)
	c.mapMu.Unlock()
	return ps
}

// abort completes a pending future: with nil for RESET and PIPELINE_END,
// exceptionally otherwise (which schedules the deferred handler, H9b).
func (c *Coordinator) abort(p *Pending, r Reason) {
	if p.watchdog != nil {
		p.watchdog.Cancel()
	}
	c.emit(Event{Kind: EvAborted, Gen: p.Gen, ID: p.ID, Reason: r})
	if r == ReasonReset || r == ReasonPipelineEnd {
		p.fut.Complete(nil)
		return
	}
	p.fut.Fail(&Aborted{Reason: r})
}

// ReportTaskError is reportCheckpointErrorFromTask: a task failed
// checkpoint id. It is handed to the executor, fenced by generation: the
// report fails the generation that triggered id, and is dropped as stale
// when id is no longer pending (a restore replaced its generation: the
// report was in flight from a task of the earlier deployment). Upstream's
// report carries no checkpoint id and fails whatever generation is current
// when it arrives, which deferred-fence=none keeps (H9; found by the
// oracle's generation-justified check: the fixed design failed a
// generation with a stale task report).
func (c *Coordinator) ReportTaskError(id int64, msg string) {
	gen, _ := c.Generation()
	if c.deferredFence() {
		p := c.lookup(id)
		if p == nil {
			c.stale(gen, ReasonTaskReported, 0)
			return
		}
		gen = p.Gen
	}
	err := fmt.Errorf("task reported: %s", msg)
	if xerr := c.async(func() { c.handleError(gen, ReasonTaskReported, err, c.deferredFence(), false) }); xerr != nil {
		c.handleError(gen, ReasonTaskReported, err, c.deferredFence(), false)
	}
}
