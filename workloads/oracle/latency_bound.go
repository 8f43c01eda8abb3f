package oracle

import (
	"fmt"
	"slices"
	"time"
)

// latency-bound: each p99 latency of a run within the bound its scenario's
// configuration implies, and the worst scheduling delay within the
// scenario's max_delay. The samples are what the harness measured at the
// boundaries (the lease decorator's due-to-start delays and due times,
// oracle.Latency's trigger-to-store and restore-to-store spans); the bounds
// are derived from the configuration by the harness (workloads.Bounds), the
// step-down windows from the faults it injected.

// The latency-bound rule (workloads/REFERENCE.md, "Latency bounds"): each
// bound is BoundSlack times what the scenario's configuration implies, plus
// BoundFloor, and applies to the run's 99th percentile.
const (
	BoundSlack = 3
	BoundFloor = 250 * time.Millisecond
)

// P99Bounds are the p99 latency bounds of one run (workloads.Bounds says
// how each is derived).
type P99Bounds struct {
	SchedDelay        time.Duration // due to body start, every lease body
	SchedWave         time.Duration // taken off each body due inside a step-down window (or SchedWave after it)
	SchedStall        time.Duration // added to the scheduling-delay bound (a FAILED status write bodies queue behind)
	TriggerToComplete time.Duration // checkpoint triggered to completed
	FailoverToFirst   time.Duration // restore to the pipeline's first completed checkpoint
}

// LatencySamples are the latencies of one run.
type LatencySamples struct {
	SchedDelay        []time.Duration // due to body start, every lease body
	Dues              []time.Duration // the due time of each SchedDelay sample's body
	TriggerToComplete []time.Duration
	FailoverToFirst   []time.Duration
}

// LatencyBounds reports latency-bound for each p99 of lat above its bound
// in b; windows are the step-down windows the harness injected.
func LatencyBounds(f *Findings, at time.Duration, b P99Bounds, lat LatencySamples, windows []Window) {
	for _, v := range LatencyViolations(b, lat, windows) {
		f.Add(LatencyBound, at, "latency", "%s", v)
	}
}

// MaxDelay reports latency-bound when the worst scheduling delay exceeds
// bound (the scenario's checks.max_delay; 0: none).
func MaxDelay(f *Findings, at time.Duration, delays []time.Duration, bound time.Duration) {
	if bound <= 0 {
		return
	}
	var worst time.Duration
	for _, d := range delays {
		worst = max(worst, d)
	}
	if worst > bound {
		f.Add(LatencyBound, at, "scheduler", "scheduling delay reached %v, bound %v", worst, bound)
	}
}

// LatencyViolations judges lat against b: one message per p99 above its
// bound.
func LatencyViolations(b P99Bounds, lat LatencySamples, windows []Window) []string {
	var vs []string
	sd, waved := waveAllowance(lat.SchedDelay, lat.Dues, windows, b.SchedWave)
	for _, c := range []struct {
		name  string
		got   []time.Duration
		bound time.Duration
		stall time.Duration
		note  string
	}{
		{"scheduling delay", sd, b.SchedDelay, b.SchedStall, waveNote(waved, b.SchedWave)},
		{"trigger to complete", lat.TriggerToComplete, b.TriggerToComplete, 0, ""},
		{"failover to first completed", lat.FailoverToFirst, b.FailoverToFirst, 0, ""},
	} {
		if p := P99(c.got); p > c.bound {
			stall := ""
			if c.stall > 0 {
				stall = fmt.Sprintf(" + %v, one FAILED status write on a dispatch thread the bodies queue for", c.stall)
			}
			vs = append(vs, fmt.Sprintf("p99 %s %v over %d samples%s, bound %v (%dx the configuration's %v + %v%s)",
				c.name, p, len(c.got), c.note, c.bound, BoundSlack, (c.bound-BoundFloor-c.stall)/BoundSlack, BoundFloor, stall))
		}
	}
	return vs
}

// waveAllowance returns delays with wave taken off (down to 0) each delay
// whose body was due inside a step-down window or within wave after its
// end, and how many were; delays itself when wave is 0.
func waveAllowance(delays, dues []time.Duration, windows []Window, wave time.Duration) ([]time.Duration, int) {
	if wave <= 0 || len(windows) == 0 {
		return delays, 0
	}
	out, n := slices.Clone(delays), 0
	for i, due := range dues[:min(len(dues), len(out))] {
		for _, w := range windows {
			if due >= w.From && (w.To < 0 || due <= w.To+wave) {
				out[i], n = max(out[i]-wave, 0), n+1
				break
			}
		}
	}
	return out, n
}

func waveNote(n int, wave time.Duration) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d due in a step-down window, each judged less one status backoff, %v)", n, wave)
}

// P99 is the 99th percentile (nearest rank) of ds; 0 when empty.
func P99(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (len(s)*99+99)/100 - 1
	return s[min(max(i, 0), len(s)-1)]
}
