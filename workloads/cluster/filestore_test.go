package cluster

import (
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/core/coord"
	"github.com/ckptsim/ckptsim/core/savepoint"
	"github.com/ckptsim/ckptsim/sim"
)

// TestCheckpointFileRoundTrip: what file storage stores is what it loads:
// ids, type, nanosecond instants (the notices' stamps), the coordinator's
// own checksum and every task's state, an empty one included.
func TestCheckpointFileRoundTrip(t *testing.T) {
	at := sim.Epoch.Add(1234567891 * time.Nanosecond)
	c := &coord.Completed{Job: 3, Pipeline: 7, ID: 42, Type: coord.CompletedPoint, TriggeredAt: at,
		CompletedAt: at.Add(time.Second + 17), States: map[coord.TaskID][]byte{0: []byte("a"), 1: nil, 2: []byte("state-3-7-2-42")}}
	c.Sum = coord.Checksum(c)
	got, err := savepoint.DecodeCheckpointFile(savepoint.EncodeCheckpointFile(toCheckpoint(c)))
	if err != nil {
		t.Fatal(err)
	}
	r := fromCheckpoint(got)
	if r.Job != c.Job || r.Pipeline != c.Pipeline || r.ID != c.ID || r.Type != c.Type || r.Sum != c.Sum ||
		!r.TriggeredAt.Equal(c.TriggeredAt) || r.TriggeredAt != c.TriggeredAt || !r.CompletedAt.Equal(c.CompletedAt) {
		t.Fatalf("round trip %+v, want %+v", r, c)
	}
	if !r.Intact() || StateSum(r) != StateSum(c) || len(r.States) != 3 {
		t.Fatalf("states %v (intact %v), want %v", r.States, r.Intact(), c.States)
	}
}

// TestFileStorageRotRefused drives Storage in file mode in a simulated
// world: bit rot spares a pipeline's only intact file, a rotted file is
// skipped by Latest (the register read still names it: the harness rotted
// it) and refused by Load, and Peek still lists it. (Errorf and return:
// the body runs on a simulated thread, not the test's goroutine.)
func TestFileStorageRotRefused(t *testing.T) {
	w := sim.New(sim.Config{Seed: 1, MaxTime: time.Hour})
	w.Run(func() {
		c := &Cluster{W: w, cfg: Config{FileStorage: true, Faults: FaultRates{BitRot: 1}}, work: w.Rand(sim.StreamWorkload),
			faults: w.Rand(sim.StreamFaults), canceled: map[int64]bool{}, restoring: map[int64]int{}, failureDue: map[int64][]time.Duration{}, redeploying: map[PipelineID]int{}, redeployRestart: map[PipelineID]int64{}, redeployHeld: map[PipelineID]int{}}
		c.leases = NewLeases(w, c.observe)
		s := newStorage(c)
		var read []int64
		s.OnLatest = func(_ int64, _ int, id int64) { read = append(read, id) }
		store := func(id int64) {
			cp := &coord.Completed{Job: 0, Pipeline: 1, ID: id, Type: coord.Checkpoint, TriggeredAt: sim.Epoch, CompletedAt: sim.Epoch,
				States: map[coord.TaskID][]byte{0: []byte("x")}}
			cp.Sum = coord.Checksum(cp)
			if err := s.Store(cp); err != nil {
				t.Errorf("store %d: %v", id, err)
			}
		}
		store(1) // the only file: never rots
		store(2) // rots (BitRot 1, one intact file besides)
		store(3) // 2 rotted and still stored: 3 stays intact
		if !s.file.rotted[PipelineID{0, 1}][2] || s.file.rotted[PipelineID{0, 1}][1] || s.file.rotted[PipelineID{0, 1}][3] {
			t.Errorf("rotted %v, want only 2", s.file.rotted)
			return
		}
		if err := s.Delete(0, 1, []int64{3}); err != nil {
			t.Error(err)
			return
		}
		l, err := s.Latest(0, 1)
		if err != nil || l == nil || l.ID != 1 {
			t.Errorf("Latest = %v, %v; want checkpoint 1 (2 rotted)", l, err)
			return
		}
		if len(read) != 1 || read[0] != 2 {
			t.Errorf("register reads %v, want [2] (the skip of 2 is justified)", read)
		}
		if _, err := s.Load(0, 1, 2); err == nil {
			t.Error("Load of the rotted checkpoint 2 succeeded")
		}
		if got := s.Peek(0, 1); len(got) != 2 || got[0] != 1 || got[1] != 2 {
			t.Errorf("Peek = %v, want [1 2]", got)
		}
	})
}

// TestLegacyTearRefused: bit rot tears a legacy v0 file (legacyCut) where
// its task states begin or at any length inside its checkpoint, and core's
// reader (savepoint.DecodeCheckpointFile, through DecodeLegacy) refuses
// every such cut; the states cut, read leniently, would be a checkpoint
// with its ids and no states, which loadedRotted hands on unchecked.
func TestLegacyTearRefused(t *testing.T) {
	c := &coord.Completed{Job: 3, Pipeline: 7, ID: 42, Type: savepoint.TypeCheckpoint, TriggeredAt: sim.Epoch,
		CompletedAt: sim.Epoch.Add(time.Second), States: map[coord.TaskID][]byte{0: []byte("a"), 1: []byte("state-3-7-1-42")}}
	c.Sum = coord.Checksum(c)
	b := encodeLegacy(toCheckpoint(c))
	if _, err := savepoint.DecodeCheckpointFile(b); err != nil {
		t.Fatalf("whole legacy file refused: %v", err)
	}
	cuts := map[int]bool{legacyCut(b, true, 0, "f"): true}
	for r := range len(b) {
		cuts[legacyCut(b, false, r, "f")] = true
	}
	for cut := range cuts {
		if cut <= 0 || cut >= len(b) {
			t.Fatalf("cut %d of %d bytes", cut, len(b))
		}
		if got, err := savepoint.DecodeCheckpointFile(b[:cut]); err == nil {
			t.Errorf("legacy file torn to %d of %d bytes decoded: %+v", cut, len(b), got)
		}
	}
	if r := loadedRotted(toCheckpoint(c)); StateSum(r) != StateSum(c) || r.Sum != c.Sum {
		t.Errorf("loadedRotted of a whole checkpoint: %+v, want %+v", r, c)
	}
}
