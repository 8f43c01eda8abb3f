package model

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/anishathalye/porcupine"
)

type step struct {
	in, out any
	want    Reason
}

// TestApply runs short sequential scripts: each step's reason must match.
func TestApply(t *testing.T) {
	w := func(in any) step { return step{in: in} }
	tests := []struct {
		name  string
		spec  Spec
		steps []step
	}{
		{"watermark out of order then stall", Watermark, []step{
			w(BeginEpoch{Epoch: 1}),
			w(Resolve{Epoch: 1, Seq: 2, Last: 29, OK: true}),
			w(Resolve{Epoch: 1, Seq: 0, Last: 9, OK: true}),
			{CommitOffset{Epoch: 1, Offset: 30}, nil, ReasonCommitPastOK},
			w(CommitOffset{Epoch: 1, Offset: 10}),
			w(Resolve{Epoch: 1, Seq: 1, Last: 19, OK: true}),
			w(CommitOffset{Epoch: 1, Offset: 30}),
			w(Resolve{Epoch: 1, Seq: 3, Last: 39, OK: false}),
			w(Resolve{Epoch: 1, Seq: 3, Last: 39, OK: true}), // duplicate: first wins
			{CommitOffset{Epoch: 1, Offset: 40}, nil, ReasonCommitPastOK},
			{CommitOffset{Epoch: 1, Offset: 20}, nil, ReasonCommitBackward},
			{Resolve{Epoch: 2, Seq: 0, Last: 1, OK: true}, nil, ReasonFutureEpoch},
			{BeginEpoch{Epoch: 1}, nil, ReasonEpochRegress},
			w(BeginEpoch{Epoch: 2}),
			{CommitOffset{Epoch: 2, Offset: 40}, Unknown{}, ""}, // unknown commits prove nothing
		}},
		{"generation fence", Generation, []step{
			{Trigger{Gen: 0, ID: 1}, TriggerResult{Started: true}, ""},
			w(Restore{NewGen: 1}),
			{Effect{Armed: 0, Kind: "expiry"}, EffectResult{Failed: true, Gen: 1}, ReasonWrongGenFail},
			{Effect{Armed: 0, Kind: "expiry"}, EffectResult{Failed: true, Gen: 0}, ReasonStaleFail},
			{Effect{Armed: 0, Kind: "expiry"}, Unknown{}, ""},
			{ReadGen{}, ReadGenResult{Gen: 1}, ""},
			{Effect{Armed: 1, Kind: "expiry"}, EffectResult{Failed: true, Gen: 1}, ""},
			{Trigger{Gen: 1, ID: 1}, TriggerResult{Started: true}, ReasonFailedTrigger},
			{ReadGen{}, ReadGenResult{Gen: 1}, ReasonStatus},
			{Trigger{Gen: 1, ID: 1}, "bogus", ReasonBadOutput},
		}},
		{"register", Register, []step{
			{ReadLatest{}, ReadResult{ID: 0}, ""},
			w(Complete{ID: 3}),
			{ReadLatest{}, ReadResult{ID: 2}, ReasonStaleRead},
			{ReadLatest{}, Unknown{}, ""},
			{Restore{}, nil, ReasonBadInput},
		}},
		{"savepoints", Savepoints, []step{
			{SavepointCommit{ID: 2}, SavepointResult{OK: true}, ""},
			{SavepointCommit{ID: 1}, SavepointResult{OK: true}, ""},
			{SavepointCommit{ID: 1}, SavepointResult{OK: true}, ReasonDuplicateCommit},
			{SavepointList{}, SavepointIDs{2, 1}, ""},
			{SavepointList{}, SavepointIDs{2}, ReasonListDiffers},
			w(SavepointDelete{ID: 2}),
			{SavepointList{}, SavepointIDs{1}, ""},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := tt.spec.NewMachine()
			for i, s := range tt.steps {
				if got := m.Try(s.in, s.out); got != s.want {
					t.Fatalf("step %d %v -> %v: reason %q, want %q (state %v)", i, s.in, s.out, got, s.want, m.State())
				}
			}
		})
	}
}

// TestMachineKeepsStateOnIllegalStep: Try changes nothing when it refuses.
func TestMachineKeepsStateOnIllegalStep(t *testing.T) {
	m := Watermark.NewMachine()
	m.Try(BeginEpoch{Epoch: 1}, nil)
	m.Try(Resolve{Epoch: 1, Seq: 1, Last: 19, OK: true}, nil)
	before := m.State()
	if why := m.Try(CommitOffset{Epoch: 1, Offset: 20}, nil); why == "" {
		t.Fatal("commit past an unresolved batch accepted")
	}
	if !Watermark.Model.Equal(before, m.State()) {
		t.Fatalf("state changed on an illegal step: %v -> %v", before, m.State())
	}
}

// TestWatermarkRunsAreCanonical resolves the same batches in random orders:
// the states are Equal with equal hashes, the committable offset matches a
// naive computation, and Apply never mutates the state it is given.
func TestWatermarkRunsAreCanonical(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		n := 1 + rng.IntN(12)
		batches := make([]Resolve, n)
		for i := range batches {
			batches[i] = Resolve{Epoch: 1, Seq: int64(i), Last: int64(i*10 + 9), OK: rng.IntN(8) != 0}
		}
		var first WatermarkState
		for perm := range 4 {
			st := begin(t)
			for _, i := range rng.Perm(n) {
				snapshot := clone(st)
				next, why := st.Apply(batches[i], nil)
				if why != "" {
					t.Fatalf("resolve refused: %s", why)
				}
				if !reflect.DeepEqual(st, snapshot) {
					t.Fatalf("Apply mutated its receiver")
				}
				st = next
			}
			if want := naiveCommittable(batches); st.Committable != want {
				t.Fatalf("trial %d: committable %d, want %d (%s)", trial, st.Committable, want, st.Describe())
			}
			if perm == 0 {
				first = st
			} else if !st.equal(first) || st.hash() != first.hash() {
				t.Fatalf("trial %d: orders give different states %s / %s", trial, st.Describe(), first.Describe())
			}
		}
	}
}

func begin(t *testing.T) WatermarkState {
	st, why := NewWatermarkState().Apply(BeginEpoch{Epoch: 1}, nil)
	if why != "" {
		t.Fatal(why)
	}
	return st
}

func clone(s WatermarkState) WatermarkState {
	s.Ahead = slices.Clone(s.Ahead)
	return s
}

func naiveCommittable(batches []Resolve) int64 {
	c := int64(-1)
	for _, b := range batches {
		if !b.OK {
			break
		}
		c = b.Last + 1
	}
	return c
}

// TestSpecModelWorksWithPorcupineDirectly: Spec.Model carries its own
// Partition, so it can be handed to porcupine as it is.
func TestSpecModelWorksWithPorcupineDirectly(t *testing.T) {
	op := func(c int, call, ret int64, in, out any) porcupine.Operation {
		return porcupine.Operation{ClientId: c, Input: in, Call: call, Output: out, Return: ret}
	}
	h := []porcupine.Operation{
		op(0, 0, 1, Complete{Pipeline: 1, ID: 1}, nil),
		op(1, 0, 1, Complete{Pipeline: 2, ID: 7}, nil),
		op(0, 2, 3, ReadLatest{Pipeline: 1}, ReadResult{ID: 1}),
		op(1, 2, math.MaxInt64, Complete{Pipeline: 2, ID: 8}, Unknown{}),
		op(2, 4, 5, ReadLatest{Pipeline: 2}, ReadResult{ID: 8}),
	}
	if !porcupine.CheckOperations(Register.Model, h) {
		t.Fatal("legal history rejected")
	}
	h = append(h, op(2, 6, 7, ReadLatest{Pipeline: 2}, ReadResult{ID: 7}))
	if porcupine.CheckOperations(Register.Model, h) {
		t.Fatal("read going back from 8 to 7 accepted")
	}
	if got := Register.Model.Partition(h); len(got) != 2 || Register.Key(got[0][0].Input).ID != 1 {
		t.Fatalf("partitions not split by pipeline in key order: %v", got)
	}
}

// TestUnknownIsAlwaysLegal: an operation with an unknown outcome that
// cannot take effect is taken not to have happened, in every model.
func TestUnknownIsAlwaysLegal(t *testing.T) {
	tests := []struct {
		spec  Spec
		setup []step
		in    any
	}{
		{Watermark, []step{{BeginEpoch{Epoch: 3}, nil, ""}}, BeginEpoch{Epoch: 2}},
		{Watermark, []step{{BeginEpoch{Epoch: 3}, nil, ""}}, Resolve{Epoch: 4, Seq: 0, Last: 9, OK: true}},
		{Watermark, []step{{BeginEpoch{Epoch: 3}, nil, ""}}, Quarantine{Epoch: 3, Seq: 0}},
		{Generation, []step{{Restore{NewGen: 3}, nil, ""}}, Restore{NewGen: 2}},
		{Savepoints, []step{{SavepointCommit{ID: 1}, SavepointResult{OK: true}, ""}}, SavepointCommit{ID: 1}},
	}
	for _, tt := range tests {
		m := tt.spec.NewMachine()
		for _, s := range tt.setup {
			if why := m.Try(s.in, s.out); why != "" {
				t.Fatal(why)
			}
		}
		before := m.State()
		if why := m.Try(tt.in, Unknown{}); why != "" || !tt.spec.Model.Equal(before, m.State()) {
			t.Errorf("%s: unknown %v: reason %q, state %v -> %v", tt.spec.Name, tt.in, why, before, m.State())
		}
	}
}
