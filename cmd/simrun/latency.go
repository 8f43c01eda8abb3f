package main

import (
	"math/rand/v2"
	"slices"
	"time"
)

// maxSamples bounds the samples a distribution keeps; beyond it a
// reservoir (seeded, fed in job order, so deterministic) stands in.
const maxSamples = 1 << 20

// dist is a virtual-time latency distribution.
type dist struct {
	samples []time.Duration
	count   int64
	max     time.Duration
	rng     *rand.Rand
}

func (d *dist) add(xs []time.Duration) {
	for _, x := range xs {
		d.count++
		d.max = max(d.max, x)
		if len(d.samples) < maxSamples {
			d.samples = append(d.samples, x)
			continue
		}
		if d.rng == nil {
			d.rng = rand.New(rand.NewPCG(1, 2))
		}
		if j := d.rng.Int64N(d.count); j < maxSamples {
			d.samples[j] = x
		}
	}
}

// distStats is a distribution's summary as written to summary.json.
type distStats struct {
	Count int64 `json:"count"`
	P50   int64 `json:"p50_ns"`
	P90   int64 `json:"p90_ns"`
	P99   int64 `json:"p99_ns"`
	Max   int64 `json:"max_ns"`
	Exact bool  `json:"exact"` // false when the percentiles come from a sample
}

func (d *dist) stats() distStats {
	s := slices.Clone(d.samples)
	slices.Sort(s)
	return distStats{Count: d.count, P50: int64(quantile(s, 0.50)), P90: int64(quantile(s, 0.90)),
		P99: int64(quantile(s, 0.99)), Max: int64(d.max), Exact: d.count == int64(len(d.samples))}
}

// quantile is the nearest-rank quantile of sorted samples (0 when none).
func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.999999) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// latencies are the four distributions of a campaign or a scenario.
type latencies struct {
	triggerToComplete, schedDelay, expiryToTrigger, failoverToFirst dist
}

// latencyNames are the metrics in report order, with their JSON names.
var latencyNames = []struct{ key, label string }{
	{"trigger_to_complete", "trigger to complete"},
	{"sched_delay", "sched delay (due to body start)"},
	{"expiry_to_trigger", "expiry to next trigger"},
	{"failover_to_first", "failover to first completed"},
}

func (l *latencies) dists() []*dist {
	return []*dist{&l.triggerToComplete, &l.schedDelay, &l.expiryToTrigger, &l.failoverToFirst}
}

func (l *latencies) stats() map[string]distStats {
	out := map[string]distStats{}
	for i, d := range l.dists() {
		out[latencyNames[i].key] = d.stats()
	}
	return out
}

// fmtDur prints a duration with about four significant digits.
func fmtDur(d time.Duration) string {
	switch {
	case d == 0:
		return "0"
	case d >= time.Second:
		return d.Round(time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(time.Microsecond).String()
	}
	return d.String()
}
