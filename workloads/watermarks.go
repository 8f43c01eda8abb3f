package workloads

import (
	"fmt"

	"github.com/ckptsim/ckptsim/linearizability"
	"github.com/ckptsim/ckptsim/model"
	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/workloads/cluster"
	"github.com/ckptsim/ckptsim/workloads/oracle"
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
	// live sees every operation as it begins (watermark-progress).
	live *oracle.WatermarkLiveness
}

func newWatermarks(w *sim.World, pipelines int) *watermarks {
	return &watermarks{w: w, pipelines: pipelines, rec: linearizability.NewRecorder(linearizability.Logical),
		live: oracle.NewWatermarkLiveness(w.Elapsed, pipelines)}
}

func (h *watermarks) attach(c *cluster.Cluster) {
	if c.Pipelines != nil {
		h.used = true
		c.Pipelines.OnOp = h.op
	}
}

func (h *watermarks) now() int64 { return int64(h.w.Elapsed()) }

func (h *watermarks) op(o cluster.WatermarkOp) func() {
	h.live.Op(o)
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
func (h *watermarks) check(out []oracle.History, harness []string) ([]oracle.History, []string) {
	if h == nil || !h.used {
		return out, harness
	}
	h.rec.CutOpen()
	if err := h.rec.Err(); err != nil {
		return out, append(harness, fmt.Sprintf("%s: malformed history (harness bug): %v", model.Watermark.Name, err))
	}
	return append(out, oracle.History{Spec: model.Watermark, Ops: h.rec.Operations()}), harness
}

// rebalance moves partitions of a random pipeline away and back (a
// consumer-group rebalance); sc.For is how long they stay away.
func (in *injector) rebalance(sc Schedule) {
	in.c.Rebalance(in.r, sc.For.D)
}
