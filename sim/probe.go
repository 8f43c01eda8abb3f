package sim

import "github.com/ckptsim/ckptsim/core/env"

// Probe is env.Prober: it counts a hit of probe p. Not a scheduling
// point; it draws no randomness and writes nothing to the trace, so a
// probe never changes a run (its trace hash included).
func (w *World) Probe(p env.Probe) {
	if int(p) >= len(w.probes) {
		n := make([]int, len(env.Probes())+1)
		copy(n, w.probes)
		w.probes = n
	}
	if int(p) < len(w.probes) {
		w.probes[p]++
	}
}

// ProbeHits returns each probe's hits in the run so far, by name; probes
// never hit are left out.
func (w *Harness) ProbeHits() map[string]int {
	out := map[string]int{}
	for p, n := range w.probes {
		if n > 0 {
			out[env.Probe(p).String()] = n
		}
	}
	return out
}

var _ env.Prober = (*World)(nil)
