package workloads

import (
	"github.com/ckptsim/ckptsim/core/env"
	"github.com/ckptsim/ckptsim/sim"
)

// buggifyConfig is the world's BUGGIFY configuration for a run: the
// scenario's, switched on or off by override ("on", "off", "": as is).
func (s *Scenario) buggifyConfig(override string) *sim.BuggifyConfig {
	b := s.Buggify
	switch {
	case override == "off":
		return nil
	case override == "on" && b == nil:
		return &sim.BuggifyConfig{}
	case b == nil || (!b.Enabled && override != "on"):
		return nil
	}
	cfg := &sim.BuggifyConfig{On: b.SiteOn, Fire: b.Fire}
	if len(b.Sites) > 0 {
		cfg.Sites = map[env.Site]float64{}
		for name, p := range b.Sites {
			if st, ok := env.ParseSite(name); ok {
				cfg.Sites[st] = p
			}
		}
	}
	return cfg
}

// siteOutcomes converts the world's report (nil: BUGGIFY off).
func siteOutcomes(rep []sim.SiteReport) []SiteOutcome {
	if rep == nil {
		return nil
	}
	out := make([]SiteOutcome, 0, len(rep))
	for _, r := range rep {
		out = append(out, SiteOutcome{Site: r.Site.String(), On: r.On, Evaluated: r.Evaluated, Fired: r.Fired})
	}
	return out
}

// SiteNames returns every BUGGIFY site's name, in site order.
func SiteNames() []string {
	var out []string
	for _, st := range env.Sites() {
		out = append(out, st.String())
	}
	return out
}
