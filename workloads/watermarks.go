package workloads

import (
	"fmt"
	"slices"

	"github.com/ckptsim/ckptsim/linearizability"
	"github.com/ckptsim/ckptsim/model"
	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/workloads/cluster"
)

// watermarks records the offset checkpointers' history per (pipeline,
// partition) for model.Watermark: BeginEpoch and Revoke around the
// runtime's calls, Resolve around each sink's Done or Fail, CommitOffset
// from TakeWatermarks returning to the broker's commit, Quarantine around
// the DeadLetter callback. Pipelines are numbered by
// cluster.PipelineID.Seq, as in the other histories.
//
// A commit is invoked just after TakeWatermarks returns, not before the
// call: the watermarks are computed without a scheduling point, so the only
// resolutions this places before the commit although they did not count
// are those returning during TakeWatermarks' last lock, which can only
// make the model more permissive, never report a false violation.
type watermarks struct {
	w         *sim.World
	pipelines int
	rec       *linearizability.Recorder
	used      bool
	assigned  map[partitionID]bool  // assigned now
	committed map[partitionID]int64 // virtual ns of the last commit
}

// partitionID is one partition of one pipeline, the pipeline numbered by
// PipelineID.Seq.
type partitionID struct{ pipeline, partition int }

func newWatermarks(w *sim.World, pipelines int) *watermarks {
	return &watermarks{w: w, pipelines: pipelines, rec: linearizability.NewRecorder(linearizability.Logical),
		assigned: map[partitionID]bool{}, committed: map[partitionID]int64{}}
}

// track keeps what the liveness check needs: which partitions are
// assigned and when each last committed.
func (h *watermarks) track(o cluster.WatermarkOp) {
	k := partitionID{cluster.PipelineID{Job: o.Job, Pipeline: o.Pipeline}.Seq(h.pipelines), int(o.Partition)}
	switch o.Kind {
	case cluster.WMBeginEpoch:
		h.assigned[k] = true
	case cluster.WMRevoke:
		delete(h.assigned, k)
	case cluster.WMCommit:
		h.committed[k] = h.now()
	}
}

// stuck returns the partitions assigned at the end of the run that
// committed nothing after heal: a watermark that stopped moving although
// faults are off.
func (h *watermarks) stuck(healAt int64) []string {
	if h == nil || !h.used {
		return nil
	}
	var out []string
	for k := range h.assigned {
		if h.committed[k] < healAt {
			out = append(out, fmt.Sprintf("pipeline %d partition %d", k.pipeline, k.partition))
		}
	}
	slices.Sort(out)
	return out
}

func (h *watermarks) attach(c *cluster.Cluster) {
	if c.Pipelines != nil {
		h.used = true
		c.Pipelines.OnOp = h.op
	}
}

func (h *watermarks) now() int64 { return int64(h.w.Elapsed()) }

func (h *watermarks) op(o cluster.WatermarkOp) func() {
	h.track(o)
	op, err := h.rec.Invoke(o.Actor, h.now(), h.input(o))
	if err != nil {
		return func() {}
	}
	return func() { _ = h.rec.Return(op, h.now(), nil) }
}

func (h *watermarks) input(o cluster.WatermarkOp) any { return WatermarkModelOp(o, h.pipelines) }

// WatermarkModelOp is the model.Watermark input of a recorded operation;
// pipelines (per job) numbers them by cluster.PipelineID.Seq as the other
// histories do.
func WatermarkModelOp(o cluster.WatermarkOp, pipelines int) any {
	p, q, e := cluster.PipelineID{Job: o.Job, Pipeline: o.Pipeline}.Seq(pipelines), int(o.Partition), int64(o.Epoch)
	switch o.Kind {
	case cluster.WMBeginEpoch:
		return model.BeginEpoch{Pipeline: p, Partition: q, Epoch: e}
	case cluster.WMRevoke:
		return model.Revoke{Pipeline: p, Partition: q}
	case cluster.WMResolve:
		return model.Resolve{Pipeline: p, Partition: q, Epoch: e, Seq: int64(o.Seq), Last: o.Last, OK: o.OK}
	case cluster.WMCommit:
		return model.CommitOffset{Pipeline: p, Partition: q, Epoch: e, Offset: o.Offset}
	case cluster.WMQuarantine:
		return model.Quarantine{Pipeline: p, Partition: q, Epoch: e, Seq: int64(o.Seq), Last: o.Last}
	}
	panic(fmt.Sprintf("workloads: unknown watermark op %d", o.Kind))
}

// check adds the watermark verdict to the others' (nothing without
// pipelines); a malformed history is a harness bug.
func (h *watermarks) check(opt linearizability.Options, out []linearizability.Verdict, harness []string) ([]linearizability.Verdict, []string) {
	if h == nil || !h.used {
		return out, harness
	}
	h.rec.CutOpen()
	if err := h.rec.Err(); err != nil {
		return out, append(harness, fmt.Sprintf("%s: malformed history (harness bug): %v", model.Watermark.Name, err))
	}
	return append(out, linearizability.CheckWith(model.Watermark, h.rec.Operations(), opt)), harness
}

// rebalance moves partitions of a random pipeline away and back (a
// consumer-group rebalance); sc.For is how long they stay away.
func (in *injector) rebalance(sc Schedule) {
	in.c.Rebalance(in.r, sc.For.D)
}
