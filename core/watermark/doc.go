// Package watermark is the offset checkpointer: it turns asynchronous,
// out-of-order batch acknowledgements into per-partition committable source
// offsets. It ports spate's checkpoint module (spate-etl/spate,
// crates/spate-core/src/checkpoint) to Go.
//
// # Roles and threads
//
// The pipeline runtime owns the Checkpointer and calls it from one thread
// only. Each pipeline thread owns an Issuer (Checkpointer.NewIssuer) and
// issues one Ack per source poll batch:
//
//	if issuer.AtCeiling(p) { skip p this round }  // poll boundary
//	recs, last := source.Poll(p)
//	ack := issuer.Issue(p, last)                  // registration queued first
//	ack.Add(len(recs) - 1)                        // one holder per record
//	for _, r := range recs { sink.Send(r, ack) }  // sinks call ack.Done / ack.Fail, in any order
//
// and the runtime periodically runs
//
//	cp.Drain()
//	epoch, marks := cp.TakeWatermarks()           // commit marks, fenced by epoch
//
// Issuing and resolving never block on capacity: registrations and
// resolutions go into an unbounded queue (a slice under the leaf mutex
// "watermark.queue" from the Env), so an ack can never wait behind data,
// the property that keeps backpressure deadlock-free.
//
// # Batches and epochs
//
// A batch is identified by (partition, epoch, sequence). Sequences are local
// to an issuer and count its batches per partition, restarting at 0 in each
// epoch, so a partition must be issued from exactly one Issuer per epoch
// (a gap in a partition's sequences is a programming error: Drain panics).
// BeginEpoch starts a strictly greater epoch with a fresh tracker per
// assigned partition (a smaller or equal epoch panics); ExtendEpoch adds
// partitions to the current epoch and refuses one already admitted to it,
// live or revoked; Revoke stops tracking partitions mid-epoch. Registrations
// and resolutions of another epoch or of an untracked partition are counted
// as stale and discarded: they never move a watermark.
//
// # Watermarks
//
// A partition's watermark is one past the last offset of its longest prefix
// of batches resolved OK, in sequence order. TakeWatermarks returns the
// watermarks that moved since the previous call, sorted by partition,
// together with the epoch they belong to; it returns nothing new until new
// progress. Watermarks of one partition strictly increase within an epoch.
//
// # Failures and stalls
//
// A batch fails if any holder calls Fail. By default a failed batch at the
// head of its partition stalls that partition's watermark until the next
// epoch, and StalledPartitions reports it with the time the stall began.
// With Options.DeadLetter set, the failed batch is instead handed to the
// handler and advanced past (quarantine).
//
// # Leaked and double-resolved acks
//
// Go has no destructor to resolve a forgotten ack. An ack that is never
// resolved keeps its batch pending: it holds the partition's watermark,
// counts in Pending, and its batch is the head reported by
// StalledPartitions (Failed false) with the time its registration was
// drained, so an ageing unresolved head is the visible sign of a leak.
// Resolving an ack more often than it has holders is counted in
// Stats.DoubleResolved and otherwise ignored; Add on a resolved ack is
// counted in Stats.AddAfterResolve and refused. Neither crashes.
//
// # Backpressure
//
// Pending and MaxPending give the batches registered and not yet advanced
// past. With Options.PendingCeiling set, Issuer.AtCeiling tells a source
// to skip polling a partition that has that many batches issued in the
// current epoch and not yet retired by TakeWatermarks.
//
// # Cost
//
// Each partition's batches sit in a ring indexed by sequence, so applying a
// resolution is one slot write however far out of order it arrives, and
// TakeWatermarks costs O(partitions + batches retired).
package watermark
