package model

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/anishathalye/porcupine"
)

// Key names the object an operation acts on; histories are partitioned by
// it. ID is a pipeline or job id, Sub a partition within the pipeline (0
// when the model has no sub-object).
type Key struct{ ID, Sub int }

// Compare orders keys by ID, then Sub.
func (k Key) Compare(o Key) int {
	if c := cmp.Compare(k.ID, o.ID); c != 0 {
		return c
	}
	return cmp.Compare(k.Sub, o.Sub)
}

// Keyed is implemented by every operation input of this package.
type Keyed interface{ Key() Key }

// Unknown is the output of an operation whose outcome is unknown, for
// example one cut by a master failover. See the package doc.
type Unknown struct{}

// Reason says why a step is illegal; the empty Reason means legal.
type Reason string

// Legal reports whether r is the empty reason.
func (r Reason) Legal() bool { return r == "" }

// Reasons shared by every model.
const (
	ReasonBadInput  Reason = "input does not belong to this model"
	ReasonBadOutput Reason = "output has the wrong type for this input"
)

// Spec is one model: its name, how operations are keyed, and the porcupine
// model of one key's sub-history. Model.Partition splits a whole history by
// key in sorted key order, so Model can also be given to porcupine directly.
type Spec struct {
	Name  string
	Key   func(input any) Key
	Label func(Key) string // "pipeline 3 partition 1"
	Model porcupine.Model
	// Why is Model.Step with the reason: "" when the step is legal.
	Why func(state, input, output any) Reason
	// NewMachine returns a machine in the initial state, for replays that
	// step many operations without boxing every state.
	NewMachine func() Machine
}

// Machine is a model's state machine driven one operation at a time: a
// reference implementation to run beside the system under test.
type Machine interface {
	// Try applies the operation when it is legal in the current state and
	// returns "" ; otherwise it returns why and leaves the state unchanged.
	Try(input, output any) Reason
	// State returns the current state, as Spec.Model's states.
	State() any
}

type machine[S applier[S]] struct{ st S }

func (m *machine[S]) Try(in, out any) Reason {
	next, why := m.st.Apply(in, out)
	if why == "" {
		m.st = next
	}
	return why
}

func (m *machine[S]) State() any { return m.st }

// Specs returns every model, in a fixed order.
func Specs() []Spec {
	return []Spec{Watermark, Generation, Register, Savepoints}
}

// ByName returns the model called name.
func ByName(name string) (Spec, bool) {
	for _, s := range Specs() {
		if s.Name == name {
			return s, true
		}
	}
	return Spec{}, false
}

// applier is a state whose Apply is the model's sequential specification.
type applier[S any] interface {
	Apply(in, out any) (S, Reason)
	Describe() string
}

// newSpec builds a Spec around a typed state S.
func newSpec[S applier[S]](name string, init S, label func(Key) string,
	equal func(a, b S) bool, hash func(S) uint64) Spec {
	key := func(in any) Key { k, _ := in.(Keyed); return keyOf(k) }
	return Spec{
		Name: name, Key: key, Label: label,
		Why:        func(st, in, out any) Reason { _, why := st.(S).Apply(in, out); return why },
		NewMachine: func() Machine { return &machine[S]{init} },
		Model: porcupine.Model{
			Partition: partitionBy(key),
			Init:      func() any { return init },
			Step: func(st, in, out any) (bool, any) {
				next, why := st.(S).Apply(in, out)
				return why == "", next
			},
			Equal:                     func(a, b any) bool { return equal(a.(S), b.(S)) },
			Hash:                      func(s any) uint64 { return hash(s.(S)) },
			DescribeOperation:         describeOp,
			DescribeState:             func(s any) string { return s.(S).Describe() },
			DescribeOperationMetadata: describeMeta,
		},
	}
}

func keyOf(k Keyed) Key {
	if k == nil {
		return Key{ID: -1, Sub: -1}
	}
	return k.Key()
}

// partitionBy groups a history by key, keys in sorted order, each group in
// history order.
func partitionBy(key func(any) Key) func([]porcupine.Operation) [][]porcupine.Operation {
	return func(h []porcupine.Operation) [][]porcupine.Operation {
		by := map[Key][]porcupine.Operation{}
		for _, op := range h {
			k := key(op.Input)
			by[k] = append(by[k], op)
		}
		out := make([][]porcupine.Operation, 0, len(by))
		for _, k := range slices.SortedFunc(maps.Keys(by), Key.Compare) {
			out = append(out, by[k])
		}
		return out
	}
}

// describeOp renders "input -> output" for the visualisation.
func describeOp(in, out any) string {
	s := fmt.Sprint(in)
	switch o := out.(type) {
	case nil:
		return s
	case Unknown:
		return s + " -> ?"
	default:
		return s + " -> " + fmt.Sprint(o)
	}
}

func describeMeta(m any) string {
	if m == nil {
		return ""
	}
	return fmt.Sprint(m)
}

// tolerate makes an operation with an unknown outcome legal: if it cannot
// take effect where it is placed, it did not take effect.
func tolerate[S any](s S, out any, next S, why Reason) (S, Reason) {
	if why != "" && why != ReasonBadInput && isUnknown(out) {
		return s, ""
	}
	return next, why
}

func isUnknown(out any) bool { _, ok := out.(Unknown); return ok }

// mix folds v into the hash h (MurmurHash3 finaliser constants).
func mix(h, v uint64) uint64 {
	h ^= v
	h *= 0xff51afd7ed558ccd
	return h ^ h>>33
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
