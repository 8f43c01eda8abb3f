package main

import (
	"time"

	"github.com/ckptsim/ckptsim/workloads"
	"github.com/ckptsim/ckptsim/workloads/campaign"
)

// distStats is a distribution's summary as written to summary.json.
type distStats struct {
	Count int64 `json:"count"`
	P50   int64 `json:"p50_ns"`
	P90   int64 `json:"p90_ns"`
	P99   int64 `json:"p99_ns"`
	Max   int64 `json:"max_ns"`
	Exact bool  `json:"exact"` // false when the percentiles are histogram midpoints (within 0.4%)
}

func histStats(h *campaign.Hist) distStats {
	return distStats{Count: h.Count(), P50: int64(h.Quantile(0.50)), P90: int64(h.Quantile(0.90)),
		P99: int64(h.Quantile(0.99)), Max: int64(h.Max()), Exact: h.Exact()}
}

// latencyNames are the metrics in report order, with their JSON names.
var latencyNames = []struct{ key, label string }{
	{"trigger_to_complete", "trigger to complete"},
	{"sched_delay", "sched delay (due to body start)"},
	{"expiry_to_trigger", "expiry to next trigger"},
	{"failover_to_first", "failover to first completed"},
}

// latencies are a seed's, a scenario's or a campaign's four virtual-time
// distributions, keyed by latencyNames' keys.
type latencies map[string]*campaign.Hist

// seedLatencies makes the histograms of one seed's samples.
func seedLatencies(l workloads.Latencies) latencies {
	out := latencies{}
	for i, xs := range [][]time.Duration{l.TriggerToComplete, l.SchedDelay, l.ExpiryToTrigger, l.FailoverToFirst} {
		h := &campaign.Hist{}
		h.AddAll(xs)
		out[latencyNames[i].key] = h
	}
	return out
}

// merge adds o's samples.
func (l latencies) merge(o latencies) {
	for _, n := range latencyNames {
		if l[n.key] == nil {
			l[n.key] = &campaign.Hist{}
		}
		l[n.key].Merge(o[n.key])
	}
}

func (l latencies) stats() map[string]distStats {
	out := map[string]distStats{}
	for _, n := range latencyNames {
		h := l[n.key]
		if h == nil {
			h = &campaign.Hist{}
		}
		out[n.key] = histStats(h)
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
