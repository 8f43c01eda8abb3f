package cluster_test

import (
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/core/coord"
	"github.com/ckptsim/ckptsim/core/sched"
	"github.com/ckptsim/ckptsim/core/variant"
	"github.com/ckptsim/ckptsim/linearizability"
	"github.com/ckptsim/ckptsim/model"
	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/workloads"
	"github.com/ckptsim/ckptsim/workloads/cluster"
	"github.com/ckptsim/ckptsim/workloads/oracle"
)

type pipeRun struct {
	res  sim.Result
	c    *cluster.Cluster
	hist *linearizability.Recorder
	find *oracle.Findings // the lease and pipeline checks'
}

// pipelines runs 4 pipelines of 4 partitions for 2 minutes with sink
// failures, a failover and rebalances, recording the watermark history.
func pipelines(t *testing.T, seed uint64, wl cluster.Workload) pipeRun {
	t.Helper()
	w := sim.New(sim.Config{Seed: seed, MaxTime: time.Hour, LockOrder: true})
	out := pipeRun{hist: linearizability.NewRecorder(linearizability.Logical), find: &oracle.Findings{}}
	wl.AckLatency = cluster.Dist{Kind: "uniform", Min: 10 * time.Millisecond, Max: time.Second}
	wl.RestartDelay = cluster.Dist{Min: time.Second}
	out.res = w.Run(func() {
		var err error
		out.c, err = cluster.New(w, cluster.Config{
			Jobs: 1, Pipelines: 4, Tasks: 2,
			Coord:    coord.Config{Interval: 5 * time.Second, Timeout: 5 * time.Second, MaxRetained: 3},
			Sched:    sched.Config{Cores: 2},
			Workload: wl,
			Faults:   cluster.FaultRates{AckDrop: 0.02, NotifyFail: 0.02},
		})
		if err != nil {
			panic(err)
		}
		oracle.NewLease(out.find, w.Elapsed).Attach(out.c)
		oracle.NewBroker(out.find, w.Elapsed).Attach(out.c)
		out.c.Pipelines.OnOp = func(o cluster.WatermarkOp) func() {
			op, err := out.hist.Invoke(o.Actor, int64(w.Elapsed()), workloads.WatermarkModelOp(o, 4))
			if err != nil {
				return func() {}
			}
			return func() { _ = out.hist.Return(op, int64(w.Elapsed()), nil) }
		}
		out.c.Start()
		r := w.Rand(sim.StreamFaults)
		for range 6 {
			w.Sleep(15 * time.Second)
			out.c.Rebalance(r, 2*time.Second)
		}
		if err := out.c.Managers[0].Restore(); err != nil {
			t.Logf("failover: %v", err)
		}
		w.Sleep(10 * time.Second)
		out.c.Heal()
		w.Sleep(30 * time.Second)
	})
	return out
}

var pipeWorkload = cluster.Workload{Partitions: 4, BatchRate: 20, SinkFailure: 0.005}

func TestPipelinesCommitAndPassTheModel(t *testing.T) {
	var total cluster.PipelineStats
	defer func() {
		if !t.Failed() && (total.Revokes == 0 || total.Extends == 0 || total.Quarantined == 0 || total.Restarts == 0) {
			t.Errorf("some paths never ran: %+v", total)
		}
	}()
	for seed := range uint64(4) {
		r := pipelines(t, seed, pipeWorkload)
		if r.res.Outcome != sim.OutcomeDone {
			t.Fatalf("seed %d: %v %s", seed, r.res.Outcome, r.res.Reason)
		}
		if fs := r.find.List(); len(fs) > 0 {
			t.Fatalf("seed %d: %v", seed, fs)
		}
		if cyc := r.res; len(r.c.W.Harness().LockGraph().Cycles()) > 0 {
			t.Fatalf("seed %d: lock-order cycles %v (%v)", seed, r.c.W.Harness().LockGraph().Cycles(), cyc.Outcome)
		}
		st := r.c.Pipelines.Stats
		total.Revokes += st.Revokes
		total.Extends += st.Extends
		total.Quarantined += st.Quarantined
		total.Restarts += st.Restarts
		if st.Commits < 100 || st.Epochs < 16 || st.Failed == 0 || st.Batches < 10000 {
			t.Fatalf("seed %d: too little happened: %+v", seed, st)
		}
		r.hist.CutOpen()
		if err := r.hist.Err(); err != nil {
			t.Fatalf("seed %d: malformed history: %v", seed, err)
		}
		v := linearizability.Check(model.Watermark, r.hist.Operations(), 20*time.Second)
		if !v.Pass() {
			t.Fatalf("seed %d: %s", seed, v)
		}
		t.Logf("seed %d: %d ops, %d steps, %+v, %+v", seed, len(r.hist.Operations()), r.res.Steps, st, r.c.Pipelines.CheckpointerStats())
	}
}

func TestPipelinesPlantedCommitBugIsIllegal(t *testing.T) {
	wl := pipeWorkload
	wl.PlantCommitPastWatermark = true
	r := pipelines(t, 1, wl)
	r.hist.CutOpen()
	v := linearizability.Check(model.Watermark, r.hist.Operations(), 20*time.Second)
	if v.Result != linearizability.Illegal {
		t.Fatalf("planted bug not caught: %s", v)
	}
	t.Logf("caught: %s", v)
}

func TestPipelinesDeterministic(t *testing.T) {
	a, b := pipelines(t, 7, pipeWorkload), pipelines(t, 7, pipeWorkload)
	if a.res.TraceHash != b.res.TraceHash || a.c.Pipelines.Stats != b.c.Pipelines.Stats {
		t.Fatalf("same seed, different runs: %x %+v vs %x %+v", a.res.TraceHash, a.c.Pipelines.Stats, b.res.TraceHash, b.c.Pipelines.Stats)
	}
}

func TestNoPartitionsNoPipelines(t *testing.T) {
	r, c := smoke(3, variant.Set{}, cluster.FaultRates{})
	if r.Outcome != sim.OutcomeDone || c.Pipelines != nil {
		t.Fatalf("%v %v", r.Outcome, c.Pipelines)
	}
	c.Rebalance(c.W.Rand(sim.StreamFaults), 0) // a no-op without pipelines
}

// TestPipelinesThreadCount runs 100 pipelines of 4 partitions for 10 s:
// three threads a pipeline, however many partitions.
func TestPipelinesThreadCount(t *testing.T) {
	w := sim.New(sim.Config{Seed: 1, MaxTime: time.Hour})
	var counts [3]int
	r := w.Run(func() {
		c, err := cluster.New(w, cluster.Config{
			Jobs: 4, Pipelines: 25, Tasks: 2,
			Coord:    coord.Config{Interval: 5 * time.Second, Timeout: 5 * time.Second, MaxRetained: 3},
			Sched:    sched.Config{Cores: 2},
			Workload: cluster.Workload{AckLatency: cluster.Dist{Min: 10 * time.Millisecond}, Partitions: 4, BatchRate: 20},
		})
		if err != nil {
			panic(err)
		}
		c.Start()
		w.Sleep(10 * time.Second)
		for i, prefix := range []string{"source-", "sink-", "pipeline-runtime-"} {
			counts[i] = w.Harness().LiveThreads(prefix)
		}
		if c.Pipelines.Stats.Commits == 0 {
			panic("no commits")
		}
	})
	if r.Outcome != sim.OutcomeDone || counts != [3]int{100, 100, 100} {
		t.Fatalf("%v %s: live sources, sinks, runtimes %v", r.Outcome, r.Reason, counts)
	}
	t.Logf("%d threads ever started, %d steps", r.Threads, r.Steps)
}

// TestPlantedCommitBugTripsTheBroker: with a slow source every batch is
// resolved by the time a checkpoint completes, so committing one past the
// watermark commits an offset never read, which the broker reports.
func TestPlantedCommitBugTripsTheBroker(t *testing.T) {
	r := pipelines(t, 2, cluster.Workload{Partitions: 1, BatchRate: 0.5, PlantCommitPastWatermark: true})
	for _, f := range r.find.List() {
		if f.Check == oracle.WatermarkUnread {
			t.Logf("reported: %s", f)
			return
		}
	}
	t.Fatalf("no watermark-unread finding among %v", r.find.List())
}
