// Package model holds the sequential specifications that ckptsim's
// recorded histories are checked against: one pure state machine per
// property, usable both as a reference implementation (call Apply in a
// loop) and as a porcupine model (Spec.Model).
//
// The four models, each keyed so that histories split into small
// independent partitions (linearizability is local):
//
//   - Watermark, per (pipeline, partition): commits never go backwards
//     within an epoch, never exceed the offset after the contiguous prefix
//     of batches resolved OK, and reset only at a new epoch.
//   - Generation, per pipeline: an expiry or deferred error may fail only
//     the coordinator generation that armed it, and only while that
//     generation is current (hazards H1 and H9).
//   - Register, per pipeline: the latest completed checkpoint is a
//     linearizable register; a restore reads the last completed write.
//   - Savepoints, per job: committed savepoints form a set that only
//     explicit deletes shrink.
//
// # Guarantees
//
// Every Apply and Step is pure: it never mutates its receiver, input or
// output, and returns a state that shares no mutable memory with the old
// one (slices in states are copy-on-write). Every state type has Equal and
// Hash set in its Spec, so porcupine's cache never compares uncomparable
// values. Apply returns a Reason, "" when the step is legal, so a reference
// run can say why an operation was refused; Reasons are constants and cost
// no allocation on the checker's hot path.
//
// # Unknown outcomes
//
// An operation cut by a failover has the output Unknown{} and is recorded
// with Return = math.MaxInt64. Every model treats it as "may or may not have
// taken effect", and such an operation is always legal: a read with an
// unknown result changes nothing; a write applies its effect when that is
// legal where porcupine places it, and otherwise is taken not to have
// happened. Because porcupine may place it after every other operation,
// applying the effect never rules out the history in which the write did
// not happen. An unknown watermark commit changes nothing: a commit that may
// not have happened proves nothing, and a lower "last committed" only
// permits more.
//
// The package imports only the standard library and porcupine, and does no
// I/O.
package model
