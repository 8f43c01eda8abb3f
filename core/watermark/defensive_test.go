package watermark

import (
	"slices"
	"testing"
)

// The paths of this file are ones no simulation takes
// (results/coverage/defensive.txt says why); each test shows what the
// path does.

// TestSecondResolutionOfABatchIsADuplicate: a resolution that reaches the
// checkpointer for a batch it already resolved, before or after its
// watermark moved past it, is counted as a duplicate and changes nothing.
// An Ack pushes its resolution once (a second Done or Fail is counted as
// misuse and never pushed: TestDoubleResolutionIsCountedNotApplied), so
// only a second resolution pushed past the Ack reaches apply.
func TestSecondResolutionOfABatchIsADuplicate(t *testing.T) {
	cp, is, _ := setup(p0)
	a := is.Issue(p0, 9)
	b := is.Issue(p0, 19)
	a.Done()
	mustEqual(t, "first", cp.Drain(), DrainStats{Applied: 1})
	mustEqual(t, "marks", take(t, cp), []Watermark{wm(p0, 10)})
	cp.in.pushResolution(resolution{id: a.Batch()}) // behind the watermark
	mustEqual(t, "advanced", cp.Drain(), DrainStats{Duplicates: 1})
	b.Fail()
	mustEqual(t, "failed", cp.Drain(), DrainStats{Applied: 1})
	cp.in.pushResolution(resolution{id: b.Batch()}) // resolved, not yet advanced
	mustEqual(t, "duplicate", cp.Drain(), DrainStats{Duplicates: 1})
	mustEqual(t, "stalled", len(cp.StalledPartitions()), 1) // b stays failed: the duplicate did not deliver it
	mustEqual(t, "marks after", take(t, cp), []Watermark(nil))
}

// TestEpochWithARepeatedPartitionTracksItOnce: a partition listed twice
// in BeginEpoch is tracked once. The simulated broker assigns each
// partition once (a sorted list of distinct partitions).
func TestEpochWithARepeatedPartitionTracksItOnce(t *testing.T) {
	cp, is, _ := setup(p0)
	cp.BeginEpoch([]Partition{p1, p0, p1}, 2)
	if !slices.Equal(cp.order, []Partition{p0, p1}) {
		t.Fatalf("tracked %v, want [%v %v]", cp.order, p0, p1)
	}
	mustEqual(t, "trackers", len(cp.trackers), 2)
	a := is.Issue(p1, 4)
	a.Done()
	mustEqual(t, "drain", cp.Drain(), DrainStats{Applied: 1})
	mustEqual(t, "marks", take(t, cp), []Watermark{wm(p1, 5)})
}
