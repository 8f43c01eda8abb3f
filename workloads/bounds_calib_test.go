package workloads

import (
	"os"
	"testing"

	"github.com/ckptsim/ckptsim/core/sched"
)

// TestBoundsCalibration (CKPTSIM_CALIBRATE=1) prints each embedded
// scenario's p99 latencies over a few seeds against its derived bounds.
func TestBoundsCalibration(t *testing.T) {
	if os.Getenv("CKPTSIM_CALIBRATE") == "" {
		t.Skip("set CKPTSIM_CALIBRATE=1")
	}
	for _, folder := range []string{"scenarios", "hazards"} {
		ss, err := Embedded(folder)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range ss {
			for seed := range uint64(2) {
				o := Run(s, Options{Seed: seed})
				t.Logf("%-26s seed %d %-8s sched %v/%v complete %v/%v failover %v/%v  %v", s.Name, seed, o.Verdict,
					p99(o.Latency.SchedDelay), s.bounds(sched.Design(s.Scheduler.Design), s.Faults).SchedDelay,
					p99(o.Latency.TriggerToComplete), s.bounds(sched.Design(s.Scheduler.Design), s.Faults).TriggerToComplete,
					p99(o.Latency.FailoverToFirst), s.bounds(sched.Design(s.Scheduler.Design), s.Faults).FailoverToFirst, o.Checks)
			}
		}
	}
}
