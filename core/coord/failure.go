package coord

import (
	"errors"
	"fmt"

	"github.com/ckptsim/ckptsim/core/env"
	"github.com/ckptsim/ckptsim/core/variant"
)

// watchdog is the timeout body (SPEC 1.6 step 4). It runs on a dispatch
// thread and keeps only the lookup and the fully-acked check; the failing
// work is handed to the executor.
//
// Its re-check is what makes a cancel that loses to the hand-off harmless
// (H2); watchdog-recheck=none removes it.
func (c *Coordinator) watchdog(p *Pending) {
	if c.cfg.Variants.WatchdogRecheck != variant.RecheckNone {
		if c.lookup(p.ID) != p {
			return
		}
		if p.FullyAcked() {
			env.Hit(c.e, env.ProbeWatchdogFullyAcked) // the completion is still in flight
			return
		}
	}
	c.log().Warn("timeout checkpoint", "id", p.ID, "generation", p.Gen)
	c.expire(p)
}

// expire hands the expiry to the coordinator executor; if the executor
// rejects (master step-down, H11) it runs inline with a warning, because a
// dropped expiry would leave the checkpoint pending forever.
func (c *Coordinator) expire(p *Pending) {
	if c.cfg.Variants.ExpiryExec == variant.ExpireInline {
		c.failExpired(p)
		return
	}
	if err := c.async(func() {
		if env.Buggify(c.e, env.SiteExpiryLate) {
			c.e.Sleep(c.cfg.PendingBackoff) // BUGGIFY: the expiry starts late
		}
		c.failExpired(p)
	}); err != nil {
		if c.cfg.Variants.ExpiryFallback == variant.FallbackDrop {
			c.log().Warn("coordinator executor rejected the expiry; dropped", "id", p.ID, "err", err)
			return // H11: the checkpoint stays pending forever
		}
		c.log().Warn("coordinator executor rejected the expiry; expiring inline", "id", p.ID, "err", err)
		c.emit(Event{Kind: EvExpiryFallback, ID: p.ID, ArmedGen: p.Gen})
		env.Hit(c.e, env.ProbeExpiryInline)
		c.failExpired(p)
	}
}

// failExpired is failExpiredCheckpoint(token): with expiry-fence=generation
// the expiry fails only the generation that armed it (H1).
func (c *Coordinator) failExpired(p *Pending) {
	if c.fenced(fenceExpiry) && c.lookup(p.ID) != p {
		env.Hit(c.e, env.ProbeExpiryStale)
		c.stale(p.Gen, ReasonExpired, c.effectStart(p.Gen, ReasonExpired))
		return
	}
	c.handleError(p.Gen, ReasonExpired, fmt.Errorf("checkpoint %d expired", p.ID), fenceExpiry)
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

// fencing names the generation fence a failure is judged by.
type fencing uint8

const (
	// fenceDeferred: deferred work, fenced with deferred-fence=generation (H9).
	fenceDeferred fencing = iota
	// fenceExpiry: the expiry, fenced with expiry-fence=generation (H1).
	fenceExpiry
	// fenceAlways: work that read its generation when it began (the trigger
	// body, a restore), always fenced.
	fenceAlways
)

// fenced reports whether f drops work of an earlier generation.
func (c *Coordinator) fenced(f fencing) bool {
	switch f {
	case fenceExpiry:
		return c.cfg.Variants.ExpiryFence == variant.FenceGeneration
	case fenceAlways:
		return true
	}
	return c.deferredFence()
}

// handleError is handleCoordinatorError (SPEC 1.9). armed is the
// generation the failing work belongs to; when f fences, work of an
// earlier generation is dropped instead of failing the current one (H1,
// H9).
//
// With notify-wait=backoff the handler waits one status backoff between
// telling the job master and its clean: upstream's L343
// handleCheckpointError runs on the handler's thread and may block before
// L347's clean, long enough for the job master's whole restart (F027).
func (c *Coordinator) handleError(armed uint64, r Reason, err error, f fencing) {
	if gen, failed := c.failGeneration(armed, r, err, f); failed {
		if c.cfg.Variants.NotifyWait == variant.NotifyBackoff {
			c.e.Sleep(c.cfg.StatusBackoff)
		}
		c.clean(r, gen)
	}
}

// failGeneration is handleCoordinatorError up to the clean: it reports the
// generation it failed, or false when the failure was stale or not first.
//
// Only a failure that passes the generation fence records the first error,
// with the read of the generation, under coord.generation, where a restore
// installs the next generation and clears it. Recorded before the fence, a
// stale failure (of a generation a restore replaced) left the current
// generation a first error it never had, and Restore then restored a
// finished pipeline (TestStaleFailureKeepsFinishedPipelineFinished).
func (c *Coordinator) failGeneration(armed uint64, r Reason, err error, f fencing) (uint64, bool) {
	op := c.effectStart(armed, r)
	msg := fmt.Sprintf("%s: %v", r, err)
	c.genMu.Lock()
	cur, fut := c.gen, c.fut
	if h := c.cfg.Hooks.Relabel; h != nil && r == ReasonExpired {
		armed = h(armed, cur) // the planted relabelling mutant (tests only)
	}
	stale := c.fenced(f) && armed != cur
	if !stale {
		c.firstError.CompareAndSwap(nil, &msg)
	}
	c.genMu.Unlock()
	if stale {
		c.stale(armed, r, op)
		return 0, false
	}
	if fut.Done() {
		c.emit(Event{Kind: EvEffectNoop, ArmedGen: armed, Gen: cur, Reason: r, Op: op})
		return 0, false // first error wins
	}
	switch c.updateStatus(cur, Failed) {
	case statusReplaced:
		env.Hit(c.e, env.ProbeFailReplacedDuringStatus)
		c.stale(armed, r, op) // a restore replaced the generation while this effect ran: it needs no failover
		return 0, false
	case statusEnded:
		// A cancel or a finish began to end the generation after this
		// failure looked at its future: the ending writes its own status
		// and completes the future (F045).
		env.Hit(c.e, env.ProbeFailAfterEnd)
		c.emit(Event{Kind: EvEffectNoop, ArmedGen: armed, Gen: cur, Reason: r, Op: op})
		return 0, false
	}
	if !fut.Complete(Failed) {
		env.Hit(c.e, env.ProbeFailLostTheFuture)
		c.emit(Event{Kind: EvEffectNoop, ArmedGen: armed, Gen: cur, Reason: r, Op: op})
		return 0, false
	}
	c.log().Error("checkpoint coordinator failed", "reason", r, "err", err, "generation", cur)
	c.emit(Event{Kind: EvGenFailed, ArmedGen: armed, Gen: cur, Reason: r, Op: op})
	c.d.Master.HandleCheckpointError(c.job, c.pipeline, cur, r)
	return cur, true
}

// updateStatus writes generation gen's status to the status store,
// retrying retryable errors up to StatusRetries times with StatusBackoff
// between (30 x 2 s upstream: the slow, blocking part of the error path).
// Writes are serialised, and a write for a generation a restore already
// replaced is skipped: otherwise a failing generation's FAILED, written
// while a restore installs the next one, could land after the new
// generation's RUNNING and leave a running pipeline marked FAILED (found
// by the generation model once it read the status store in simulation,
// issue 13). So is a FAILED for a generation a cancel or a finish began
// to end: a failure that looked at the future before the ending completed
// it would otherwise write FAILED after the ending's CANCELED (or
// FINISHED), and then lose the future to it, reporting nothing: the store
// says FAILED for a canceled pipeline no one fails over (F045; the
// cancel-at-failure scenario, status-justified). Cancel and finish store
// endedGen before their own write, so under the status lock a FAILED
// either lands first, or sees the ending and is not written.
func (c *Coordinator) updateStatus(gen uint64, s GenStatus) statusWrite {
	c.statusMu.Lock()
	defer c.statusMu.Unlock()
	if cur, _ := c.Generation(); cur != gen && c.cfg.Variants.StatusFence == variant.StatusGeneration {
		c.log().Info("skipping the status write of a replaced generation", "status", s, "generation", gen, "current", cur)
		return statusReplaced
	}
	if s == Failed && c.endedGen.Load() == gen {
		c.log().Info("skipping the FAILED write of a generation a cancel or a finish is ending", "generation", gen)
		return statusEnded
	}
	if env.Buggify(c.e, env.SiteStatusSlow) {
		c.e.Sleep(c.cfg.StatusBackoff) // BUGGIFY: the write is slow
	}
	if err := c.retryStatus(func() error { return c.d.Status.Set(c.statusKey(), s.String()) }); err != nil {
		c.log().Error("status update failed", "status", s, "err", err)
	}
	return statusWritten
}

// statusWrite is what updateStatus did.
type statusWrite int

const (
	statusWritten  statusWrite = iota
	statusReplaced             // skipped: a restore replaced the generation
	statusEnded                // skipped: a FAILED for a generation a cancel or a finish is ending
)

// retryStatus runs a status-store operation with the IMap retry loop, retrying a panicked one (PluginPanic) too, as every status operation is idempotent; status-panic=drop retries none (F039: upstream's loop retries three exception types).
func (c *Coordinator) retryStatus(op func() error) error {
	var err error
	for range c.cfg.StatusRetries {
		if err = op(); err == nil || !errors.Is(err, ErrRetryable) && !(isPluginPanic(err) && c.cfg.Variants.StatusPanic == variant.PanicRetry) {
			return err
		}
		c.e.Sleep(c.cfg.StatusBackoff)
	}
	return err
}

// clean is cleanPendingCheckpoint (SPEC 1.9). gen is the generation being
// cleaned: with the generation fence a clean for a generation that a
// restore already replaced does nothing (the restore cleaned it).
//
// The fence holds across the wait for coord.lock: a failure's clean that
// passed it, then waited for the lock while a restore replaced the
// generation and resumed it, cancelled the restored generation's new
// periodic trigger and aborted its checkpoints, leaving it alive with
// nothing armed for good (checkpoint-progress; PCT with BUGGIFY on,
// saturation and savepoint-storm, about one seed in five). So the check
// and the shutdown flags are one step under coord.generation, where a
// restore switches generations (a restore after them resets the flags),
// and the check is made again under coord.lock.
func (c *Coordinator) clean(r Reason, gen uint64) {
	if !c.beginClean(r, gen) {
		return
	}
	c.lock.Lock()
	defer c.lock.Unlock()
	if c.replaced(r, gen) {
		env.Hit(c.e, env.ProbeCleanReplacedWhileWaiting)
		return // a restore replaced the generation while this clean waited
	}
	c.cleanLocked(r)
}

// beginClean is the part of clean before coord.lock: the fence, then the
// shutdown flags, under coord.generation. It reports whether the clean
// goes on.
func (c *Coordinator) beginClean(r Reason, gen uint64) bool {
	if c.deferredFence() && r != ReasonReset {
		c.genMu.Lock()
		defer c.genMu.Unlock()
		if c.gen != gen {
			env.Hit(c.e, env.ProbeCleanFencedAtBegin)
			return false
		}
	}
	c.shutdown.Store(true)
	c.allTaskReady.Store(false)
	return true
}

// replaced reports, with the generation fence, that a restore replaced
// generation gen (a restore's own clean, ReasonReset, is never replaced).
// genNow mirrors the generation without a lock (no scheduling point).
func (c *Coordinator) replaced(r Reason, gen uint64) bool {
	return c.deferredFence() && r != ReasonReset && c.genNow.Load() != gen
}

// cleanLocked is the part of clean under coord.lock.
func (c *Coordinator) cleanLocked(r Reason) {
	for _, p := range c.takePending() {
		c.abort(p, r)
	}
	c.emit(Event{Kind: EvPendingCount, Count: 0})
	c.schemaChanging.Store(false)
	if r != ReasonReset {
		c.d.Status.Delete(c.readyToCloseKey())
	}
	c.d.Lease.CancelAll()
}

// takePending empties the pending map and the task bookkeeping, and
// returns what it held, in one section under coord.map: a registration
// hop (register, on the executor, outside coord.lock) either lands before
// it, and its checkpoint is returned to be aborted, or after it, and sees
// the bumped clean count and refuses (ProbeRegisterLate). It copied the
// map in one section and cleared it in a second, and a registration
// between the two was cleared without an abort: its future never ended
// and a savepoint waiting on it was never answered (F041; windows seeds
// 31 and 33, calls-answered; upstream's cleanPendingCheckpoint iterates
// pendingCheckpoints.values() and then clears the map, the same shape).
func (c *Coordinator) takePending() []*Pending {
	if env.Buggify(c.e, env.SiteCleanSlow) {
		c.e.Sleep(c.cfg.PendingBackoff) // BUGGIFY: the clean is slow to reach the map
	}
	c.mapMu.Lock()
	ps := c.pendingLocked()
	c.cleans++
	c.pendingCounter.Store(0)
	clear(c.pending)
	clear(c.taskStatus)
	clear(c.readyToClose)
	c.idleClean()
	c.mapMu.Unlock()
	return ps
}

// abort completes a pending future: with nil for RESET and PIPELINE_END,
// exceptionally otherwise (which schedules the deferred handler, H9b).
func (c *Coordinator) abort(p *Pending, r Reason) {
	p.cancelWatchdog()
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
			env.Hit(c.e, env.ProbeTaskErrorStale)
			c.stale(gen, ReasonTaskReported, 0)
			return
		}
		gen = p.Gen
	}
	err := fmt.Errorf("task reported: %s", msg)
	if xerr := c.async(func() { c.handleError(gen, ReasonTaskReported, err, fenceDeferred) }); xerr != nil {
		c.handleError(gen, ReasonTaskReported, err, fenceDeferred)
	}
}
