package model

import "fmt"

// Register operations, keyed by pipeline: the latest completed checkpoint
// as a linearizable register.
//
// The simulator records Complete from the start of completePendingCheckpoint
// (storage write) to the completion being reported, and ReadLatest around the
// read of the latest completed checkpoint that a restore performs (output
// ReadResult; ID 0 when there is none). A completion cut by a failover is
// recorded with output Unknown{}: it may or may not have happened.
type (
	Complete struct {
		Pipeline int
		ID       int64
	}
	ReadLatest struct{ Pipeline int }
	ReadResult struct{ ID int64 }
)

func (o Complete) Key() Key   { return Key{ID: o.Pipeline} }
func (o ReadLatest) Key() Key { return Key{ID: o.Pipeline} }

func (o Complete) String() string   { return fmt.Sprintf("complete(#%d)", o.ID) }
func (o ReadLatest) String() string { return "read-latest" }
func (r ReadResult) String() string { return fmt.Sprintf("#%d", r.ID) }

// RegisterState is the id of the last completed checkpoint; 0 when none.
type RegisterState int64

// ReasonStaleRead: a restore read something other than the last completed
// checkpoint.
const ReasonStaleRead Reason = "read is not the last completed checkpoint"

// Apply is the sequential specification of the register.
func (s RegisterState) Apply(in, out any) (RegisterState, Reason) {
	next, why := s.apply(in, out)
	return tolerate(s, out, next, why)
}

func (s RegisterState) apply(in, out any) (RegisterState, Reason) {
	switch op := in.(type) {
	case Complete:
		return RegisterState(op.ID), ""
	case ReadLatest:
		switch r := out.(type) {
		case Unknown:
			return s, ""
		case ReadResult:
			if r.ID != int64(s) {
				return s, ReasonStaleRead
			}
			return s, ""
		}
		return s, ReasonBadOutput
	}
	return s, ReasonBadInput
}

// Describe renders the state for the visualisation.
func (s RegisterState) Describe() string { return fmt.Sprintf("latest=#%d", int64(s)) }

// Register is the per-pipeline latest-completed-checkpoint register.
var Register = newSpec("register", RegisterState(0),
	func(k Key) string { return fmt.Sprintf("pipeline %d", k.ID) },
	func(a, b RegisterState) bool { return a == b },
	func(s RegisterState) uint64 { return mix(0, uint64(s)) })
