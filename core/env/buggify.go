package env

// Site names a rare path in core code that a simulation may switch on
// (FoundationDB's BUGGIFY). Core asks Buggify(e, site) where production
// takes a path only rarely; the simulator decides, per seed, which sites
// are on and when an on site fires, and records every firing in its trace.
// In wall mode the answer is always no.
//
// A site's rare path must be one production can really take (a slow call,
// a late hand-off, a rejection the caller already handles), so that every
// failure it exposes is a bug, not noise.
type Site uint8

// The sites. Their names are stable: scenarios and campaign reports use them.
const (
	// SiteStatusSlow: a status-store write takes as long as one retry
	// back-off before it is issued (an IMap call stuck behind a partition).
	SiteStatusSlow Site = iota + 1
	// SiteCompletionAfterClean: the completion handler of a fully
	// acknowledged checkpoint reaches the coordinator one checkpoint
	// timeout late, so that a clean (failure, cancel, restore) can come first.
	SiteCompletionAfterClean
	// SiteRearmRacesCancel: a trigger re-arm reaches the lease one pending
	// back-off late, so that a concurrent clean's CancelAll can come first.
	SiteRearmRacesCancel
	// SiteExecutorRejects: the coordinator executor rejects a hand-off
	// (saturated or shutting down) although it is running.
	SiteExecutorRejects
	// SiteStoreFailsAfterWrite: a checkpoint store that took effect reports
	// a failure (the reply was lost after the write was durable).
	SiteStoreFailsAfterWrite
	// SiteResetSwapLate: a per-pipeline reset swaps its fresh timer in one
	// pending back-off late (the fresh timer's threads slow to start), so
	// that a Schedule racing CancelAll (a body's re-arm, a continuation's
	// watchdog) arms onto the timer the reset retires.
	SiteResetSwapLate
	// SiteRegisterLate: a pending checkpoint's registration hop reaches the
	// pending map one pending back-off late (the coordinator executor is
	// busy), so that a clean can run between its creation and its
	// registration (ProbeRegisterLate).
	SiteRegisterLate
	// SiteCleanSlow: a clean, holding coord.lock, reaches the pending map
	// one pending back-off late (a pause of the thread that runs it), so
	// that registration hops in flight meet a clean in progress.
	SiteCleanSlow
	// SiteAckSlow: an acknowledgement, having found its checkpoint pending,
	// is slow to record itself (the acknowledging thread pauses one pending
	// back-off), so that a clean can take the checkpoint in between
	// (ProbeAckAfterAbort, ProbeIdleAckAfterClean).
	SiteAckSlow
	// SiteRestoreListSlow: a restore's listing of the stored checkpoints
	// returns one pending back-off late, so that a completion's store and
	// retention step can land between the listing and the rebuild of the
	// retained ids (F042; since its fix a completion waits for the rebuild
	// and finds its generation replaced: ProbeCompleteStaleGeneration).
	SiteRestoreListSlow
	// SiteTriggerSlow: a trigger body, past its generation fence, pauses
	// one pending back-off before it takes coord.lock (its dispatch thread
	// descheduled), so that a restore can switch the generation while it
	// waits (ProbeTriggerStaleAfterLock).
	SiteTriggerSlow
	// SiteExpiryLate: an expiry handed to the coordinator executor starts
	// one pending back-off late (the executor busy), so that the
	// checkpoint can complete or be cleaned first (ProbeExpiryStale).
	SiteExpiryLate
	// SiteStoreSlow: a checkpoint store's reply reaches the coordinator one
	// pending back-off after the write took effect, so that a restore's
	// rebuild of the retained ids can list the checkpoint before its
	// retention step runs (F042, ProbeRetainListed).
	SiteStoreSlow
	siteEnd
)

var siteNames = [...]string{"", "status-slow", "completion-after-clean", "rearm-races-cancel",
	"executor-rejects", "store-fails-after-write", "reset-swap-late", "register-late", "clean-slow",
	"ack-slow", "restore-list-slow", "trigger-slow", "expiry-late", "store-slow"}

func (s Site) String() string {
	if s == 0 || s >= siteEnd {
		return "site?"
	}
	return siteNames[s]
}

// Sites returns every site, in declaration order.
func Sites() []Site {
	out := make([]Site, 0, siteEnd-1)
	for s := Site(1); s < siteEnd; s++ {
		out = append(out, s)
	}
	return out
}

// ParseSite returns the site with the given name.
func ParseSite(name string) (Site, bool) {
	for s := Site(1); s < siteEnd; s++ {
		if siteNames[s] == name {
			return s, true
		}
	}
	return 0, false
}

// Buggifier is implemented by environments that can switch rare paths on
// (sim.World). Buggify reports whether the caller takes the rare path at s
// this time; it is not a scheduling point.
type Buggifier interface {
	Buggify(s Site) bool
}

// Buggify reports whether core should take the rare path at site s. It is
// false unless e is a Buggifier that says yes: always false in wall mode,
// where it costs one type assertion (no allocation, no lock).
func Buggify(e Env, s Site) bool {
	b, ok := e.(Buggifier)
	return ok && b.Buggify(s)
}
