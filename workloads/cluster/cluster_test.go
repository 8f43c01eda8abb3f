package cluster_test

import (
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/core/coord"
	"github.com/ckptsim/ckptsim/core/sched"
	"github.com/ckptsim/ckptsim/core/variant"
	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/workloads/cluster"
	"github.com/ckptsim/ckptsim/workloads/oracle"
)

// smokeFindings are the lease checks' findings of the last smoke run.
var smokeFindings []oracle.Finding

func smoke(seed uint64, v variant.Set, faults cluster.FaultRates) (sim.Result, *cluster.Cluster) {
	w := sim.New(sim.Config{Seed: seed, MaxTime: time.Hour})
	var c *cluster.Cluster
	var fs oracle.Findings
	defer func() { smokeFindings = fs.List() }()
	r := w.Run(func() {
		var err error
		c, err = cluster.New(w, cluster.Config{
			Jobs: 1, Pipelines: 10, Tasks: 2,
			Coord: coord.Config{Interval: 10 * time.Second, Timeout: 5 * time.Second, MaxRetained: 3, Variants: v},
			Sched: sched.Config{Cores: 2},
			Workload: cluster.Workload{
				AckLatency:      cluster.Dist{Kind: "uniform", Min: 10 * time.Millisecond, Max: 2 * time.Second},
				DispatchLatency: cluster.Dist{Kind: "uniform", Max: time.Millisecond},
				RestartDelay:    cluster.Dist{Min: time.Second},
			},
			Faults: faults,
		})
		if err != nil {
			panic(err)
		}
		oracle.NewLease(&fs, w.Elapsed).Attach(c)
		c.Start()
		w.Sleep(10 * time.Minute)
	})
	return r, c
}

func TestSmokeCheckpointsComplete(t *testing.T) {
	for seed := range uint64(20) {
		r, c := smoke(seed, variant.Set{}, cluster.FaultRates{})
		if r.Outcome != sim.OutcomeDone {
			t.Fatalf("seed %d: %v %s", seed, r.Outcome, r.Reason)
		}
		if len(smokeFindings) > 0 {
			t.Fatalf("seed %d: %v", seed, smokeFindings)
		}
		for p := range 10 {
			_, n, _ := c.Recorder.LastCompleted(0, p)
			if n < 50 {
				t.Fatalf("seed %d pipeline %d completed only %d checkpoints in 10 min at 10 s", seed, p, n)
			}
			if got := c.Storage.Count(0, p); got < 3 || got > 5 {
				t.Fatalf("seed %d pipeline %d retains %d checkpoints, want 3..5", seed, p, got)
			}
		}
	}
}

func TestSmokeWithFaultsStaysSafe(t *testing.T) {
	faults := cluster.FaultRates{AckDrop: 0.05, StorageFail: 0.02, StatusRetryable: 0.1, BarrierFail: 0.01, NotifyFail: 0.01, IDFail: 0.01}
	for seed := range uint64(20) {
		r, c := smoke(seed, variant.Set{}, faults)
		if r.Outcome != sim.OutcomeDone {
			t.Fatalf("seed %d: %v %s", seed, r.Outcome, r.Reason)
		}
		if len(smokeFindings) > 0 {
			t.Fatalf("seed %d: %v", seed, smokeFindings)
		}
		if c.Recorder.Counts[coord.EvGenFailed] == 0 || c.Recorder.Counts[coord.EvRestored] == 0 {
			t.Fatalf("seed %d: faults caused no failure/restore: %v", seed, c.Recorder.Counts)
		}
	}
}
