// What the harness's pipelines hand the checks (the watermark-* checks of
// workloads/oracle/broker.go): typed observations of what the source handed
// the offset checkpointer and got back, what the sink resolved, what the
// runtime took and committed to the simulated broker, each recorded at the
// call with the harness's own facts at that moment.

package cluster

import (
	"slices"

	"github.com/ckptsim/ckptsim/core/watermark"
)

// FailedHeadWithin is how long after a failed batch became its partition's
// head StalledPartitions must report it Failed: the stall grace and one
// probe period (a Drain runs at least every probeEvery).
const FailedHeadWithin = stallGrace + probeEvery

// PipeObsKind names a pipeline observation.
type PipeObsKind uint8

// The pipeline observations.
const (
	PipeEpoch         PipeObsKind = iota // the runtime began Epoch (before BeginEpoch)
	PipeAdmitted                         // Partition admitted in the runtime's Epoch, read again from Offset (its committed offset)
	PipeRevoked                          // Partition revoked mid-epoch (Revoke): its batches are tracked no more
	PipeExtendRefused                    // ExtendEpoch(Parts) returned Err in the runtime's Epoch
	PipeIssued                           // the source's Issue(Partition, Last) returned an ack for Batch with AckLast; Serial numbers it
	PipeResolved                         // the sink's Done (OK) or Fail of batch Serial returned; Count: outcomes recorded, this one included
	PipeTaken                            // after a Drain, TakeWatermarks returned Epoch and Marks; Count: outcomes recorded before that Drain
	PipeCommitted                        // the broker received Offset for Partition in Epoch
	PipeStalls                           // StalledPartitions returned Stalls (the runtime's probe)
	PipeQuiesced                         // sources stopped and settled: InFlight batches unresolved; Read and Committed per partition of Parts
)

// PipeObs is one pipeline observation. Current is the runtime's epoch at
// the call; Parts (PipeTaken, PipeStalls) the partitions assigned and
// admitted in it, in assignment order.
type PipeObs struct {
	Kind       PipeObsKind
	Job        int64
	Pipeline   int
	Quarantine bool // the pipeline passes failed batches over (Options.DeadLetter)
	Epoch      watermark.Epoch
	Current    watermark.Epoch
	Partition  watermark.Partition
	Parts      []watermark.Partition
	Last       int64 // PipeIssued: the last offset the source gave
	AckLast    int64 // PipeIssued: the ack's LastOffset
	Batch      watermark.BatchID
	Tracked    bool // PipeIssued: the partition is assigned and admitted in Current
	Serial     uint64
	OK         bool
	Count      uint64
	Offset     int64
	Assigned   bool  // PipeCommitted: the partition is assigned
	Read       int64 // PipeCommitted: the next offset the source reads
	Marks      []watermark.Watermark
	Stalls     []watermark.Stall
	Err        error
	InFlight   int
	Reads      []int64 // PipeQuiesced: per partition of Parts, the next offset the source reads
	Committed  []int64 // PipeQuiesced: per partition of Parts, the broker's committed offset
}

// OnPipeline subscribes f to the pipelines' observations, synchronously on
// the simulated thread that made the call. Subscribe before Start.
func (c *Cluster) OnPipeline(f func(PipeObs)) { c.onPipe = append(c.onPipe, f) }

func (p *Pipeline) observe(o PipeObs) {
	c := p.ps.c
	o.Job, o.Pipeline, o.Quarantine = p.job, p.idx, p.quarantine
	for _, f := range c.onPipe {
		f(o)
	}
}

// issued hands one Issue to the checks (called with mu held, right after
// Issue returned) and returns the batch's number.
func (p *Pipeline) issued(q watermark.Partition, last int64, ack *watermark.Ack) uint64 {
	p.serial++
	p.observe(PipeObs{Kind: PipeIssued, Current: p.epoch, Partition: q, Last: last, Batch: ack.Batch(), AckLast: ack.LastOffset(),
		Tracked: p.admitted[q] == p.epoch && slices.Contains(p.assigned, q), Serial: p.serial})
	return p.serial
}

// CheckCommitted, after StopSources and SettleAfterStop, hands the checks
// each pipeline's batches still unresolved and, per assigned partition, the
// source's read position and the broker's committed offset (PipeQuiesced:
// watermark-under-commit). Both sides are the harness's own.
func (ps *Pipelines) CheckCommitted() {
	if ps == nil {
		return
	}
	for _, p := range ps.All {
		p.mu.Lock()
		o := PipeObs{Kind: PipeQuiesced, Current: p.epoch, InFlight: len(p.queue) + len(p.held), Parts: slices.Clone(p.assigned)}
		for _, q := range p.assigned {
			o.Reads = append(o.Reads, p.pos[q])
			o.Committed = append(o.Committed, p.committed[q])
		}
		p.observe(o)
		p.mu.Unlock()
	}
}
