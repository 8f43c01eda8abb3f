package sim

import "math/rand/v2"

// Stream names an independent random stream derived from the run's seed.
// Drawing from one stream never changes the numbers another produces, so
// changing the scheduling strategy does not change the workload.
type Stream uint64

// The streams of a World.
const (
	StreamSched Stream = iota + 1
	StreamFaults
	StreamWorkload
	StreamStrategy
	// StreamBuggify draws which BUGGIFY sites are on in a run and when an
	// on site fires, so switching sites on never reshuffles the other
	// streams (the schedule still changes once a site fires).
	StreamBuggify
)

// splitmix64 is the seed-derivation function of TigerBeetle's VOPR and
// java.util.SplittableRandom.
func splitmix64(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9
	x = (x ^ (x >> 27)) * 0x94D049BB133111EB
	return x ^ (x >> 31)
}

// NewRand returns the generator for stream s of seed.
func NewRand(seed uint64, s Stream) *rand.Rand {
	a := splitmix64(seed ^ splitmix64(uint64(s)))
	return rand.New(rand.NewPCG(a, splitmix64(a)))
}
