package campaign

import "slices"

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
