package coord

// The barrier-continuation=inline variant (H6) lives here, and only here.
//
// Upstream's thenAccept runs the continuation on whichever thread
// completes the pending future or, when the future is already complete,
// on the caller: the trigger, inside coord.lock and before the pending
// counter is incremented. A completion racing that window decrements the
// counter before the increment (the hazard). Java's monitor is
// re-entrant, so a barrier failure in the inline continuation cleans the
// pending state without taking coord.lock again; this variant models that
// by cleaning under the lock its caller holds.

// continueInline is startPending's continuation in the inline variant;
// the caller holds coord.lock.
func (c *Coordinator) continueInline(pf *Future[*Pending]) {
	if !pf.Done() {
		pf.WhenDone(c.continueHere) // on the completing thread, not under coord.lock
		return
	}
	c.emit(Event{Kind: EvInlineContinuation})
	p, err := pf.Get()
	if err != nil || p == nil {
		return
	}
	if err := c.continuation(p); err != nil {
		gen, failed := c.failGeneration(p.Gen, ReasonInsideError, err, fenceDeferred)
		if failed && c.beginClean(ReasonInsideError, gen) {
			c.cleanLocked(ReasonInsideError) // re-entered: this thread holds coord.lock
		}
	}
}
