// The simulated broker's and runtimes' own assertions about what the
// checkpointer hands them (the watermark-* checks, reported through
// Recorder.Violations), split from pipeline.go.

package cluster

import (
	"fmt"
	"slices"

	"github.com/ckptsim/ckptsim/core/watermark"
)

// CheckCommitted, after StopSources and SettleAfterStop, requires every
// assigned partition's broker offset to be one past the last batch its
// source read (every batch is resolved by then, and faults are off): no
// under-commit, nothing lost. Both sides are the harness's own: the
// source's read position and the simulated broker's committed offset.
func (ps *Pipelines) CheckCommitted() {
	if ps == nil {
		return
	}
	for _, p := range ps.All {
		p.mu.Lock()
		inFlight := len(p.queue) + len(p.held)
		for _, q := range p.assigned {
			if inFlight == 0 && p.committed[q] != p.pos[q] {
				p.violate("watermark-under-commit", "partition %d: the source read up to offset %d and every batch was resolved, but the broker committed %d",
					q, p.pos[q]-1, p.committed[q])
			}
		}
		if inFlight > 0 {
			p.violate("watermark-under-commit", "%d batches still unresolved at quiesce", inFlight)
		}
		p.mu.Unlock()
	}
}

func (p *Pipeline) violate(check, format string, args ...any) {
	c := p.ps.c
	v := Violation{At: c.W.Elapsed(), Check: check, Job: p.job, Pipeline: p.idx, Message: fmt.Sprintf(format, args...)}
	c.Recorder.Violations = append(c.Recorder.Violations, v)
	c.W.Note("violation: %s", v)
}

// ---- runtime

// checkResolved is watermark-leaked-ack's main half, called right after a
// Drain and the TakeWatermarks that returned epoch and marks: for every
// partition assigned in this epoch, the watermark (the one just returned,
// else the latest in this epoch, else the admission offset) must reach one
// past the last offset of the longest prefix of its batches, from its
// admission, that the harness's sink resolved OK before that Drain (under
// quarantine, failed ones too: the DeadLetter callback passes them over).
// A watermark below that lost or held back a resolution the harness made.
// Both sides are harness observations: the sink's Done/Fail calls and the
// watermarks TakeWatermarks returned. Above it is watermark-unread's and
// the watermark model's business. Then it drops the records the watermark
// passed.
func (p *Pipeline) checkResolved(epoch watermark.Epoch, marks []watermark.Watermark, before uint64) {
	if epoch != p.epoch {
		return // watermark-stale-commit's business
	}
	now := p.ps.c.W.Elapsed()
	for _, q := range p.assigned {
		if p.admitted[q] != p.epoch {
			continue
		}
		wm := p.mark[q]
		for _, m := range marks {
			if m.Partition == q {
				wm = m.Offset
			}
		}
		recs := p.recs[q]
		want, n := p.mark[q], 0
		for n < len(recs) && recs[n].n <= before && (recs[n].state == recOK || p.quarantine && recs[n].state == recFailed) {
			want = recs[n].last + 1
			n++
		}
		if wm < want {
			// Once per batch the watermark stops at: the first resolved
			// batch it did not pass is named; those behind it, stuck on
			// the same lost resolution, are not named again.
			stuck := slices.IndexFunc(recs[:n], func(r *batchRec) bool { return r.last >= wm })
			if r := recs[stuck]; !r.reported {
				p.violate("watermark-leaked-ack", "partition %d epoch %d: the sink resolved batch %+v (last offset %d, ok %v) and every batch before it since offset %d (resolved prefix up to offset %d), but after a Drain the watermark is %d",
					q, p.epoch, r.id, r.last, r.state == recOK, p.mark[q], want-1, wm)
			}
			for _, r := range recs[stuck:n] {
				r.reported = true
			}
		}
		i := 0
		for i < len(recs) && recs[i].last < wm {
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
// StalledPartitions the runtime's probe sees once stallGrace + probeEvery
// has passed since t (a Drain runs at least every probeEvery): a
// checkpointer that hides a failure the harness made would let the
// partition stall unnoticed.
func (p *Pipeline) checkFailedHeads(stalls []watermark.Stall) {
	if p.quarantine {
		return
	}
	now := p.ps.c.W.Elapsed()
	for _, q := range p.assigned {
		if p.admitted[q] != p.epoch || len(p.recs[q]) == 0 {
			continue
		}
		r := p.recs[q][0]
		if r.state != recFailed || r.reported || now-max(r.at, p.markAt[q]) < stallGrace+probeEvery {
			continue
		}
		if slices.ContainsFunc(stalls, func(s watermark.Stall) bool { return s.Failed && s.Batch == r.id }) {
			continue
		}
		r.reported = true
		p.violate("watermark-leaked-ack", "partition %d epoch %d: the sink failed batch %+v (last offset %d) at %v and it has been the head since %v (watermark %d), but StalledPartitions does not report it failed at %v",
			q, p.epoch, r.id, r.last, r.at, max(r.at, p.markAt[q]), p.mark[q], now)
	}
}

// issued checks one Issue at the checkpointer's boundary (called with mu
// held, right after Issue returned): the ack names a batch of partition q
// in the epoch the runtime began, never handed out before in that epoch,
// with the last offset the source gave (watermark-misuse); and the source,
// which polls q only while AtCeiling says false, holds at most
// PendingCeiling batches of q issued since its admission and not yet
// retired by a watermark TakeWatermarks returned (watermark-ceiling).
func (p *Pipeline) issued(q watermark.Partition, last int64, ack *watermark.Ack) *batchRec {
	id := ack.Batch()
	if p.idsEpoch != p.epoch {
		clear(p.ids)
		p.idsEpoch = p.epoch
	}
	switch {
	case p.misuseSeen:
	case id.Partition != q || id.Epoch != p.epoch || ack.LastOffset() != last:
		p.misuseSeen = true
		p.violate("watermark-misuse", "Issue(partition %d, last offset %d) in epoch %d returned an ack for %+v with last offset %d",
			q, last, p.epoch, id, ack.LastOffset())
	case p.ids[id]:
		p.misuseSeen = true
		p.violate("watermark-misuse", "Issue(partition %d, last offset %d) in epoch %d returned batch %+v, already handed out in this epoch",
			q, last, p.epoch, id)
	}
	p.ids[id] = true
	if p.issuedEpoch[q] != id.Epoch {
		p.issuedEpoch[q] = id.Epoch
		p.unretired[q] = p.unretired[q][:0]
	}
	p.unretired[q] = append(p.unretired[q], last)
	rec := &batchRec{id: id, last: last}
	if p.admitted[q] == p.epoch && slices.Contains(p.assigned, q) {
		p.recs[q] = append(p.recs[q], rec)
	}
	if n := len(p.unretired[q]); n > PendingCeiling && !p.ceilingSeen {
		p.ceilingSeen = true
		p.violate("watermark-ceiling", "partition %d: the source polled (AtCeiling said false) with %d batches issued in epoch %d and not retired by a watermark, ceiling %d",
			q, n-1, id.Epoch, PendingCeiling)
	}
	return rec
}

// retire drops the batches a watermark TakeWatermarks returned has passed
// (each batch's last offset below it), for the epoch they were issued in.
func (p *Pipeline) retire(epoch watermark.Epoch, q watermark.Partition, off int64) {
	if int(q) >= len(p.unretired) || p.issuedEpoch[q] != epoch {
		return
	}
	u := p.unretired[q]
	i := 0
	for i < len(u) && u[i] < off {
		i++
	}
	p.unretired[q] = append(u[:0], u[i:]...)
}

// ---- source and sink
