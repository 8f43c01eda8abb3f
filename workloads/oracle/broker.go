package oracle

import (
	"fmt"
	"slices"
	"time"

	"github.com/ckptsim/ckptsim/core/watermark"
	"github.com/ckptsim/ckptsim/workloads/cluster"
)

// Broker holds the checks of the harness's pipelines (the watermark-*
// checks but the model's and watermark-progress): the simulated broker's
// cheap properties (watermark-stale-commit, -unassigned-commit,
// -backwards, -unread), the runtime's re-admissions (watermark-extend),
// the harness's sink record against the watermarks TakeWatermarks returns
// and the stalls StalledPartitions reports (watermark-leaked-ack), what the
// source handed the checkpointer and got back (watermark-misuse,
// watermark-ceiling), and the committed offsets at quiesce
// (watermark-under-commit). They judge from the pipelines' observations
// (cluster.PipeObs): the calls the harness made to the offset
// checkpointer with their results, and its own source, sink, runtime and
// broker, each recorded at the call; never from the checkpointer's Stats.
type Broker struct {
	f   *Findings
	now func() time.Duration
	// Note, when set, writes each finding into the run's trace as the
	// broker's own line did ("violation: <at> job J pipeline P: check:
	// message"): the trace hash counts it.
	Note  func(format string, args ...any)
	pipes map[cluster.PipelineID]*brokerPipe
}

// NewBroker returns the pipeline checks, reporting to f.
func NewBroker(f *Findings, now func() time.Duration) *Broker {
	return &Broker{f: f, now: now, pipes: map[cluster.PipelineID]*brokerPipe{}}
}

// Attach subscribes the checks to a cluster's pipeline observations.
func (b *Broker) Attach(c View) { c.OnPipeline(b.Observe) }

// brokerPipe is one pipeline's record.
type brokerPipe struct {
	b        *Broker
	job      int64
	pipeline int
	epoch    watermark.Epoch // the runtime's epoch, as PipeEpoch said
	admitted map[watermark.Partition]watermark.Epoch

	// The broker: per partition, its committed offset and the epoch of the
	// last commit.
	committed map[watermark.Partition]int64
	lastEpoch map[watermark.Partition]watermark.Epoch

	// What the harness's sink resolved (watermark-leaked-ack): per
	// partition, the batches issued since its admission in the current
	// epoch and not passed by a watermark TakeWatermarks returned, in issue
	// order; the latest such watermark in this epoch, else the admission
	// offset; and when it was set. bySerial finds a tracked batch's record.
	recs     map[watermark.Partition][]*batchRec
	mark     map[watermark.Partition]int64
	markAt   map[watermark.Partition]time.Duration
	bySerial map[uint64]*batchRec

	// What the harness handed the checkpointer and got back
	// (watermark-ceiling, watermark-misuse): per partition, the last
	// offsets of the batches issued since the partition was last admitted,
	// oldest first, and the epoch they were issued in; the batch ids Issue
	// returned in the current epoch.
	unretired   map[watermark.Partition][]int64
	issuedEpoch map[watermark.Partition]watermark.Epoch
	ids         map[watermark.BatchID]bool
	idsEpoch    watermark.Epoch
	ceilingSeen bool
	misuseSeen  bool
}

// batchRec is the harness's record of one batch: its id and last offset
// from Issue, and the outcome the sink gave it, recorded right after Done
// or Fail returned (so a Drain that runs before the record is made has
// seen the resolution queued, or not, but never a recorded one it missed).
type batchRec struct {
	id       watermark.BatchID
	serial   uint64 // the harness's number for it (PipeIssued)
	last     int64
	state    recState
	at       time.Duration // when the sink's resolution returned
	n        uint64        // the sink's count of recorded resolutions, this one included
	reported bool          // watermark-leaked-ack named it already
}

type recState uint8

const (
	recPending recState = iota
	recOK
	recFailed
)

func (b *Broker) pipe(o cluster.PipeObs) *brokerPipe {
	k := cluster.PipelineID{Job: o.Job, Pipeline: o.Pipeline}
	p := b.pipes[k]
	if p == nil {
		p = &brokerPipe{b: b, job: o.Job, pipeline: o.Pipeline, admitted: map[watermark.Partition]watermark.Epoch{},
			committed: map[watermark.Partition]int64{}, lastEpoch: map[watermark.Partition]watermark.Epoch{},
			recs: map[watermark.Partition][]*batchRec{}, mark: map[watermark.Partition]int64{},
			markAt: map[watermark.Partition]time.Duration{}, bySerial: map[uint64]*batchRec{},
			unretired: map[watermark.Partition][]int64{}, issuedEpoch: map[watermark.Partition]watermark.Epoch{},
			ids: map[watermark.BatchID]bool{}}
		b.pipes[k] = p
	}
	return p
}

// Observe records one pipeline observation.
func (b *Broker) Observe(o cluster.PipeObs) {
	p := b.pipe(o)
	switch o.Kind {
	case cluster.PipeEpoch:
		p.epoch = o.Epoch
	case cluster.PipeAdmitted:
		q := o.Partition
		p.admitted[q] = o.Epoch
		p.unretired[q] = p.unretired[q][:0]
		p.dropRecs(q)
		p.mark[q], p.markAt[q] = o.Offset, b.now()
	case cluster.PipeRevoked:
		p.unretired[o.Partition] = p.unretired[o.Partition][:0] // no longer tracked: its batches are not pending
		p.dropRecs(o.Partition)                                 // nor checked
	case cluster.PipeExtendRefused:
		p.violate(WatermarkExtend, "ExtendEpoch%v refused in epoch %d: %v", o.Parts, o.Epoch, o.Err)
	case cluster.PipeIssued:
		p.issued(o)
	case cluster.PipeResolved:
		if r := p.bySerial[o.Serial]; r != nil {
			r.state, r.at, r.n = recOK, b.now(), o.Count
			if !o.OK {
				r.state = recFailed
			}
		}
	case cluster.PipeTaken:
		p.checkResolved(o)
		for _, m := range o.Marks {
			p.retire(o.Epoch, m.Partition, m.Offset)
		}
	case cluster.PipeCommitted:
		p.commit(o)
	case cluster.PipeStalls:
		p.checkFailedHeads(o)
	case cluster.PipeQuiesced:
		p.checkCommitted(o)
	}
}

func (p *brokerPipe) violate(check, format string, args ...any) {
	at, msg := p.b.now(), fmt.Sprintf(format, args...)
	p.b.f.Add(check, at, Subject(p.job, p.pipeline), "%s", msg)
	if p.b.Note != nil {
		p.b.Note("violation: %v job %d pipeline %d: %s: %s", at, p.job, p.pipeline, check, msg)
	}
}

// dropRecs forgets partition q's batch records.
func (p *brokerPipe) dropRecs(q watermark.Partition) {
	for _, r := range p.recs[q] {
		p.forget(r)
	}
	p.recs[q] = p.recs[q][:0]
}

func (p *brokerPipe) forget(r *batchRec) { delete(p.bySerial, r.serial) }

// commit is the broker's cheap properties, judged at each commit it
// receives: a commit is for the runtime's current epoch and an assigned
// partition, never goes backwards within an epoch, and never passes what
// the source read.
func (p *brokerPipe) commit(o cluster.PipeObs) {
	q, off, epoch := o.Partition, o.Offset, o.Epoch
	switch {
	case epoch != o.Current:
		p.violate(WatermarkStaleCommit, "partition %d committed %d for epoch %d in epoch %d", q, off, epoch, o.Current)
	case !o.Assigned:
		p.violate(WatermarkUnassignedCommit, "partition %d committed %d in epoch %d while not assigned", q, off, epoch)
	case p.lastEpoch[q] == epoch && off < p.committed[q]:
		p.violate(WatermarkBackwards, "partition %d committed %d after %d in epoch %d", q, off, p.committed[q], epoch)
	case off > o.Read:
		p.violate(WatermarkUnread, "partition %d committed %d but the source read only up to %d", q, off, o.Read)
	}
	p.committed[q], p.lastEpoch[q] = off, epoch
}

// checkCommitted is watermark-under-commit: after StopSources and
// SettleAfterStop every assigned partition's broker offset is one past the
// last batch its source read (every batch is resolved by then, and faults
// are off): no under-commit, nothing lost.
func (p *brokerPipe) checkCommitted(o cluster.PipeObs) {
	for i, q := range o.Parts {
		if o.InFlight == 0 && o.Committed[i] != o.Reads[i] {
			p.violate(WatermarkUnderCommit, "partition %d: the source read up to offset %d and every batch was resolved, but the broker committed %d",
				q, o.Reads[i]-1, o.Committed[i])
		}
	}
	if o.InFlight > 0 {
		p.violate(WatermarkUnderCommit, "%d batches still unresolved at quiesce", o.InFlight)
	}
}

// checkResolved is watermark-leaked-ack's main half, at each Drain and the
// TakeWatermarks that returned epoch and marks: for every partition
// assigned and admitted in this epoch, the watermark (the one just
// returned, else the latest in this epoch, else the admission offset) must
// reach one past the last offset of the longest prefix of its batches,
// from its admission, that the harness's sink resolved OK before that
// Drain (under quarantine, failed ones too: the DeadLetter callback passes
// them over). A watermark below that lost or held back a resolution the
// harness made. Above it is watermark-unread's and the watermark model's
// business. Then it drops the records the watermark passed.
func (p *brokerPipe) checkResolved(o cluster.PipeObs) {
	if o.Epoch != o.Current {
		return // watermark-stale-commit's business
	}
	now := p.b.now()
	for _, q := range o.Parts {
		wm := p.mark[q]
		for _, m := range o.Marks {
			if m.Partition == q {
				wm = m.Offset
			}
		}
		recs := p.recs[q]
		want, n := p.mark[q], 0
		for n < len(recs) && recs[n].n <= o.Count && (recs[n].state == recOK || o.Quarantine && recs[n].state == recFailed) {
			want = recs[n].last + 1
			n++
		}
		if wm < want {
			// Once per batch the watermark stops at: the first resolved
			// batch it did not pass is named; those behind it, stuck on
			// the same lost resolution, are not named again.
			stuck := slices.IndexFunc(recs[:n], func(r *batchRec) bool { return r.last >= wm })
			if stuck < 0 {
				// Below the last mark with no resolved batch behind it: the
				// watermark moved backwards, watermark-backwards' business
				// (indexing here crashed the run: watermark-moved-always).
				stuck = n
			} else if r := recs[stuck]; !r.reported {
				p.violate(WatermarkLeakedAck, "partition %d epoch %d: the sink resolved batch %+v (last offset %d, ok %v) and every batch before it since offset %d (resolved prefix up to offset %d), but after a Drain the watermark is %d",
					q, o.Current, r.id, r.last, r.state == recOK, p.mark[q], want-1, wm)
			}
			for _, r := range recs[stuck:n] {
				r.reported = true
			}
		}
		i := 0
		for i < len(recs) && recs[i].last < wm {
			p.forget(recs[i])
			i++
		}
		p.recs[q] = append(recs[:0], recs[i:]...)
		clear(recs[len(recs)-i:])
		if wm != p.mark[q] {
			p.mark[q], p.markAt[q] = wm, now
		}
	}
}

// checkFailedHeads is watermark-leaked-ack's other half, for pipelines
// without quarantine: a batch the harness's sink failed that, by the
// harness's record, is its partition's head (every batch before it passed
// by a returned watermark) since t must be reported Failed by the
// StalledPartitions the runtime's probe sees once FailedHeadWithin has
// passed since t: a checkpointer that hides a failure the harness made
// would let the partition stall unnoticed.
func (p *brokerPipe) checkFailedHeads(o cluster.PipeObs) {
	if o.Quarantine {
		return
	}
	now := p.b.now()
	for _, q := range o.Parts {
		if len(p.recs[q]) == 0 {
			continue
		}
		r := p.recs[q][0]
		if r.state != recFailed || r.reported || now-max(r.at, p.markAt[q]) < cluster.FailedHeadWithin {
			continue
		}
		if slices.ContainsFunc(o.Stalls, func(s watermark.Stall) bool { return s.Failed && s.Batch == r.id }) {
			continue
		}
		r.reported = true
		p.violate(WatermarkLeakedAck, "partition %d epoch %d: the sink failed batch %+v (last offset %d) at %v and it has been the head since %v (watermark %d), but StalledPartitions does not report it failed at %v",
			q, o.Current, r.id, r.last, r.at, max(r.at, p.markAt[q]), p.mark[q], now)
	}
}

// issued checks one Issue at the checkpointer's boundary: the ack names a
// batch of partition q in the epoch the runtime began, never handed out
// before in that epoch, with the last offset the source gave
// (watermark-misuse); and the source, which polls q only while AtCeiling
// says false, holds at most cluster.PendingCeiling batches of q issued
// since its admission and not yet retired by a watermark TakeWatermarks
// returned (watermark-ceiling).
func (p *brokerPipe) issued(o cluster.PipeObs) {
	q, last, id := o.Partition, o.Last, o.Batch
	if p.idsEpoch != o.Current {
		clear(p.ids)
		p.idsEpoch = o.Current
	}
	switch {
	case p.misuseSeen:
	case id.Partition != q || id.Epoch != o.Current || o.AckLast != last:
		p.misuseSeen = true
		p.violate(WatermarkMisuse, "Issue(partition %d, last offset %d) in epoch %d returned an ack for %+v with last offset %d",
			q, last, o.Current, id, o.AckLast)
	case p.ids[id]:
		p.misuseSeen = true
		p.violate(WatermarkMisuse, "Issue(partition %d, last offset %d) in epoch %d returned batch %+v, already handed out in this epoch",
			q, last, o.Current, id)
	}
	p.ids[id] = true
	if p.issuedEpoch[q] != id.Epoch {
		p.issuedEpoch[q] = id.Epoch
		p.unretired[q] = p.unretired[q][:0]
	}
	p.unretired[q] = append(p.unretired[q], last)
	if o.Tracked {
		r := &batchRec{id: id, serial: o.Serial, last: last}
		p.recs[q] = append(p.recs[q], r)
		p.bySerial[o.Serial] = r
	}
	if n := len(p.unretired[q]); n > cluster.PendingCeiling && !p.ceilingSeen {
		p.ceilingSeen = true
		p.violate(WatermarkCeiling, "partition %d: the source polled (AtCeiling said false) with %d batches issued in epoch %d and not retired by a watermark, ceiling %d",
			q, n-1, id.Epoch, cluster.PendingCeiling)
	}
}

// retire drops the batches a watermark TakeWatermarks returned has passed
// (each batch's last offset below it), for the epoch they were issued in.
func (p *brokerPipe) retire(epoch watermark.Epoch, q watermark.Partition, off int64) {
	if p.issuedEpoch[q] != epoch {
		return
	}
	u := p.unretired[q]
	i := 0
	for i < len(u) && u[i] < off {
		i++
	}
	p.unretired[q] = append(u[:0], u[i:]...)
}
