package env

import (
	"sync/atomic"
	"time"
)

// DefaultSpinBudget is PreciseWall's SpinBudget when zero: 2% of one core.
const DefaultSpinBudget = 0.02

// spinBurst is how far ahead of its rate the spin budget may run: the
// spin of about one second at the rate, so that a burst of firings (a
// member's start, a failover re-arming every pipeline) stays precise.
const spinBurst = time.Second

// spinBudget caps the CPU the process's precise waits spin away, as a
// generic cell rate algorithm over spin time: each spin of d at a rate r
// (a share of one core) moves tat, the time at which the spin charged so
// far is paid off, d/r further; a wait may spin while tat is at most
// spinBurst ahead of now. Reading it is one atomic load; charging, one
// compare-and-swap.
type spinBudget struct {
	tat atomic.Int64 // ns since budgetEpoch
}

// budgetEpoch anchors the budget's clock (monotonic: time.Since).
var budgetEpoch = time.Now()

func budgetNow() int64 { return int64(time.Since(budgetEpoch)) }

// allow reports whether a wait starting at now may spin.
func (b *spinBudget) allow(now int64) bool {
	return b.tat.Load()-now <= int64(spinBurst)
}

// charge records d of spinning that ended at now, at rate r (> 0).
func (b *spinBudget) charge(now int64, d time.Duration, r float64) {
	if d <= 0 {
		return
	}
	cost := int64(float64(d) / r)
	for {
		old := b.tat.Load()
		if b.tat.CompareAndSwap(old, max(old, now)+cost) {
			return
		}
	}
}

// The process's spin budget and what its precise waits did (SpinStats).
var (
	budget     spinBudget
	spunNs     atomic.Int64 // time spent spinning to a deadline
	spinWaits  atomic.Int64 // waits that spun (or could have: they had a spin phase)
	overBudget atomic.Int64 // waits that slept to their deadline instead: the budget was spent
)

// SpinStats are counters of the process's PreciseWall waits since it
// started: what a wait's precision cost in CPU, and how often the spin
// budget (PreciseWall.SpinBudget) made one sleep to its deadline instead.
type SpinStats struct {
	Spun       time.Duration // spent spinning to deadlines (the spin phase and a timer's lead)
	Waits      int64         // timed waits and sleeps that were allowed to spin
	OverBudget int64         // timed waits and sleeps that were not: they ended as late as the OS woke them
}

// ReadSpinStats returns the process's SpinStats.
func ReadSpinStats() SpinStats {
	return SpinStats{Spun: time.Duration(spunNs.Load()), Waits: spinWaits.Load(), OverBudget: overBudget.Load()}
}
