package sim

import (
	"math/rand/v2"

	"github.com/ckptsim/ckptsim/core/env"
)

// BuggifyConfig switches core's rare paths (env.Site) on in a run.
type BuggifyConfig struct {
	// On is the probability that each site is on in this run (swarm: each
	// seed switches a random subset on). Default 0.5; 1 switches all on.
	On float64
	// Fire is the probability that an on site fires at each call.
	// Default 0.1.
	Fire float64
	// Sites overrides Fire per site; 0 keeps that site off.
	Sites map[env.Site]float64
}

// SiteReport is what one site did in a run.
type SiteReport struct {
	Site      env.Site
	On        bool
	Fire      float64 // firing probability when on
	Evaluated int     // calls while on
	Fired     int
}

type buggify struct {
	r      *rand.Rand   // the first sharedSites sites' on-draws and firings
	late   []*rand.Rand // each later site's own stream, indexed by site (nil below)
	sites  []SiteReport // indexed by site
	paused bool
	onFire func(s env.Site, thread int32)
}

func newBuggify(seed uint64, cfg *BuggifyConfig) *buggify {
	on, fire := cfg.On, cfg.Fire
	if on == 0 {
		on = 0.5
	}
	if fire == 0 {
		fire = 0.1
	}
	b := &buggify{r: NewRand(seed, StreamBuggify)}
	b.sites = make([]SiteReport, len(env.Sites())+1)
	b.late = make([]*rand.Rand, len(env.Sites())+1)
	for _, s := range env.Sites() {
		p := fire
		if v, ok := cfg.Sites[s]; ok {
			p = v
		}
		// Draw for every site, whatever its probability, so that one
		// site's override does not change which others are on.
		if int(s) > sharedSites {
			b.late[s] = NewRand(splitmix64(seed^uint64(s)), StreamBuggifyLate)
		}
		draw := b.stream(s).Float64()
		b.sites[s] = SiteReport{Site: s, On: p > 0 && draw < on, Fire: p}
	}
	return b
}

// sharedSites is how many sites draw from StreamBuggify, in site order:
// the sites core had when that stream was the only one. Every later site
// draws from its own stream (StreamBuggifyLate and the site), so adding a
// site leaves the on-draws and firings of every other site as they were.
const sharedSites = 5

// stream is site s's random stream: the shared one for the first
// sharedSites sites, else the site's own (made by newBuggify).
func (b *buggify) stream(s env.Site) *rand.Rand {
	if int(s) <= sharedSites {
		return b.r
	}
	return b.late[s]
}

// Buggify is env.Buggifier: it reports whether the calling core code takes
// the rare path at site s now. Off when the run has no BuggifyConfig or
// after PauseBuggify; otherwise an on site fires with its probability, and
// each firing is noted in the trace (and its hash). Not a scheduling point.
func (w *World) Buggify(s env.Site) bool {
	b := w.bug
	if b == nil || b.paused || int(s) >= len(b.sites) {
		return false
	}
	st := &b.sites[s]
	if !st.On {
		return false
	}
	st.Evaluated++
	if b.stream(s).Float64() >= st.Fire {
		return false
	}
	st.Fired++
	w.Note("buggify: %s", s)
	if b.onFire != nil {
		b.onFire(s, w.ThreadID())
	}
	return true
}

// OnBuggify subscribes fn to every site firing, with the simulated thread
// that took the rare path (the harness's own record of what it injected).
// Without a BuggifyConfig nothing fires and fn is never called.
func (w *Harness) OnBuggify(fn func(s env.Site, thread int32)) {
	if w.bug != nil {
		w.bug.onFire = fn
	}
}

// PauseBuggify switches every site off for the rest of the run (the
// liveness phase, where faults stop).
func (w *Harness) PauseBuggify() {
	if w.bug != nil {
		w.bug.paused = true
	}
}

// BuggifyReport returns what each site did, in site order (nil when the
// run has no BuggifyConfig).
func (w *Harness) BuggifyReport() []SiteReport {
	if w.bug == nil {
		return nil
	}
	return append([]SiteReport(nil), w.bug.sites[1:]...)
}

var _ env.Buggifier = (*World)(nil)
