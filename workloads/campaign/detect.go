package campaign

import (
	"slices"

	"github.com/ckptsim/ckptsim/workloads"
)

// SeedsToDetection measures how soon a search finds a bug: it runs
// campaigns independent campaigns on parallel workers; campaign c tries
// seeds base(c), base(c)+1, ... base(c)+limit-1 in order and stops at the
// first seed detect reports true for. It returns, per campaign, the
// number of seeds it ran up to and including the detecting one (1 is the
// first seed), or 0 when none of limit did. detect runs on the workers,
// several at once: what it records needs its own lock.
func SeedsToDetection(campaigns, limit, parallel int, base func(c int) uint64, detect func(c int, seed uint64) bool) []int {
	return Map(campaigns, parallel, func(c int) int {
		for i := range limit {
			if detect(c, base(c)+uint64(i)) {
				return i + 1
			}
		}
		return 0
	})
}

// DetectionStats are the median and worst seeds to detection over the
// campaigns that found the bug (SeedsToDetection's non-zero entries), and
// how many did; all 0 when none did.
func DetectionStats(found []int) (median, worst, hits int) {
	xs := slices.DeleteFunc(slices.Clone(found), func(f int) bool { return f <= 0 })
	if len(xs) == 0 {
		return 0, 0, 0
	}
	slices.Sort(xs)
	return xs[len(xs)/2], xs[len(xs)-1], len(xs)
}

// Found reports whether one seed's outcome is a detection of a bug that
// one of the checks want names, and which of them fired (the first, in
// want's order). The evidence is the verdict's check ids (Outcome.Checks,
// the `checks` of simrun's --json line), never the violation text: a
// message that merely mentions a check id is not a detection.
//
// Only a safety or liveness verdict can be a detection, since those are
// the verdicts a fired check gives. A crash (a panic, a divergence, a
// harness error), an unknown (a model checker gave up: its text names the
// model's check id, but nothing was found), a budget or a pass is never
// one, whatever its text says. No check id names a crash: a bug whose only
// symptom is a crash cannot be named by a mutant or a hazard, and is
// counted as not found.
func Found(o workloads.Outcome, want ...string) (string, bool) {
	if o.Verdict != workloads.Safety && o.Verdict != workloads.Liveness {
		return "", false
	}
	for _, id := range want {
		if slices.Contains(o.Checks, id) {
			return id, true
		}
	}
	return "", false
}
