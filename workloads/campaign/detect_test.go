package campaign

import (
	"slices"
	"sync"
	"testing"

	"github.com/ckptsim/ckptsim/workloads"
	"github.com/ckptsim/ckptsim/workloads/oracle"
)

// TestSeedsToDetection: each campaign searches its own seed range in
// order and stops at the first detection; a campaign that finds nothing
// reports 0 after exactly limit seeds.
func TestSeedsToDetection(t *testing.T) {
	var mu sync.Mutex
	ran := map[int][]uint64{}
	bugs := map[uint64]bool{1002: true, 1004: true, 3000: true} // campaign 1 at its 3rd seed, campaign 3 at its 1st
	got := SeedsToDetection(4, 5, 3, func(c int) uint64 { return uint64(c) * 1000 }, func(c int, seed uint64) bool {
		mu.Lock()
		defer mu.Unlock()
		ran[c] = append(ran[c], seed)
		return bugs[seed]
	})
	if want := []int{0, 3, 0, 1}; !slices.Equal(got, want) {
		t.Errorf("seeds to detection %v, want %v", got, want)
	}
	if want := []uint64{1000, 1001, 1002}; !slices.Equal(ran[1], want) {
		t.Errorf("campaign 1 ran %v, want %v (in order, stopping at the detection)", ran[1], want)
	}
	if len(ran[0]) != 5 || len(ran[2]) != 5 {
		t.Errorf("campaigns without a detection ran %d and %d seeds, want 5 each", len(ran[0]), len(ran[2]))
	}
}

func TestDetectionStats(t *testing.T) {
	for _, c := range []struct {
		found               []int
		median, worst, hits int
	}{
		{[]int{0, 0}, 0, 0, 0},
		{[]int{3, 1, 2}, 2, 3, 3},
		{[]int{0, 5, 1, 0}, 5, 5, 2},
		{nil, 0, 0, 0},
	} {
		m, w, h := DetectionStats(c.found)
		if m != c.median || w != c.worst || h != c.hits {
			t.Errorf("DetectionStats(%v) = %d, %d, %d; want %d, %d, %d", c.found, m, w, h, c.median, c.worst, c.hits)
		}
	}
}

// TestFound: a detection is a safety or liveness verdict whose check ids
// carry one of the wanted checks; violation text is never read, and an
// unknown, a crash, a budget or a pass is never a detection.
func TestFound(t *testing.T) {
	gj, ofg := oracle.GenerationJustified, oracle.OneFailurePerGeneration
	for _, tc := range []struct {
		name string
		o    workloads.Outcome
		want []string
		id   string
	}{
		{"safety carrying the check", workloads.Outcome{Verdict: workloads.Safety, Checks: []string{"increasing-ids", gj}}, []string{gj}, gj},
		{"first wanted id that fired", workloads.Outcome{Verdict: workloads.Safety, Checks: []string{gj, ofg}}, []string{ofg, gj}, ofg},
		{"liveness", workloads.Outcome{Verdict: workloads.Liveness, Checks: []string{oracle.CheckpointProgress}}, []string{oracle.CheckpointProgress}, oracle.CheckpointProgress},
		{"another check", workloads.Outcome{Verdict: workloads.Safety, Checks: []string{"increasing-ids"}}, []string{gj}, ""},
		{"text only", workloads.Outcome{Verdict: workloads.Safety,
			Violations: []string{"1s job 0 pipeline 1: generation-justified: no cause"}}, []string{gj}, ""},
		// porcupine gave up: the line names the model's check id, but
		// nothing was found
		{"unknown", workloads.Outcome{Verdict: workloads.Unknown,
			Violations: []string{"2m0s partition 1: model-watermark: unknown: step bound reached (unknown is not a pass)"}},
			[]string{oracle.ModelWatermark}, ""},
		{"unknown even with ids", workloads.Outcome{Verdict: workloads.Unknown, Checks: []string{oracle.ModelWatermark}},
			[]string{oracle.ModelWatermark}, ""},
		{"crash", workloads.Outcome{Verdict: workloads.Crash, Checks: []string{gj}}, []string{gj}, ""},
		{"budget", workloads.Outcome{Verdict: workloads.Budget, Checks: []string{gj}}, []string{gj}, ""},
		{"pass", workloads.Outcome{Verdict: workloads.Pass, Checks: []string{gj}}, []string{gj}, ""},
		{"nothing wanted", workloads.Outcome{Verdict: workloads.Safety, Checks: []string{gj}}, nil, ""},
	} {
		id, ok := Found(tc.o, tc.want...)
		if id != tc.id || ok != (tc.id != "") {
			t.Errorf("%s: Found = %q, %v; want %q, %v", tc.name, id, ok, tc.id, tc.id != "")
		}
	}
}
