package model

import (
	"fmt"
	"slices"
)

// Savepoint operations, keyed by job.
//
// The simulator records SavepointCommit around the savepoint writer's
// commit (output SavepointResult: OK when the commit marker was written),
// SavepointDelete around an explicit delete (output nil), and SavepointList
// around listCompletedSavepoints (output SavepointIDs, in any order).
// Rotation and terminal cleanup are not operations of this model: if they
// remove a savepoint, the next list shows it missing.
type (
	SavepointCommit struct {
		Job int
		ID  int64
	}
	SavepointDelete struct {
		Job int
		ID  int64
	}
	SavepointList   struct{ Job int }
	SavepointResult struct{ OK bool }
	SavepointIDs    []int64
)

func (o SavepointCommit) Key() Key { return Key{ID: o.Job} }
func (o SavepointDelete) Key() Key { return Key{ID: o.Job} }
func (o SavepointList) Key() Key   { return Key{ID: o.Job} }

func (o SavepointCommit) String() string { return fmt.Sprintf("commit(sp%d)", o.ID) }
func (o SavepointDelete) String() string { return fmt.Sprintf("delete(sp%d)", o.ID) }
func (o SavepointList) String() string   { return "list" }
func (r SavepointResult) String() string {
	if r.OK {
		return "ok"
	}
	return "failed"
}

// SavepointState is the set of committed savepoint ids, sorted. It is never
// modified in place.
type SavepointState []int64

// Reasons a savepoint step is illegal.
const (
	ReasonDuplicateCommit Reason = "commit succeeded for an id already committed"
	ReasonListDiffers     Reason = "list differs from the committed set"
)

// Apply is the sequential specification of a job's savepoints.
func (s SavepointState) Apply(in, out any) (SavepointState, Reason) {
	next, why := s.apply(in, out)
	return tolerate(s, out, next, why)
}

func (s SavepointState) apply(in, out any) (SavepointState, Reason) {
	switch op := in.(type) {
	case SavepointCommit:
		return s.commit(op, out)
	case SavepointDelete:
		if i, ok := slices.BinarySearch(s, op.ID); ok {
			return slices.Delete(slices.Clone(s), i, i+1), ""
		}
		return s, ""
	case SavepointList:
		return s.list(out)
	}
	return s, ReasonBadInput
}

func (s SavepointState) commit(op SavepointCommit, out any) (SavepointState, Reason) {
	unknown := isUnknown(out)
	r, isResult := out.(SavepointResult)
	switch {
	case !unknown && !isResult:
		return s, ReasonBadOutput
	case isResult && !r.OK:
		return s, ""
	}
	i, found := slices.BinarySearch(s, op.ID)
	switch {
	case !found:
		return slices.Insert(slices.Clip(s), i, op.ID), ""
	case unknown:
		return s, ""
	}
	return s, ReasonDuplicateCommit
}

func (s SavepointState) list(out any) (SavepointState, Reason) {
	switch r := out.(type) {
	case Unknown:
		return s, ""
	case SavepointIDs:
		got := slices.Sorted(slices.Values(r))
		if !slices.Equal(got, s) {
			return s, ReasonListDiffers
		}
		return s, ""
	}
	return s, ReasonBadOutput
}

// Describe renders the state for the visualisation.
func (s SavepointState) Describe() string { return fmt.Sprintf("committed=%v", []int64(s)) }

func (s SavepointState) hash() uint64 {
	h := uint64(len(s))
	for _, id := range s {
		h = mix(h, uint64(id))
	}
	return h
}

// Savepoints is the per-job savepoint retention model.
var Savepoints = newSpec("savepoints", SavepointState(nil),
	func(k Key) string { return fmt.Sprintf("job %d", k.ID) },
	func(a, b SavepointState) bool { return slices.Equal(a, b) },
	SavepointState.hash)
