package cluster

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/ckptsim/ckptsim/core/coord"
	"github.com/ckptsim/ckptsim/core/env"
	"github.com/ckptsim/ckptsim/core/watermark"
	"github.com/ckptsim/ckptsim/sim"
)

// Pipeline tuning.
const (
	// PendingCeiling is each checkpointer's Options.PendingCeiling: about
	// 13 s of batches at 20/s, so a partition reaches it when its
	// watermark stalls or commits stop.
	PendingCeiling = 256
	// DefaultRebalanceHold is how long a rebalance keeps partitions away.
	DefaultRebalanceHold = 3 * time.Second

	sinkTick     = 100 * time.Millisecond // the sink resolves what is due once a tick
	sinkMaxDelay = 400 * time.Millisecond // a batch is resolved within this of its poll
	maxRecords   = 8                      // records per poll batch: 1..maxRecords offsets
	probeEvery   = time.Second            // the runtime drains and probes stalls this often
	stallGrace   = 2 * time.Second        // a failed stall this old restarts the source
)

// WatermarkOpKind names an operation on a pipeline's offset checkpointer,
// as the watermark model (model.Watermark) records it.
type WatermarkOpKind uint8

// The watermark operations.
const (
	WMBeginEpoch WatermarkOpKind = iota // a partition assigned in Epoch (BeginEpoch or ExtendEpoch)
	WMRevoke                            // a partition revoked mid-epoch, or dropped by a new epoch
	WMResolve                           // a sink resolved a batch (OK: Done, else Fail)
	WMCommit                            // a watermark from TakeWatermarks committed at Offset
	WMQuarantine                        // the DeadLetter callback passed over a failed batch
)

// WatermarkOp is one watermark operation of one partition.
type WatermarkOp struct {
	Kind      WatermarkOpKind
	Job       int64
	Pipeline  int // within the job
	Partition watermark.Partition
	Epoch     watermark.Epoch
	Seq       uint64 // Resolve, Quarantine
	Last      int64  // Resolve, Quarantine: the batch's last offset
	Offset    int64  // Commit: the next offset to read
	OK        bool   // Resolve
	Actor     string // the simulated thread or logical client performing it
}

// PipelineStats count what the pipelines did.
type PipelineStats struct {
	Batches, Failed, Commits, Epochs, Revokes, Extends, Restarts, Quarantined, Ceilings int
}

// Pipelines are the simulated sources, sinks and pipeline runtimes of
// every (job, pipeline), one offset checkpointer (core/watermark) each,
// when Workload.Partitions > 0 (SPEC G, "how it meets the coordinator").
//
// Each pipeline has three threads. The source polls each assigned
// partition at Workload.BatchRate (sleeping between polls, skipping a
// partition that is AtCeiling), issues one ack per batch and hands it to
// the sink. The sink resolves batches after a random delay of up to
// 400 ms, in random order within each 100 ms tick, failing a batch with
// probability Workload.SinkFailure while faults are on. The runtime owns
// the checkpointer: it begins epoch 1 with every partition; on
// notify-complete of task 0 it drains and commits TakeWatermarks; on a
// restore of the coordinator (EvRestored) it begins a new epoch for the
// partitions assigned; it applies rebalances (Cluster.Rebalance); once a
// second it drains and probes StalledPartitions, restarting the source in a
// new epoch when a failed batch has stalled a partition for 2 s (the
// health probe). The head is the oldest batch TakeWatermarks has not
// advanced past, so a failed batch stalls the partition once a commit
// reaches it. The harness hands the checks (workloads/oracle/broker.go) a
// typed record of every call it makes to the checkpointer and of what its
// source, sink, runtime and broker did (PipeObs, pipeline_checks.go): after
// each commit's Drain every partition's watermark must reach the prefix of
// batches the sink resolved OK (and, under quarantine, failed), and a
// failed batch the harness's record puts at a partition's head must show up
// Failed in StalledPartitions within FailedHeadWithin.
// Pipelines with an odd number (job*pipelines+pipeline)
// quarantine failed batches (Options.DeadLetter) instead of stalling.
//
// A new epoch, a re-admission or a restart re-reads each partition from its
// last committed offset (at-least-once). Commits go to a simulated broker,
// whose cheap properties the checks judge from each commit (PipeCommitted):
// a commit is for the current epoch and an assigned partition, never goes
// backwards within an epoch, and never passes what the source has read.
type Pipelines struct {
	c   *Cluster
	All []*Pipeline // job-major
	// OnOp, when set before Start, is called at the start of every
	// watermark operation; it returns the function to call when the
	// operation returns.
	OnOp  func(WatermarkOp) (done func())
	Stats PipelineStats

	rate    float64
	rnd     *rand.Rand
	flt     *rand.Rand
	stopped bool // StopSources: sources poll no more
}

// Pipeline is one pipeline's source, sink and runtime.
type Pipeline struct {
	ps         *Pipelines
	job        int64
	idx        int
	quarantine bool
	cp         *watermark.Checkpointer
	actors     []string // per partition: the runtime's client for that partition's ops
	sinkActor  string

	mu     env.Mutex // guards events, assigned, pos and queue
	wake   env.Cond  // signals events to the runtime
	events []pipeEvent

	assigned []watermark.Partition // sorted; what the source polls
	pos      []int64               // per partition: next offset the source reads
	queue    []sinkItem            // handed from source to sink

	// Runtime only.
	epoch     watermark.Epoch
	admitted  []watermark.Epoch // per partition: last epoch it was admitted to
	committed []int64           // per partition: the broker's committed offset
	dones     []func()
	serial    uint64 // batches the source issued (PipeIssued numbers them)

	// Sink only.
	held []sinkItem
	lost bool // PlantLostResolution, PlantLostFailure: the one resolution dropped
	// resolved counts the outcomes the sink recorded; the runtime reads it
	// before a Drain, so a resolution recorded while that Drain runs (it
	// may have taken the queue already) is not counted as before it.
	resolved uint64
}

type pipeEventKind uint8

const (
	evCommit pipeEventKind = iota
	evRestore
	evRevoke
	evReadmit
)

type pipeEvent struct {
	kind  pipeEventKind
	parts []watermark.Partition
	eager bool // evRevoke: reassign the rest in a new epoch instead of Revoke
}

type sinkItem struct {
	ack    *watermark.Ack
	serial uint64 // the batch's number in PipeIssued
	due    time.Duration
	share  *sinkShare // Workload.SinkFanout: the batch's writes; nil: one
}

// sinkShare is a batch the sink writes twice (Workload.SinkFanout): its
// ack has a holder per write, and the batch resolves with the last.
type sinkShare struct {
	left   int  // writes not resolved yet
	failed bool // an earlier write failed its share
}

// newPipelines returns nil when the workload has no partitions.
func newPipelines(c *Cluster) *Pipelines {
	wl := c.cfg.Workload
	if wl.Partitions <= 0 {
		return nil
	}
	ps := &Pipelines{c: c, rate: wl.BatchRate, rnd: c.W.Rand(sim.StreamPipelines), flt: c.W.Rand(sim.StreamSinkFaults)}
	n := wl.Partitions
	for j := range c.cfg.Jobs {
		for i := range c.cfg.Pipelines {
			p := &Pipeline{ps: ps, job: int64(j), idx: i, quarantine: PipelineID{int64(j), i}.Seq(c.cfg.Pipelines)%2 == 1,
				mu: c.W.NewMutex("sim.pipeline"), pos: make([]int64, n), admitted: make([]watermark.Epoch, n),
				committed: make([]int64, n),
				sinkActor: fmt.Sprintf("sink-%d-%d", j, i)}
			p.wake = c.W.NewCond(p.mu)
			opts := watermark.Options{PendingCeiling: PendingCeiling}
			if p.quarantine {
				opts.DeadLetter = p.deadLetter
			}
			p.cp = watermark.New(c.W, opts)
			for q := range n {
				p.actors = append(p.actors, fmt.Sprintf("wm-%d-%d-%d", j, i, q))
			}
			ps.All = append(ps.All, p)
		}
	}
	return ps
}

// chain returns the coordinator observer that also routes restores to the
// pipelines; obs unchanged without pipelines.
func (ps *Pipelines) chain(obs coord.Observer) coord.Observer {
	if ps == nil {
		return obs
	}
	return func(ev coord.Event) {
		obs(ev)
		if ev.Kind == coord.EvRestored {
			ps.pipe(ev.Job, ev.Pipeline).post(pipeEvent{kind: evRestore})
		}
	}
}

// notify is the notify-complete of a checkpoint reaching a task; task 0
// is the source, which commits its watermarks.
func (ps *Pipelines) notify(job int64, pipeline int, task coord.TaskID) {
	if ps == nil || task != 0 {
		return
	}
	ps.pipe(job, pipeline).post(pipeEvent{kind: evCommit})
}

func (ps *Pipelines) pipe(job int64, pipeline int) *Pipeline {
	return ps.All[PipelineID{job, pipeline}.Seq(ps.c.cfg.Pipelines)]
}

// CheckpointerStats sums the checkpointers' counters.
func (ps *Pipelines) CheckpointerStats() watermark.Stats {
	var t watermark.Stats
	for _, p := range ps.All {
		s := p.cp.Stats()
		t.Applied += s.Applied
		t.Stale += s.Stale
		t.Duplicates += s.Duplicates
		t.Unknown += s.Unknown
		t.Drains += s.Drains
		t.Quarantined += s.Quarantined
		t.DoubleResolved += s.DoubleResolved
		t.AddAfterResolve += s.AddAfterResolve
	}
	return t
}

// SettleAfterStop is how long StopSources must be followed before
// CheckCommitted: the sink resolves what it holds, a stalled partition
// restarts, and two more checkpoints complete and commit.
func (ps *Pipelines) SettleAfterStop() time.Duration {
	co := ps.c.cfg.Coord
	to := co.Timeout
	if to <= 0 {
		to = 30 * time.Second
	}
	return 2*co.Interval + to + stallGrace + probeEvery + sinkMaxDelay + sinkTick
}

// StopSources stops every source's polling (the batches in flight still
// resolve), so that commits can catch up for CheckCommitted.
func (ps *Pipelines) StopSources() {
	if ps == nil {
		return
	}
	ps.c.W.Note("quiesce: sources stopped")
	ps.stopped = true
}

// start launches every pipeline's threads.
func (ps *Pipelines) start() {
	if ps == nil {
		return
	}
	for _, p := range ps.All {
		name := fmt.Sprintf("%d-%d", p.job, p.idx)
		ps.c.W.Go("pipeline-runtime-"+name, p.runtime)
		if ps.rate > 0 { // batch rate 0: sources never poll
			ps.c.W.Go("source-"+name, p.source)
		}
		ps.c.W.Go("sink-"+name, p.sink)
	}
}

// Rebalance takes a random non-empty subset of a random pipeline's
// assigned partitions away and gives them back after hold, as a consumer
// group rebalance does. Cooperatively (half the time) it revokes them
// mid-epoch (Revoke); eagerly it reassigns the others in a new epoch. They
// come back in the current epoch (ExtendEpoch) when none of them was
// admitted to it, else in a new epoch. Without pipelines it does nothing.
func (c *Cluster) Rebalance(r *rand.Rand, hold time.Duration) {
	ps := c.Pipelines
	if ps == nil || len(ps.All) == 0 {
		return
	}
	if hold <= 0 {
		hold = DefaultRebalanceHold
	}
	p := ps.All[r.IntN(len(ps.All))]
	p.mu.Lock()
	var parts []watermark.Partition
	for _, q := range p.assigned {
		if r.IntN(2) == 0 {
			parts = append(parts, q)
		}
	}
	if len(parts) == 0 && len(p.assigned) > 0 {
		parts = append(parts, p.assigned[r.IntN(len(p.assigned))])
	}
	p.mu.Unlock()
	if len(parts) == 0 {
		return
	}
	eager := r.IntN(2) == 0
	c.W.Note("fault: rebalance (eager %v) takes partitions %v of job %d pipeline %d for %v", eager, parts, p.job, p.idx, hold)
	p.post(pipeEvent{kind: evRevoke, parts: parts, eager: eager})
	c.W.Go(fmt.Sprintf("rebalance-%d-%d", p.job, p.idx), func() {
		c.W.Sleep(hold)
		p.post(pipeEvent{kind: evReadmit, parts: parts})
	})
}

func (p *Pipeline) post(ev pipeEvent) {
	p.mu.Lock()
	p.events = append(p.events, ev)
	p.wake.Signal()
	p.mu.Unlock()
}

func (p *Pipeline) invoke(op WatermarkOp) func() {
	f := p.ps.OnOp
	if f == nil {
		return noop
	}
	op.Job, op.Pipeline = p.job, p.idx
	if op.Actor == "" {
		op.Actor = p.actors[op.Partition]
	}
	return f(op)
}

func noop() {}

// invokeEach starts one op of kind per partition, appending to dones.
func (p *Pipeline) invokeEach(dones []func(), kind WatermarkOpKind, parts []watermark.Partition, epoch watermark.Epoch) []func() {
	for _, q := range parts {
		dones = append(dones, p.invoke(WatermarkOp{Kind: kind, Partition: q, Epoch: epoch}))
	}
	return dones
}

func (p *Pipeline) finish(dones []func()) {
	for _, d := range dones {
		d()
	}
	clear(dones)
	p.dones = dones[:0]
}

func (p *Pipeline) runtime() {
	p.mu.Lock()
	all := make([]watermark.Partition, len(p.pos))
	for q := range all {
		all[q] = watermark.Partition(q)
	}
	p.newEpoch(all)
	for {
		for len(p.events) == 0 {
			if p.wake.WaitFor(probeEvery) {
				break
			}
		}
		evs := p.events
		p.events = nil
		for _, ev := range evs {
			switch ev.kind {
			case evCommit:
				p.commit()
			case evRestore:
				p.newEpoch(p.assigned)
			case evRevoke:
				p.revoke(ev.parts, ev.eager)
			case evReadmit:
				p.readmit(ev.parts)
			}
		}
		p.cp.Drain()
		p.probe()
	}
}

// newEpoch begins the next epoch with exactly parts assigned, each read
// again from its committed offset. A partition it drops stops being
// tracked, which the history records as a Revoke. Called with mu held.
func (p *Pipeline) newEpoch(parts []watermark.Partition) {
	parts = slices.Clone(parts)
	slices.Sort(parts)
	dropped := slices.DeleteFunc(slices.Clone(p.assigned), func(q watermark.Partition) bool { return slices.Contains(parts, q) })
	p.epoch++
	p.observe(PipeObs{Kind: PipeEpoch, Epoch: p.epoch})
	dones := p.invokeEach(p.dones[:0], WMRevoke, dropped, p.epoch)
	dones = p.invokeEach(dones, WMBeginEpoch, parts, p.epoch)
	p.cp.BeginEpoch(parts, p.epoch)
	p.finish(dones)
	p.assign(parts)
	p.ps.Stats.Epochs++
}

// assign makes parts (sorted) the source's assignment; the newly admitted
// ones are read from their committed offsets.
func (p *Pipeline) assign(parts []watermark.Partition) {
	for _, q := range parts {
		if p.admitted[q] != p.epoch {
			p.admitted[q] = p.epoch
			p.pos[q] = p.committed[q]
			p.observe(PipeObs{Kind: PipeAdmitted, Epoch: p.epoch, Partition: q, Offset: p.committed[q]})
		}
	}
	p.assigned = parts
}

func (p *Pipeline) revoke(parts []watermark.Partition, eager bool) {
	parts = slices.DeleteFunc(slices.Clone(parts), func(q watermark.Partition) bool { return !slices.Contains(p.assigned, q) })
	if len(parts) == 0 {
		return
	}
	rest := slices.DeleteFunc(slices.Clone(p.assigned), func(q watermark.Partition) bool { return slices.Contains(parts, q) })
	if eager {
		p.newEpoch(rest)
		return
	}
	p.assigned = rest
	for _, q := range parts {
		p.observe(PipeObs{Kind: PipeRevoked, Epoch: p.epoch, Partition: q})
	}
	dones := p.invokeEach(p.dones[:0], WMRevoke, parts, p.epoch)
	p.cp.Revoke(parts)
	p.finish(dones)
	p.ps.Stats.Revokes++
}

func (p *Pipeline) readmit(parts []watermark.Partition) {
	parts = slices.DeleteFunc(slices.Clone(parts), func(q watermark.Partition) bool { return slices.Contains(p.assigned, q) })
	if len(parts) == 0 {
		return
	}
	all := slices.Concat(p.assigned, parts)
	slices.Sort(all)
	fresh := !slices.ContainsFunc(parts, func(q watermark.Partition) bool { return p.admitted[q] == p.epoch })
	if !fresh {
		p.newEpoch(all)
		return
	}
	dones := p.invokeEach(p.dones[:0], WMBeginEpoch, parts, p.epoch)
	err := p.cp.ExtendEpoch(parts)
	p.finish(dones)
	if err != nil {
		p.observe(PipeObs{Kind: PipeExtendRefused, Epoch: p.epoch, Parts: parts, Err: err})
		return
	}
	p.assign(all)
	p.ps.Stats.Extends++
}

// commit is the source's commit on notify-complete.
func (p *Pipeline) commit() {
	before := p.resolved
	p.cp.Drain()
	epoch, marks := p.cp.TakeWatermarks()
	p.observe(PipeObs{Kind: PipeTaken, Epoch: epoch, Current: p.epoch, Marks: marks, Count: before, Parts: p.tracked()})
	for _, m := range marks {
		off := m.Offset
		if p.ps.c.cfg.Workload.PlantCommitPastWatermark {
			off++
		}
		if p.ps.c.cfg.Workload.PlantCommitBehindWatermark && off > 0 {
			off--
		}
		done := p.invoke(WatermarkOp{Kind: WMCommit, Partition: m.Partition, Epoch: epoch, Offset: off})
		p.brokerCommit(epoch, m.Partition, off)
		done()
	}
}

// brokerCommit stores a committed offset; the broker's checks judge it
// (PipeCommitted: workloads/oracle/broker.go) against what the harness
// knows at the call: the runtime's epoch, its assignment and how far the
// source read.
func (p *Pipeline) brokerCommit(epoch watermark.Epoch, q watermark.Partition, off int64) {
	p.observe(PipeObs{Kind: PipeCommitted, Epoch: epoch, Current: p.epoch, Partition: q, Offset: off,
		Assigned: slices.Contains(p.assigned, q), Read: p.pos[q]})
	p.committed[q] = off
	p.ps.Stats.Commits++
}

// tracked lists the partitions assigned and admitted in the current epoch,
// in assignment order.
func (p *Pipeline) tracked() []watermark.Partition {
	var out []watermark.Partition
	for _, q := range p.assigned {
		if p.admitted[q] == p.epoch {
			out = append(out, q)
		}
	}
	return out
}

func (p *Pipeline) deadLetter(q watermark.Quarantined) {
	done := p.invoke(WatermarkOp{Kind: WMQuarantine, Partition: q.Batch.Partition, Epoch: q.Batch.Epoch, Seq: q.Batch.Seq, Last: q.LastOffset})
	p.ps.Stats.Quarantined++
	done()
}

// probe is the health probe: a partition stalled by a failed batch
// restarts the source in a new epoch. Before acting on StalledPartitions
// the harness hands the report to the checks (PipeStalls), which compare
// it with the harness's record of its sink.
func (p *Pipeline) probe() {
	now := sim.Epoch.Add(p.ps.c.W.Elapsed())
	stalls := p.cp.StalledPartitions()
	p.observe(PipeObs{Kind: PipeStalls, Current: p.epoch, Stalls: stalls, Parts: p.tracked()})
	restart := false
	for _, s := range stalls {
		if s.Failed && now.Sub(s.Since) >= stallGrace {
			restart = true
		}
	}
	if restart {
		p.ps.Stats.Restarts++
		p.newEpoch(p.assigned)
	}
}

// ---- what the harness hands the checkpointer and gets back
