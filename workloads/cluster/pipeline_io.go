// The simulated source and sink of a pipeline, split from pipeline.go.

package cluster

import (
	"slices"
	"time"
)

func (p *Pipeline) source() {
	w, r := p.ps.c.W, p.ps.rnd
	iss := p.cp.NewIssuer()
	period := time.Duration(float64(time.Second) / p.ps.rate)
	for {
		w.Sleep(period/2 + time.Duration(r.Int64N(int64(period)+1))) // mean period
		p.mu.Lock()
		for _, q := range p.assigned {
			if p.ps.stopped {
				break
			}
			if iss.AtCeiling(q) {
				p.ps.Stats.Ceilings++
				continue
			}
			last := p.pos[q] + r.Int64N(maxRecords)
			ack := iss.Issue(q, last)
			serial := p.issued(q, last, ack)
			p.pos[q] = last + 1
			item := sinkItem{ack: ack, serial: serial, due: w.Elapsed() + time.Duration(r.Int64N(int64(sinkMaxDelay)+1))}
			if chance(r, p.ps.c.cfg.Workload.SinkFanout) { // two writes: a second holder, added while the source still holds the ack
				ack.Add(1)
				item.share = &sinkShare{left: 2}
				second := item
				second.due = w.Elapsed() + time.Duration(r.Int64N(int64(sinkMaxDelay)+1))
				p.queue = append(p.queue, second)
			}
			p.queue = append(p.queue, item)
			p.ps.Stats.Batches++
		}
		p.mu.Unlock()
	}
}

func (p *Pipeline) sink() {
	c, r := p.ps.c, p.ps.rnd
	var due []sinkItem
	for {
		c.W.Sleep(sinkTick)
		p.mu.Lock()
		p.held = append(p.held, p.queue...)
		clear(p.queue)
		p.queue = p.queue[:0]
		p.mu.Unlock()
		now := c.W.Elapsed()
		due = due[:0]
		p.held = slices.DeleteFunc(p.held, func(it sinkItem) bool {
			if it.due <= now {
				due = append(due, it)
				return true
			}
			return false
		})
		r.Shuffle(len(due), func(i, j int) { due[i], due[j] = due[j], due[i] })
		for _, it := range due {
			fail := !c.healed && chance(p.ps.flt, c.cfg.Workload.SinkFailure) // this write's share
			failed := fail                                                    // the batch's outcome
			if sh := it.share; sh != nil {
				if sh.left--; sh.left > 0 { // not the last write: its share only, nothing resolves yet
					sh.failed = sh.failed || fail
					if fail {
						it.ack.Fail()
					} else {
						it.ack.Done()
					}
					continue
				}
				failed = fail || sh.failed // the last write: the batch's outcome
			}
			id := it.ack.Batch()
			done := p.invoke(WatermarkOp{Kind: WMResolve, Partition: id.Partition, Epoch: id.Epoch, Seq: id.Seq,
				Last: it.ack.LastOffset(), OK: !failed, Actor: p.sinkActor})
			lose := !p.lost && now >= 5*time.Second &&
				(c.cfg.Workload.PlantLostResolution || c.cfg.Workload.PlantLostFailure && failed && !p.quarantine)
			if failed && !lose {
				p.ps.Stats.Failed++
			}
			switch { // this write's own share: an earlier write's Fail must stick in core
			case lose:
				p.lost = true // the resolution the planted bug loses
			case fail:
				it.ack.Fail()
			default:
				it.ack.Done()
			}
			// Right after Done or Fail returned, with no scheduling point
			// before it: the harness's record of the outcome.
			p.resolved++
			p.observe(PipeObs{Kind: PipeResolved, Serial: it.serial, OK: !failed, Count: p.resolved})
			done()
		}
		clear(due)
	}
}
