package linearizability

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/ckptsim/ckptsim/model"
)

// synthConfig shapes a synthetic legal run like the simulator's: per
// pipeline one checkpoint per interval, a few partitions with two sinks
// each resolving batches out of order, a few restores that start new
// epochs and generations, stale expiries that are dropped, completions cut
// by a failover, and savepoints per job.
type synthConfig struct {
	Pipelines  int
	Partitions int           // per pipeline
	Span       time.Duration // simulated time
	Interval   time.Duration // checkpoint interval
	Restores   int           // per pipeline over the span
	JobSize    int           // pipelines per job
	Seed       uint64
}

func hourConfig(pipelines int) synthConfig {
	return synthConfig{Pipelines: pipelines, Partitions: 3, Span: time.Hour, Interval: 10 * time.Second,
		Restores: 2, JobSize: 5, Seed: 1}
}

type synthRun struct {
	histories map[string][]porcupine.Operation // by model name
}

func (r synthRun) ops() int {
	n := 0
	for _, h := range r.histories {
		n += len(h)
	}
	return n
}

// synth generates one run. Client ids: 8 per pipeline, by role.
func synth(cfg synthConfig) synthRun {
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x5eed))
	run := synthRun{histories: map[string][]porcupine.Operation{}}
	checkpoints := int(cfg.Span / cfg.Interval)
	for p := range cfg.Pipelines {
		restores := restorePoints(rng, checkpoints, cfg.Restores)
		g := &synthPipeline{cfg: cfg, rng: rng, p: p, restores: restores, checkpoints: checkpoints}
		g.coordinator(run.histories)
		for q := range cfg.Partitions {
			run.histories["watermark"] = g.watermark(run.histories["watermark"], q)
		}
	}
	for j := 0; j*cfg.JobSize < cfg.Pipelines; j++ {
		run.histories["savepoints"] = synthSavepoints(run.histories["savepoints"], rng, j, cfg.Span)
	}
	return run
}

// restorePoints picks the checkpoints after which a restore happens.
func restorePoints(rng *rand.Rand, checkpoints, n int) map[int]bool {
	m := map[int]bool{}
	for len(m) < n && len(m) < checkpoints-2 {
		m[1+rng.IntN(checkpoints-2)] = true
	}
	return m
}

type synthPipeline struct {
	cfg         synthConfig
	rng         *rand.Rand
	p           int
	restores    map[int]bool
	checkpoints int
}

const (
	roleCoord = iota
	roleTimer
	roleMaster
	roleMonitor
	roleSinkA
	roleSinkB
	roleRuntime
	roleCut
)

func (g *synthPipeline) client(role int) int { return g.p*8 + role }

func (g *synthPipeline) op(role int, call, ret time.Duration, in, out any) porcupine.Operation {
	r := int64(ret)
	if ret < 0 {
		r, out = math.MaxInt64, model.Unknown{}
	}
	return porcupine.Operation{ClientId: g.client(role), Input: in, Call: int64(call), Output: out, Return: r}
}

// coordinator emits the generation and register histories of one pipeline.
func (g *synthPipeline) coordinator(h map[string][]porcupine.Operation) {
	gen, id, latest := int64(0), int64(0), int64(0)
	gh, rh := h["generation"], h["register"]
	for k := range g.checkpoints {
		t := time.Duration(k) * g.cfg.Interval
		id++
		gh = append(gh, g.op(roleCoord, t, t+50*time.Microsecond, model.Trigger{Pipeline: g.p, Gen: gen, ID: id},
			model.TriggerResult{Started: true}))
		done := t + time.Duration(300+g.rng.IntN(600))*time.Millisecond
		if g.restores[k] {
			// A failover cuts completion id; the restore reads what is stored.
			rh = append(rh, g.op(roleCut, done-100*time.Millisecond, -1, model.Complete{Pipeline: g.p, ID: id}, nil))
			if g.rng.IntN(2) == 0 {
				latest = id
			}
			r := t + 5*time.Second
			gh = append(gh, g.op(roleMaster, r, r+2*time.Millisecond, model.Restore{Pipeline: g.p, NewGen: gen + 1}, nil))
			rh = append(rh, g.op(roleMaster, r+time.Millisecond, r+2*time.Millisecond, model.ReadLatest{Pipeline: g.p},
				model.ReadResult{ID: latest}))
			gh = append(gh, g.op(roleTimer, r+3*time.Millisecond, r+3*time.Millisecond+10*time.Microsecond,
				model.Effect{Pipeline: g.p, Armed: gen, Kind: "expiry", ID: id}, model.EffectResult{}))
			gen, id = gen+1, latest
			continue
		}
		rh = append(rh, g.op(roleCoord, done-100*time.Millisecond, done, model.Complete{Pipeline: g.p, ID: id}, nil))
		latest = id
		e := t + 5*time.Second
		gh = append(gh, g.op(roleTimer, e, e+10*time.Microsecond,
			model.Effect{Pipeline: g.p, Armed: gen, Kind: "expiry", ID: id}, model.EffectResult{}))
		if k%6 == 0 {
			s := t + 7*time.Second
			gh = append(gh, g.op(roleMonitor, s, s+5*time.Microsecond, model.ReadGen{Pipeline: g.p},
				model.ReadGenResult{Gen: gen}))
		}
	}
	h["generation"], h["register"] = gh, rh
}

// watermark emits one partition's history: two or three batches per
// interval resolved by two sinks with random latency, one commit per
// checkpoint of what was resolved before it, a new epoch at each restore
// (offsets redelivered from the last commit), and rare failed batches that
// stall the partition until the next epoch.
func (g *synthPipeline) watermark(h []porcupine.Operation, q int) []porcupine.Operation {
	w := &synthPartition{g: g, q: q, epoch: 1, committable: -1, committed: -1}
	h = append(h, g.op(roleRuntime, 0, time.Microsecond, model.BeginEpoch{Pipeline: g.p, Partition: q, Epoch: 1}, nil))
	for k := range g.checkpoints {
		t := time.Duration(k) * g.cfg.Interval
		h = w.interval(h, t)
		if g.restores[k] {
			h = w.newEpoch(h, t+9950*time.Millisecond)
		}
	}
	return h
}

type synthPartition struct {
	g                      *synthPipeline
	q                      int
	epoch, seq, offset     int64
	next                   int64 // first sequence not in the OK prefix
	committable, committed int64
	stalled                bool
	resolved               []synthBatch // resolved, not yet in the prefix
}

type synthBatch struct {
	seq, last int64
	ok        bool
	ret       time.Duration
}

func (w *synthPartition) interval(h []porcupine.Operation, t time.Duration) []porcupine.Operation {
	g := w.g
	var batches []synthBatch
	for b := range 2 + g.rng.IntN(2) {
		issued := t + time.Duration(b*3000+g.rng.IntN(2000))*time.Millisecond
		call := issued + time.Duration(5+g.rng.IntN(400))*time.Millisecond
		last := w.offset + int64(1+g.rng.IntN(100))
		bt := synthBatch{seq: w.seq, last: last, ok: g.rng.IntN(500) != 0, ret: call + 20*time.Microsecond}
		w.seq, w.offset = w.seq+1, last+1
		h = append(h, g.op(roleSinkA+b%2, call, bt.ret, model.Resolve{Pipeline: g.p, Partition: w.q,
			Epoch: w.epoch, Seq: bt.seq, Last: bt.last, OK: bt.ok}, nil))
		batches = append(batches, bt)
	}
	commit := t + 9*time.Second + time.Duration(g.rng.IntN(900))*time.Millisecond
	w.absorb(batches, commit)
	if w.committable > w.committed {
		w.committed = w.committable
		h = append(h, g.op(roleCoord, commit, commit+time.Millisecond, model.CommitOffset{Pipeline: g.p,
			Partition: w.q, Epoch: w.epoch, Offset: w.committed}, nil))
	}
	return h
}

// absorb advances the prefix over batches that returned before the commit.
func (w *synthPartition) absorb(batches []synthBatch, commit time.Duration) {
	w.resolved = append(w.resolved, batches...)
	for !w.stalled && len(w.resolved) > 0 {
		b := w.resolved[0] // batches are issued, hence kept, in sequence order
		if b.seq != w.next || b.ret >= commit {
			return
		}
		if !b.ok {
			w.stalled = true
			return
		}
		w.committable, w.next, w.resolved = b.last+1, w.next+1, w.resolved[1:]
	}
}

func (w *synthPartition) newEpoch(h []porcupine.Operation, t time.Duration) []porcupine.Operation {
	g := w.g
	w.epoch++
	h = append(h, g.op(roleRuntime, t, t+time.Microsecond, model.BeginEpoch{Pipeline: g.p, Partition: w.q, Epoch: w.epoch}, nil))
	// A batch of the old epoch resolves late and is discarded as stale.
	h = append(h, g.op(roleSinkB, t+2*time.Microsecond, t+3*time.Microsecond, model.Resolve{Pipeline: g.p,
		Partition: w.q, Epoch: w.epoch - 1, Seq: w.seq, Last: w.offset + 10, OK: true}, nil))
	w.seq, w.next, w.stalled, w.resolved = 0, 0, false, nil
	w.offset = max(w.committed, 0)
	w.committable, w.committed = -1, -1
	return h
}

// synthSavepoints emits one job's savepoints: one every ten minutes, a list
// after each, the oldest deleted when more than three are kept.
func synthSavepoints(h []porcupine.Operation, rng *rand.Rand, job int, span time.Duration) []porcupine.Operation {
	var kept model.SavepointIDs
	client := 1_000_000 + job*2
	op := func(c int, at time.Duration, in, out any) porcupine.Operation {
		return porcupine.Operation{ClientId: c, Input: in, Call: int64(at), Output: out, Return: int64(at + time.Millisecond)}
	}
	for t := 5 * time.Minute; t < span; t += 10 * time.Minute {
		at := t + time.Duration(rng.IntN(1000))*time.Millisecond
		id := int64(at / time.Millisecond)
		h = append(h, op(client, at, model.SavepointCommit{Job: job, ID: id}, model.SavepointResult{OK: true}))
		kept = append(kept, id)
		if len(kept) > 3 {
			h = append(h, op(client, at+time.Second, model.SavepointDelete{Job: job, ID: kept[0]}, nil))
			kept = kept[1:]
		}
		h = append(h, op(client+1, at+2*time.Second, model.SavepointList{Job: job}, append(model.SavepointIDs(nil), kept...)))
	}
	return h
}
