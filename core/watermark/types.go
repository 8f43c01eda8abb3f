package watermark

import (
	"errors"
	"time"

	"github.com/ckptsim/ckptsim/core/env"
)

// Env is the part of env.Env the checkpointer uses: the clock (stall and
// registration times) and the mutex behind the issuer-to-checkpointer queue.
// env.Wall and the simulator's world both satisfy it.
type Env interface {
	Now() time.Time
	NewMutex(name string) env.Mutex
}

var _ Env = env.Wall{}

// hit is env.Hit for the checkpointer's Env: it counts probe p when e is
// an env.Prober (the simulator's world) and does nothing otherwise.
func hit(e Env, p env.Probe) {
	if pr, ok := e.(env.Prober); ok {
		pr.Probe(p)
	}
}

// Partition identifies a source partition.
type Partition int32

// Epoch numbers an assignment. Epochs strictly increase; 0 means "no epoch
// begun yet" and tracks nothing.
type Epoch uint64

// BatchID identifies one source poll batch. Seq is local to the issuer that
// created the batch: it counts that issuer's batches for Partition within
// Epoch, starting at 0, and restarts with every epoch.
type BatchID struct {
	Partition Partition
	Epoch     Epoch
	Seq       uint64
}

// Watermark is a committable source position: every offset below Offset has
// been resolved OK (or quarantined) and may be committed.
type Watermark struct {
	Partition Partition
	Offset    int64
}

// Stall is one partition whose watermark is held back by its oldest
// unadvanced batch.
type Stall struct {
	Partition Partition
	// Batch is the head batch: the oldest batch not yet advanced past.
	Batch BatchID
	// LastOffset is the highest offset in Batch.
	LastOffset int64
	// Failed is true when Batch failed: the partition is stalled until the
	// next epoch. False when Batch is still unresolved: a slow sink, or a
	// leaked ack if Since keeps ageing.
	Failed bool
	// Since is when the stall began: for a failed batch, when the failure
	// was first seen at the head; for an unresolved one, when its
	// registration was drained.
	Since time.Time
}

// Quarantined describes a failed batch handed to Options.DeadLetter and
// advanced past.
type Quarantined struct {
	Batch      BatchID
	LastOffset int64
}

// Options configures a Checkpointer. The zero value is the seed's policy:
// no pending ceiling, failed batches stall their partition.
type Options struct {
	// PendingCeiling bounds, per partition, the batches issued in the
	// current epoch and not yet retired by TakeWatermarks. Sources check it
	// with Issuer.AtCeiling at their poll boundary. 0 means no ceiling.
	PendingCeiling int
	// DeadLetter, when non-nil, turns on quarantine: a failed batch that
	// reaches the head of its partition is passed to DeadLetter (on the
	// thread calling TakeWatermarks) and advanced past instead of stalling
	// the partition. Off by default: at-least-once then holds only if the
	// handler stores the batch's records somewhere durable.
	DeadLetter func(Quarantined)
}

// DrainStats counts what one Drain did with the queued messages.
type DrainStats struct {
	// Applied is the number of resolutions applied to a tracker.
	Applied int
	// Stale counts registrations and resolutions discarded because their
	// epoch is not current or their partition is not tracked (normal after
	// BeginEpoch or Revoke).
	Stale int
	// Duplicates counts resolutions for batches already resolved or already
	// advanced past.
	Duplicates int
	// Unknown counts resolutions that never found their registration, even
	// after the second pass: a driver bug.
	Unknown int
}

func (s *DrainStats) add(o DrainStats) {
	s.Applied += o.Applied
	s.Stale += o.Stale
	s.Duplicates += o.Duplicates
	s.Unknown += o.Unknown
}

// Stats are a Checkpointer's counters since New.
type Stats struct {
	// DrainStats sums every Drain.
	DrainStats
	// Drains is the number of Drain calls.
	Drains int
	// Quarantined counts failed batches passed to Options.DeadLetter.
	Quarantined int
	// DoubleResolved counts Done or Fail calls on an ack whose count had
	// already reached zero. They change nothing else.
	DoubleResolved int
	// AddAfterResolve counts Add calls on an already resolved ack. They are
	// refused: the ack is not revived.
	AddAfterResolve int
}

// ErrReadmitted is returned by ExtendEpoch for a partition already admitted
// to the current epoch, live or revoked since. A returning partition needs
// a new epoch.
var ErrReadmitted = errors.New("watermark: partition already admitted to this epoch")

// ErrNoEpoch is returned by ExtendEpoch before the first BeginEpoch.
var ErrNoEpoch = errors.New("watermark: no epoch begun")
