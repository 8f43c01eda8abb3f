package oracle

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ckptsim/ckptsim/workloads/cluster"
)

// WatermarkLiveness holds watermark-progress: every partition assigned at
// the end of the run committed a watermark after faults stopped. It is fed
// the pipelines' operations as the harness's runtime performs them
// (cluster.WatermarkOp: BeginEpoch and Revoke for the assignment, Commit
// for the broker's commits) with their virtual time. Pipelines are
// numbered by cluster.PipelineID.Seq, as in the histories.
type WatermarkLiveness struct {
	now       func() time.Duration
	pipelines int
	assigned  map[[2]int]bool          // (pipeline, partition) assigned now
	committed map[[2]int]time.Duration // virtual time of the last commit
}

// NewWatermarkLiveness returns the check for jobs of pipelines pipelines
// each.
func NewWatermarkLiveness(now func() time.Duration, pipelines int) *WatermarkLiveness {
	return &WatermarkLiveness{now: now, pipelines: pipelines, assigned: map[[2]int]bool{}, committed: map[[2]int]time.Duration{}}
}

// Op observes one of the pipelines' operations.
func (w *WatermarkLiveness) Op(o cluster.WatermarkOp) {
	k := [2]int{cluster.PipelineID{Job: o.Job, Pipeline: o.Pipeline}.Seq(w.pipelines), int(o.Partition)}
	switch o.Kind {
	case cluster.WMBeginEpoch:
		w.assigned[k] = true
	case cluster.WMRevoke:
		delete(w.assigned, k)
	case cluster.WMCommit:
		w.committed[k] = w.now()
	}
}

// Judge reports watermark-progress when partitions assigned at the end of
// the run committed nothing from healAt on (when faults stopped): a
// watermark that stopped moving although faults are off.
func (w *WatermarkLiveness) Judge(f *Findings, at, healAt time.Duration) {
	var stuck []string
	for k := range w.assigned {
		if w.committed[k] < healAt { // never committed: 0
			stuck = append(stuck, fmt.Sprintf("pipeline %d partition %d", k[0], k[1]))
		}
	}
	if len(stuck) == 0 {
		return
	}
	slices.Sort(stuck)
	shown := stuck
	if len(shown) > 10 {
		shown = append(shown[:10:10], fmt.Sprintf("... %d more", len(stuck)-10))
	}
	f.Add(WatermarkProgress, at, "pipelines", "%d assigned partitions committed no watermark after faults stopped: %s",
		len(stuck), strings.Join(shown, ", "))
}
