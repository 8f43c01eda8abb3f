package model

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Watermark operations, keyed by (pipeline, partition). Outputs are nil,
// or Unknown{} for an operation cut by a failover.
//
// The simulator records them from the real offset checkpointer:
//   - BeginEpoch around Checkpointer.BeginEpoch, once per assigned partition;
//   - Revoke around Checkpointer.Revoke, once per revoked partition;
//   - Resolve around an ack's Done (OK) or Fail (not OK), by the thread that
//     resolves it, with the batch's epoch, sequence and last offset;
//   - CommitOffset from the TakeWatermarks call to the source's commit
//     returning, with the offset committed;
//   - Quarantine around the DeadLetter callback that TakeWatermarks makes
//     for a failed head batch when quarantine is enabled.
//
// ExtendEpoch is recorded as a BeginEpoch of the current epoch for each
// partition it adds. A partition with no BeginEpoch is unassigned: any
// commit for it is illegal.
type (
	BeginEpoch struct {
		Pipeline, Partition int
		Epoch               int64
	}
	Revoke  struct{ Pipeline, Partition int }
	Resolve struct {
		Pipeline, Partition int
		Epoch, Seq, Last    int64 // Last: the batch's last offset
		OK                  bool
	}
	CommitOffset struct {
		Pipeline, Partition int
		Epoch, Offset       int64 // Offset: next offset to read (last + 1)
	}
	Quarantine struct {
		Pipeline, Partition int
		Epoch, Seq, Last    int64
	}
)

func (o BeginEpoch) Key() Key   { return Key{o.Pipeline, o.Partition} }
func (o Revoke) Key() Key       { return Key{o.Pipeline, o.Partition} }
func (o Resolve) Key() Key      { return Key{o.Pipeline, o.Partition} }
func (o CommitOffset) Key() Key { return Key{o.Pipeline, o.Partition} }
func (o Quarantine) Key() Key   { return Key{o.Pipeline, o.Partition} }

func (o Quarantine) String() string {
	return fmt.Sprintf("quarantine(e%d #%d ..%d)", o.Epoch, o.Seq, o.Last)
}

func (o BeginEpoch) String() string { return fmt.Sprintf("begin(e%d)", o.Epoch) }
func (o Revoke) String() string     { return "revoke" }
func (o CommitOffset) String() string {
	return fmt.Sprintf("commit(e%d, %d)", o.Epoch, o.Offset)
}
func (o Resolve) String() string {
	verb := "ok"
	if !o.OK {
		verb = "FAIL"
	}
	return fmt.Sprintf("resolve(e%d #%d ..%d %s)", o.Epoch, o.Seq, o.Last, verb)
}

// Run is a run of resolved batches beyond the contiguous prefix: sequences
// From..To, all OK, with Last the last offset of batch To; or one failed
// batch (From == To, OK false). Runs are kept maximal, so a state has one
// representation and stays small however many batches resolve out of order
// or behind a failed one.
type Run struct {
	From, To, Last int64
	OK             bool
}

// WatermarkState is one partition's watermark. Sequences start at 0 in
// every epoch (seed 003); an offset is committable when every batch up to
// it was resolved OK (or its failure quarantined). A failed batch at Next
// stalls the partition until a new epoch or its quarantine.
type WatermarkState struct {
	Epoch       int64 // -1 before the first BeginEpoch
	Revoked     bool  // revoked mid-epoch; only a new epoch brings it back
	Next        int64 // first sequence not in the contiguous OK prefix
	Committable int64 // last offset of the OK prefix + 1; -1 when none
	Committed   int64 // last committed offset this epoch; -1 when none
	Ahead       []Run // resolved, at or beyond Next, sorted; copy-on-write
}

// Stalled reports whether the batch at Next was resolved as failed.
func (s WatermarkState) Stalled() bool {
	return len(s.Ahead) > 0 && s.Ahead[0].From == s.Next && !s.Ahead[0].OK
}

// Reasons a watermark step is illegal.
const (
	ReasonEpochRegress   Reason = "epochs must strictly increase"
	ReasonFutureEpoch    Reason = "resolution for an epoch that has not begun"
	ReasonStaleCommit    Reason = "commit for an epoch that is not current"
	ReasonRevokedCommit  Reason = "commit for a revoked partition"
	ReasonCommitBackward Reason = "watermark went backwards within the epoch"
	ReasonCommitPastOK   Reason = "commit past a batch not resolved OK"
	ReasonBadQuarantine  Reason = "quarantined a batch that is not the failed head"
)

// NewWatermarkState is the state before any epoch.
func NewWatermarkState() WatermarkState {
	return WatermarkState{Epoch: -1, Committable: -1, Committed: -1}
}

// Apply is the sequential specification of one partition's watermark.
func (s WatermarkState) Apply(in, out any) (WatermarkState, Reason) {
	next, why := s.apply(in, out)
	return tolerate(s, out, next, why)
}

func (s WatermarkState) apply(in, out any) (WatermarkState, Reason) {
	switch op := in.(type) {
	case BeginEpoch:
		if op.Epoch <= s.Epoch {
			return s, ReasonEpochRegress
		}
		next := NewWatermarkState()
		next.Epoch = op.Epoch
		return next, ""
	case Revoke:
		s.Revoked, s.Ahead = true, nil
		return s, ""
	case Resolve:
		return s.resolve(op)
	case CommitOffset:
		if isUnknown(out) {
			return s, ""
		}
		return s.commit(op)
	case Quarantine:
		return s.quarantine(op)
	}
	return s, ReasonBadInput
}

func (s WatermarkState) commit(op CommitOffset) (WatermarkState, Reason) {
	switch {
	case op.Epoch != s.Epoch:
		return s, ReasonStaleCommit
	case s.Revoked:
		return s, ReasonRevokedCommit
	case op.Offset < s.Committed:
		return s, ReasonCommitBackward
	case op.Offset > s.Committable:
		return s, ReasonCommitPastOK
	}
	s.Committed = op.Offset
	return s, ""
}

// resolve records a batch; stale, duplicate and post-stall ones change
// nothing.
func (s WatermarkState) resolve(op Resolve) (WatermarkState, Reason) {
	if op.Epoch > s.Epoch {
		return s, ReasonFutureEpoch
	}
	if op.Epoch < s.Epoch || s.Revoked || op.Seq < s.Next {
		return s, ""
	}
	if op.Seq == s.Next && op.OK && !s.Stalled() { // in order: no allocation
		s.Committable, s.Next = op.Last+1, op.Seq+1
		return s.advance(), ""
	}
	i, _ := slices.BinarySearchFunc(s.Ahead, op.Seq, func(r Run, seq int64) int {
		return cmp.Compare(r.To, seq)
	})
	if i < len(s.Ahead) && s.Ahead[i].From <= op.Seq {
		return s, "" // duplicate
	}
	s.Ahead = insertRun(s.Ahead, i, Run{op.Seq, op.Seq, op.Last, op.OK})
	return s.advance(), ""
}

// insertRun returns a new slice with r inserted at i, merged with OK
// neighbours it touches.
func insertRun(runs []Run, i int, r Run) []Run {
	left := i > 0 && r.OK && runs[i-1].OK && runs[i-1].To+1 == r.From
	right := i < len(runs) && r.OK && runs[i].OK && runs[i].From == r.To+1
	out := make([]Run, 0, len(runs)+1)
	out = append(out, runs[:i]...)
	switch {
	case left && right:
		out[i-1].To, out[i-1].Last = runs[i].To, runs[i].Last
		return append(out, runs[i+1:]...)
	case left:
		out[i-1].To, out[i-1].Last = r.To, r.Last
		return append(out, runs[i:]...)
	case right:
		r.To, r.Last = runs[i].To, runs[i].Last
		return append(append(out, r), runs[i+1:]...)
	}
	return append(append(out, r), runs[i:]...)
}

// quarantine passes over the failed head batch as if it were delivered.
func (s WatermarkState) quarantine(op Quarantine) (WatermarkState, Reason) {
	if op.Epoch != s.Epoch || s.Revoked || !s.Stalled() || s.Ahead[0].From != op.Seq {
		return s, ReasonBadQuarantine
	}
	s.Ahead = slices.Clone(s.Ahead)
	s.Ahead[0].OK = true
	return s.advance(), ""
}

// advance moves the contiguous prefix over batches resolved OK. It only
// reslices s.Ahead, never writes to it.
func (s WatermarkState) advance() WatermarkState {
	n := 0
	for n < len(s.Ahead) && s.Ahead[n].From == s.Next && s.Ahead[n].OK {
		s.Committable = s.Ahead[n].Last + 1
		s.Next = s.Ahead[n].To + 1
		n++
	}
	if s.Ahead = s.Ahead[n:]; len(s.Ahead) == 0 {
		s.Ahead = nil
	}
	return s
}

// Describe renders the state for the visualisation.
func (s WatermarkState) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "e%d committed=%d committable=%d next=#%d", s.Epoch, s.Committed, s.Committable, s.Next)
	if s.Stalled() {
		b.WriteString(" STALLED")
	}
	if s.Revoked {
		b.WriteString(" REVOKED")
	}
	for _, r := range s.Ahead {
		if r.OK {
			fmt.Fprintf(&b, " [#%d-#%d ..%d ok]", r.From, r.To, r.Last)
		} else {
			fmt.Fprintf(&b, " [#%d ..%d FAILED]", r.From, r.Last)
		}
	}
	return b.String()
}

func (s WatermarkState) equal(o WatermarkState) bool {
	return s.Epoch == o.Epoch && s.Revoked == o.Revoked && s.Next == o.Next && s.Committable == o.Committable && s.Committed == o.Committed &&
		slices.Equal(s.Ahead, o.Ahead)
}

func (s WatermarkState) hash() uint64 {
	h := mix(uint64(s.Epoch), uint64(s.Next))
	h = mix(h, uint64(s.Committable)<<1|b2u(s.Revoked))
	h = mix(h, uint64(s.Committed))
	for _, r := range s.Ahead {
		h = mix(mix(h, uint64(r.From)), uint64(r.To)<<1|b2u(r.OK))
	}
	return h
}

// Watermark is the per-(pipeline, partition) watermark model.
var Watermark = newSpec("watermark", NewWatermarkState(),
	func(k Key) string { return fmt.Sprintf("pipeline %d partition %d", k.ID, k.Sub) },
	WatermarkState.equal, WatermarkState.hash)
