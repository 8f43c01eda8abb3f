package coord

import (
	"fmt"
	"time"

	"github.com/ckptsim/ckptsim/core/env"
	"github.com/ckptsim/ckptsim/core/variant"
)

// scheduleTrigger arms a trigger of typ after delay on the lease; tok is
// the periodic chain a CHECKPOINT trigger belongs to, gen the generation
// the trigger (and its chain) belongs to: a re-arm keeps its body's.
func (c *Coordinator) scheduleTrigger(typ Type, delay time.Duration, tok, gen uint64) Cancelable {
	c.emit(Event{Kind: EvTriggerArmed, Type: typ, Delay: delay})
	return c.d.Lease.Schedule(delay, func() error { return c.triggerBody(typ, tok, gen) })
}

// staleTrigger reports whether a trigger armed in generation gen outlived
// it. A restore installs the new generation before its clean cancels the
// old generation's triggers, and a cancel that lands after the scheduler's
// hand-off is best-effort: the body still starts once. The chain token
// alone did not fence it, since the restore ends the old chain only when it
// resumes, after restoreState has cleared shutdown: a periodic trigger due
// at the failover's instant then triggered a checkpoint in the new
// generation from a task whose cancel had won (lease-cancel-effect, seeds
// 3000411, 3000415, 3000926 of h2-cancel-after-handoff). No lock: genNow
// is an atomic mirror of gen, so the fence adds no scheduling point.
func (c *Coordinator) staleTrigger(gen uint64) bool {
	if c.cfg.Variants.TriggerFence == variant.TriggerGeneration && c.genNow.Load() != gen {
		env.Hit(c.e, env.ProbeRearmStaleGeneration)
		c.stopped("trigger of an earlier generation")
		return true
	}
	return false
}

// buggifyRearm: the re-arm reaches the lease late, maybe after a CancelAll
// (BUGGIFY; outside coord.periodic).
func (c *Coordinator) buggifyRearm() {
	if env.Buggify(c.e, env.SiteRearmRacesCancel) {
		c.e.Sleep(c.cfg.PendingBackoff)
	}
}

// armPeriodic starts a new periodic chain (tasks ready, restore, end of a
// schema change) and ends the live one: its waiting trigger is cancelled
// and its running body can no longer re-arm. Without it a chain armed
// before a schema change or a restore and firing after it kept running
// beside the new one (two periodic chains per pipeline, found by the lease
// checks' lease-trigger-chains on swarm).
func (c *Coordinator) armPeriodic(delay time.Duration) {
	c.buggifyRearm()
	c.periodicMu.Lock()
	defer c.periodicMu.Unlock()
	tok := c.periodicTok
	if c.cfg.Variants.PeriodicArm == variant.ArmNewChain {
		tok = c.newChainLocked()
	}
	c.periodicTask = c.scheduleTrigger(Checkpoint, delay, tok, c.genNow.Load())
}

// newChain ends the live periodic chain and returns the token of the next
// (a restore's inline trigger starts it).
func (c *Coordinator) newChain() uint64 {
	c.periodicMu.Lock()
	defer c.periodicMu.Unlock()
	return c.newChainLocked()
}

func (c *Coordinator) newChainLocked() uint64 {
	c.periodicTok++
	if c.periodicTask != nil {
		c.periodicTask.Cancel()
		c.periodicTask = nil
	}
	return c.periodicTok
}

// rearm continues periodic chain tok (guards 3, 4, 7 and 9) unless a newer
// chain replaced it; other types re-arm as they are.
func (c *Coordinator) rearm(typ Type, delay time.Duration, tok, gen uint64) {
	c.buggifyRearm()
	if typ != Checkpoint {
		c.scheduleTrigger(typ, delay, 0, gen)
		return
	}
	c.periodicMu.Lock()
	defer c.periodicMu.Unlock()
	if tok != c.periodicTok {
		env.Hit(c.e, env.ProbeRearmSuperseded)
		c.stopped("superseded periodic trigger")
		return
	}
	// A re-arm that reaches the lease after a restore switched the
	// generation keeps a trigger of the old generation off the lease:
	// fenced, its body would do nothing. (It was added for two live chains
	// reported on savepoint-storm seeds 5600063 and 6 others of 300 with
	// BUGGIFY rearm-races-cancel; those were the lease decorator missing a
	// cancel that the restore's CancelAll made while the re-arm's Schedule
	// was in flight, fixed in workloads/cluster: the seeds pass without this
	// check too.) No lock: genNow mirrors the generation, so the check adds
	// no scheduling point.
	if c.cfg.Variants.TriggerFence == variant.TriggerGeneration && c.genNow.Load() != gen {
		c.stopped("trigger of an earlier generation")
		return
	}
	c.periodicTask = c.scheduleTrigger(Checkpoint, delay, tok, gen)
}

// superseded reports whether a CHECKPOINT trigger of chain tok was
// replaced by a newer chain.
func (c *Coordinator) superseded(typ Type, tok uint64) bool {
	if typ != Checkpoint {
		return false
	}
	c.periodicMu.Lock()
	defer c.periodicMu.Unlock()
	return tok != c.periodicTok
}

// triggerBody is what the scheduler runs. With trigger-errors=report a
// failure in the trigger path fails the generation visibly (the job master
// then restores it); with silent (H4) the error only fails the task, and
// since the trigger was the only re-armer, checkpoints stop.
func (c *Coordinator) triggerBody(typ Type, tok, armed uint64) (err error) {
	if c.staleTrigger(armed) {
		return nil
	}
	if c.superseded(typ, tok) {
		c.stopped("superseded periodic trigger")
		return nil
	}
	if c.cfg.Variants.TriggerErrors == variant.ErrorsSilent {
		return c.tryTrigger(typ, tok, armed)
	}
	gen, _ := c.Generation()
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("trigger panicked: %v", v)
		}
		if err != nil {
			c.log().Error("checkpoint trigger failed", "type", typ, "err", err)
			c.handleError(gen, ReasonTriggerFailed, err, fenceAlways)
		}
	}()
	return c.tryTrigger(typ, tok, armed)
}

// TryTrigger is tryTriggerPendingCheckpoint (SPEC 1.4), with its guards in
// upstream order. tok is the periodic chain of a CHECKPOINT trigger (0:
// none, as for a trigger requested by hand: it never re-arms); gen is the
// generation it was armed in.
func (c *Coordinator) tryTrigger(typ Type, tok, gen uint64) error {
	if c.d.Lease.Closed() { // guard 0: the scheduler was shut down (Java: interrupted)
		c.stopped("scheduler closed")
		return nil
	}
	now := c.e.Now()
	if typ == Checkpoint {
		if rearmed, stop := c.periodicGuards(now, tok, gen); rearmed || stop {
			return nil
		}
	}
	if h := c.cfg.Hooks.TriggerFault; h != nil {
		if err := h(c.job, c.pipeline); err != nil {
			return err
		}
	}
	if env.Buggify(c.e, env.SiteTriggerSlow) {
		c.e.Sleep(c.cfg.PendingBackoff) // BUGGIFY: the body is descheduled before the lock
	}
	c.lock.Lock()
	defer c.lock.Unlock()
	return c.triggerLocked(now, typ, tok, gen)
}

// periodicGuards are guards 1-4; they apply to CHECKPOINT only.
func (c *Coordinator) periodicGuards(now time.Time, tok, gen uint64) (rearmed, stop bool) {
	if !c.allTaskReady.Load() {
		c.stopped("tasks not ready") // guard 1: allTaskReady or restore re-arms
		return false, true
	}
	elapsed := now.Sub(time.Unix(0, c.latestTrigger.Load()))
	if elapsed <= 0 {
		c.log().Error("clock went backwards or trigger in the same instant", "elapsed", elapsed)
	}
	if elapsed < c.cfg.Interval { // guard 3
		c.rearm(Checkpoint, c.cfg.Interval-elapsed, tok, gen)
		return true, false
	}
	if l := c.latestCompleted.Load(); l != nil && c.cfg.MinPause > 0 { // guard 4
		if since := now.Sub(l.CompletedAt); since < c.cfg.MinPause {
			c.rearm(Checkpoint, c.cfg.MinPause-since, tok, gen)
			return true, false
		}
	}
	return false, false
}

// triggerLocked is guards 5-9; the caller holds coord.lock. A trigger of
// an earlier generation stops first: it may have passed the fence at its
// start and then waited for the lock across a restore.
func (c *Coordinator) triggerLocked(now time.Time, typ Type, tok, gen uint64) error {
	if c.staleTrigger(gen) {
		env.Hit(c.e, env.ProbeTriggerStaleAfterLock)
		return nil
	}
	ended := c.endedGen.Load() == c.genNow.Load()
	if ended && !c.isCompleted() && !c.shutdown.Load() {
		env.Hit(c.e, env.ProbeTriggerGenerationEnded)
	}
	if c.isCompleted() || c.shutdown.Load() || ended { // guard 5
		c.stopped("completed or shut down")
		if typ.SchemaChange() && c.cfg.Variants.DroppedSchemaChange == variant.DroppedSchemaEnds {
			// The clean that shut the generation down already ended any
			// schema change it saw; this one began after it (a request
			// during a restore, before the resume). Its checkpoint will
			// never be taken, so it ends here, or guard 6 would stop
			// every periodic trigger of the restored generation for good
			// (swarm seed 101259).
			c.schemaChanging.Store(false)
		}
		return nil
	}
	if c.schemaChanging.Load() && typ == Checkpoint { // guard 6
		c.stopped("schema changing")
		return nil
	}
	if c.pendingCounter.Load() > 0 || (typ == Checkpoint && c.savepointWaiting.Load() > 0) { // guard 7 (+ a waiting savepoint goes first)
		c.rearm(typ, c.cfg.PendingBackoff, tok, gen)
		return nil
	}
	pf, err := c.createPending(now, typ) // guard 8
	if err != nil {
		return err
	}
	c.startPending(pf)
	if typ == Checkpoint { // guard 9
		c.rearm(Checkpoint, c.cfg.Interval, tok, gen)
	}
	return nil
}

func (c *Coordinator) stopped(why string) {
	c.emit(Event{Kind: EvTriggerStopped, Reason: Reason(why)})
}

// createPending is createPendingCheckpoint (SPEC 1.5): the caller holds
// coord.lock. The id, the pending checkpoint and its registration are
// built in three hops on the coordinator executor.
func (c *Coordinator) createPending(now time.Time, typ Type) (*Future[*Pending], error) {
	gen, _ := c.Generation()
	cleans := c.cleanCount()
	c.latestTrigger.Store(now.UnixNano())
	pf := NewFuture[*Pending](c.e)
	err := c.async(func() {
		id, err := c.allocateID(typ)
		if err != nil {
			c.handleError(gen, ReasonIDFailed, err, fenceDeferred)
			pf.Fail(err)
			return
		}
		c.hop(pf, gen, func() {
			tasks, prepare, closed := c.idleSnapshot(typ)
			p := newPending(c.e, c.job, c.pipeline, id, typ, now, gen, tasks)
			p.cleans, p.prepareClose, p.closed = cleans, prepare, closed
			c.hop(pf, gen, func() {
				if env.Buggify(c.e, env.SiteRegisterLate) {
					c.e.Sleep(c.cfg.PendingBackoff) // BUGGIFY: the registration hop arrives late
				}
				if c.register(p) {
					pf.Complete(p)
				} else {
					pf.Fail(&Aborted{Reason: ReasonReset})
				}
			})
		})
	})
	if err != nil {
		return nil, fmt.Errorf("create pending checkpoint: %w", err)
	}
	return pf, nil
}

// hop runs fn on the executor; a rejection fails pf and the generation.
func (c *Coordinator) hop(pf *Future[*Pending], gen uint64, fn func()) {
	if err := c.async(fn); err != nil {
		c.handleError(gen, ReasonTriggerFailed, err, fenceDeferred)
		pf.Fail(err)
	}
}

func (c *Coordinator) allocateID(typ Type) (int64, error) {
	if typ == CompletedPoint {
		return CompletedPointID, nil
	}
	return c.d.IDs.Next(c.job, c.pipeline)
}

// register puts p in the pending map, unless a clean ran since p was
// created: its registration hop arrived late and p belongs to nobody.
func (c *Coordinator) register(p *Pending) bool {
	c.mapMu.Lock()
	late := p.cleans != c.cleans
	if !late {
		c.pending[p.ID] = p
	}
	c.mapMu.Unlock()
	if late {
		env.Hit(c.e, env.ProbeRegisterLate)
		c.stale(p.Gen, ReasonReset, 0)
		p.fut.Complete(nil)
		return false
	}
	c.emit(Event{Kind: EvTriggered, Gen: p.Gen, ID: p.ID, Type: p.Type})
	return true
}

// cleanCount returns how many cleans have run.
func (c *Coordinator) cleanCount() uint64 {
	c.mapMu.Lock()
	defer c.mapMu.Unlock()
	return c.cleans
}

// startPending is startTriggerPendingCheckpoint (SPEC 1.6); the caller
// holds coord.lock. The continuation hops to the executor once the
// pending checkpoint exists (thenAcceptAsync); the inline variant is in
// inline.go.
func (c *Coordinator) startPending(pf *Future[*Pending]) {
	if c.cfg.Variants.BarrierContinuation == variant.ContinueInline {
		c.continueInline(pf)
	} else {
		pf.WhenDone(func(p *Pending, err error) {
			if xerr := c.async(func() { c.continueHere(p, err) }); xerr != nil && p != nil {
				// The hand-off was rejected (a step-down shut the executor
				// down). This callback runs inline on the trigger's thread,
				// inside coord.lock, when the creation finished before the
				// registration: failing the generation here would take
				// coord.lock again for the clean and the thread would wait
				// for itself (coord.lock is not re-entrant, Java's monitor
				// was; PCT, failovers seed 5000517). The failure runs on a
				// thread of its own, as upstream's fallback executor (#12152).
				env.Hit(c.e, env.ProbeContinuationFallback)
				c.e.Go(fmt.Sprintf("coordinator-fallback-%d-%d", c.job, c.pipeline), func() { c.handleError(p.Gen, ReasonTriggerFailed, xerr, fenceDeferred) })
			}
		})
	}
	n := c.pendingCounter.Add(1)
	c.emit(Event{Kind: EvPendingCount, Count: int(n)})
}

// continueHere runs the continuation of a created pending checkpoint (err
// is its creation's failure, already reported by the hop that failed) on
// the calling thread, and fails the generation if a barrier cannot be sent.
func (c *Coordinator) continueHere(p *Pending, err error) {
	if err != nil || p == nil {
		return
	}
	if err := c.continuation(p); err != nil {
		c.handleError(p.Gen, ReasonInsideError, err, fenceDeferred)
	}
}

// continuation registers completion handling, dispatches barriers and
// arms the timeout watchdog. A barrier that cannot be sent stops it; the
// error is the caller's to handle.
func (c *Coordinator) continuation(p *Pending) error {
	p.fut.WhenDone(func(cp *Completed, err error) { c.onPendingDone(p, cp, err) })
	b := Barrier{ID: p.ID, Timestamp: p.TriggeredAt, Type: p.Type, PrepareClose: p.prepareClose, Closed: p.closed}
	for i, t := range p.tasks {
		if err := c.d.Transport.TriggerBarrier(c.job, c.pipeline, t, b); err != nil {
			if i > 0 {
				env.Hit(c.e, env.ProbeBarrierPartial) // earlier tasks have their barrier
			}
			return fmt.Errorf("barrier dispatch to task %d: %w", t, err)
		}
	}
	if c.cfg.Interval <= 0 && p.Type != CompletedPoint && p.Type != Savepoint {
		return nil
	}
	timeout := c.cfg.Timeout
	if p.Type == SchemaChangeAfter {
		timeout = c.cfg.SchemaTimeout
	}
	p.watchdog.Store(&watchdogRef{c.d.Lease.Schedule(timeout, func() error { c.watchdog(p); return nil })})
	return nil
}

// onPendingDone hops the pending future's outcome to the executor
// (whenCompleteAsync): an abort fails the generation that armed it, a
// completion completes it, a nil result (RESET, PIPELINE_END) is skipped.
func (c *Coordinator) onPendingDone(p *Pending, cp *Completed, err error) {
	handle := func() {
		switch {
		case err != nil:
			p.stored.Fail(err)
			c.handleError(p.Gen, ReasonTriggerFailed, err, fenceDeferred)
		case cp != nil:
			if env.Buggify(c.e, env.SiteCompletionAfterClean) {
				c.e.Sleep(c.cfg.Timeout) // BUGGIFY: the completion arrives late, maybe after a clean
			}
			if err := c.complete(p, cp); err != nil {
				p.stored.Fail(err)
				c.handleError(p.Gen, ReasonCompleteFailed, err, fenceDeferred)
			}
		default:
			p.stored.Complete(nil)
			c.log().Debug("pending checkpoint aborted without failure", "id", p.ID)
		}
	}
	if xerr := c.async(handle); xerr != nil {
		if c.cfg.Variants.CompletionFallback == variant.CompletionDrop {
			c.log().Warn("coordinator executor rejected a completion handler; dropped", "id", p.ID, "err", xerr)
			return
		}
		// Upstream's whenCompleteAsync on a shut-down executor loses the
		// handler, leaving a fully acknowledged checkpoint that no watchdog
		// will expire. Run it inline instead, as the expiry does (H11).
		c.log().Warn("coordinator executor rejected a completion handler; running inline", "id", p.ID, "err", xerr)
		env.Hit(c.e, env.ProbeCompletionInline)
		handle()
	}
}

func (c *Coordinator) deferredFence() bool {
	return c.cfg.Variants.DeferredFence == variant.FenceGeneration
}
