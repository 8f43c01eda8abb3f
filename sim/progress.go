package sim

import (
	"sync/atomic"
	"time"
)

// progressEvery is how many steps pass between two stores into
// Config.Progress (a power of two).
const progressEvery = 1 << 12

// Progress is how far a run has come, readable from any goroutine while it
// runs: its steps and its virtual time. The world stores them every 4 096
// steps and when the run ends; it never reads them back, so a Progress
// changes nothing in the run (its decisions, virtual time and trace hash
// are those of a run without one). The two values are stored one after the
// other: a reader between the stores sees the steps of one store with the
// time of the previous.
type Progress struct {
	steps atomic.Int64
	now   atomic.Int64
}

// Steps returns the scheduling decisions made by the last store.
func (p *Progress) Steps() int64 { return p.steps.Load() }

// Elapsed returns the virtual time since Epoch at the last store.
func (p *Progress) Elapsed() time.Duration { return time.Duration(p.now.Load()) }

// publish stores the world's steps and time into Config.Progress.
func (w *World) publish() {
	w.cfg.Progress.now.Store(w.now)
	w.cfg.Progress.steps.Store(w.steps)
}
