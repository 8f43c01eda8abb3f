package oracle

import (
	"strings"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/core/watermark"
	"github.com/ckptsim/ckptsim/workloads/cluster"
)

// TestWatermarkLivenessNamesStuckPartitions: a partition assigned at the
// end that committed nothing after heal is reported; a revoked one, or one
// that committed after heal, is not.
func TestWatermarkLivenessNamesStuckPartitions(t *testing.T) {
	var now time.Duration
	w := NewWatermarkLiveness(func() time.Duration { return now }, 10)
	for _, o := range []cluster.WatermarkOp{
		{Kind: cluster.WMBeginEpoch, Job: 0, Pipeline: 1, Partition: 0, Epoch: 1},
		{Kind: cluster.WMBeginEpoch, Job: 0, Pipeline: 1, Partition: 1, Epoch: 1},
		{Kind: cluster.WMBeginEpoch, Job: 1, Pipeline: 2, Partition: 3, Epoch: 1},
		{Kind: cluster.WMRevoke, Job: 0, Pipeline: 1, Partition: 1},
	} {
		w.Op(o)
	}
	var f Findings
	w.Judge(&f, time.Hour, 1) // heal at 1 ns: nothing committed since
	got := f.List()
	if len(got) != 1 || got[0].Check != WatermarkProgress ||
		got[0].Message != "2 assigned partitions committed no watermark after faults stopped: pipeline 1 partition 0, pipeline 12 partition 3" {
		t.Fatalf("stuck: %v", got)
	}
	now = 5
	w.Op(cluster.WatermarkOp{Kind: cluster.WMCommit, Job: 0, Pipeline: 1, Partition: 0, Epoch: 1})
	f = Findings{}
	w.Judge(&f, time.Hour, 1)
	if got := f.List(); len(got) != 1 || got[0].Message != "1 assigned partitions committed no watermark after faults stopped: pipeline 12 partition 3" {
		t.Fatalf("after a commit: %v", got)
	}
	for q := range 12 {
		w.Op(cluster.WatermarkOp{Kind: cluster.WMBeginEpoch, Job: 2, Pipeline: 0, Partition: watermark.Partition(100 + q)})
	}
	f = Findings{}
	w.Judge(&f, time.Hour, 1)
	if got := f.List(); len(got) != 1 || !strings.HasPrefix(got[0].Message, "13 ") || !strings.HasSuffix(got[0].Message, ", ... 3 more") {
		t.Fatalf("more than 10 stuck: %v", got)
	}
}
