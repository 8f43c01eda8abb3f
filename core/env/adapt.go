package env

import (
	"sync"
	"sync/atomic"
	"time"
)

// adaptWindow is how many recent samples an adaptive length looks at.
const adaptWindow = 128

// adaptive is a length that follows the lateness it is fed: the adaptK-th
// largest of the last adaptWindow samples (about their 98th percentile)
// plus a margin, within [floor, ceil]. PreciseWall sizes its spin phase
// and its timer lead with it: long enough to cover how late the OS wakes
// a sleeping thread, as measured, instead of a fixed 100 µs.
//
// The window starts full of samples that give the initial length, so it
// shrinks toward what it measures over adaptWindow samples, one sample at
// a time; it grows as soon as adaptK samples in the window are above it
// (one outlier does not move it). Reading it is one atomic load.
type adaptive struct {
	floor, ceil, margin time.Duration
	k                   int // the estimate is the k-th largest sample in the window

	mu   sync.Mutex
	win  [adaptWindow]time.Duration
	next int // the slot the next sample overwrites

	est atomic.Int64 // the current length, ns
}

// adaptK: by default the estimate is the adaptK-th largest sample in the
// window (about the 98th percentile).
const adaptK = 3

// newAdaptive returns a length that starts at initial (within [floor, ceil])
// and follows the k-th largest of its last adaptWindow samples (1 <= k <=
// adaptWindow).
func newAdaptive(initial, floor, ceil, margin time.Duration, k int) *adaptive {
	a := &adaptive{floor: floor, ceil: ceil, margin: margin, k: k}
	for i := range a.win {
		a.win[i] = initial - margin
	}
	a.est.Store(int64(a.clamp(initial)))
	return a
}

func (a *adaptive) clamp(d time.Duration) time.Duration { return min(max(d, a.floor), a.ceil) }

// get returns the current length.
func (a *adaptive) get() time.Duration { return time.Duration(a.est.Load()) }

// observe records one measured lateness (negative counts as zero) and
// returns the new length.
func (a *adaptive) observe(late time.Duration) time.Duration {
	late = max(late, 0)
	a.mu.Lock()
	defer a.mu.Unlock()
	a.win[a.next] = late
	a.next = (a.next + 1) % len(a.win)
	var buf [adaptWindow]time.Duration
	top := buf[:a.k] // largest first
	for _, x := range a.win {
		for i := range top {
			if x > top[i] {
				copy(top[i+1:], top[i:len(top)-1])
				top[i] = x
				break
			}
		}
	}
	est := a.clamp(top[a.k-1] + a.margin)
	a.est.Store(int64(est))
	return est
}
