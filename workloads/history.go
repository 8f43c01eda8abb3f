package workloads

import (
	"fmt"
	"time"

	"github.com/ckptsim/ckptsim/core/coord"
	"github.com/ckptsim/ckptsim/linearizability"
	"github.com/ckptsim/ckptsim/model"
	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/sim/cluster"
)

// CheckTimeout bounds each porcupine check (wall time); a check that runs
// out is Unknown, which is never a pass.
var CheckTimeout = 20 * time.Second

// histories records the run's operations for the porcupine models:
// generation-fenced failure and the latest-completed register per
// pipeline, and savepoint retention per job. Pipelines are numbered
// job*pipelines+pipeline.
type histories struct {
	w         *sim.World
	pipelines int
	gen, reg  *linearizability.Recorder
	sp        *linearizability.Recorder
	effects   map[[2]int64]linearizability.Op // (pipeline, op) -> open effect
	completes map[int]linearizability.Op      // pipeline -> open completion
	storing   map[int]int64                   // pipeline -> id being stored
}

func newHistories(w *sim.World, jobs, pipelines int) *histories {
	h := &histories{w: w, pipelines: pipelines,
		gen: linearizability.NewRecorder(linearizability.Logical), reg: linearizability.NewRecorder(linearizability.Logical),
		sp:      linearizability.NewRecorder(linearizability.Logical),
		effects: map[[2]int64]linearizability.Op{}, completes: map[int]linearizability.Op{}, storing: map[int]int64{}}
	for p := range jobs * pipelines {
		_ = h.gen.Record(fmt.Sprintf("restore-%d", p), 0, 0, model.Restore{Pipeline: p, NewGen: 1}, nil)
	}
	return h
}

func (h *histories) attach(c *cluster.Cluster) {
	c.Storage.OnStore = h.store
	c.Storage.OnLatest = h.latest
}

func (h *histories) pid(job int64, p int) int { return int(job)*h.pipelines + p }
func (h *histories) now() int64               { return int64(h.w.Elapsed()) }

func (h *histories) event(r cluster.Record) {
	p := h.pid(r.Job, r.Pipeline)
	switch r.Kind {
	case coord.EvGeneration:
		_ = h.gen.Record(fmt.Sprintf("restore-%d", p), h.now(), h.now(), model.Restore{Pipeline: p, NewGen: int64(r.Gen)}, nil)
	case coord.EvEffect:
		op, err := h.gen.Invoke(fmt.Sprintf("effect-%d-%d", p, r.Op), h.now(),
			model.Effect{Pipeline: p, Armed: int64(r.ArmedGen), Kind: string(r.Reason)})
		if err == nil {
			h.effects[[2]int64{int64(p), int64(r.Op)}] = op
		}
	case coord.EvGenFailed, coord.EvStaleDropped, coord.EvEffectNoop:
		h.effectEnd(p, r)
	case coord.EvCompleted:
		if op, ok := h.completes[p]; ok && h.storing[p] == r.ID {
			_ = h.reg.Return(op, h.now(), nil)
			delete(h.completes, p)
		}
	}
}

func (h *histories) effectEnd(p int, r cluster.Record) {
	k := [2]int64{int64(p), int64(r.Op)}
	op, ok := h.effects[k]
	if r.Op == 0 || !ok {
		return
	}
	delete(h.effects, k)
	_ = h.gen.Return(op, h.now(), model.EffectResult{Failed: r.Kind == coord.EvGenFailed, Gen: int64(r.Gen)})
}

func (h *histories) store(cp *coord.Completed, err error, begin bool) {
	p := h.pid(cp.Job, cp.Pipeline)
	if begin {
		if old, ok := h.completes[p]; ok {
			_ = h.reg.Cut(old) // reported never: it may or may not count
		}
		op, ierr := h.reg.Invoke(fmt.Sprintf("complete-%d", p), h.now(), model.Complete{Pipeline: p, ID: cp.ID})
		if ierr == nil {
			h.completes[p], h.storing[p] = op, cp.ID
		}
		return
	}
	if op, ok := h.completes[p]; ok && err != nil {
		_ = h.reg.Cut(op)
		delete(h.completes, p)
	}
}

func (h *histories) latest(job int64, pipeline int, id int64) {
	p := h.pid(job, pipeline)
	_ = h.reg.Record(fmt.Sprintf("restore-read-%d", p), h.now(), h.now(), model.ReadLatest{Pipeline: p}, model.ReadResult{ID: id})
}

func (h *histories) savepointCommit(job int64, id int64, ok bool, call int64) {
	_ = h.sp.Record(fmt.Sprintf("savepoint-%d", job), call, h.now(), model.SavepointCommit{Job: int(job), ID: id}, model.SavepointResult{OK: ok})
}

func (h *histories) savepointList(job int64, ids []int64) {
	_ = h.sp.Record(fmt.Sprintf("savepoint-list-%d", job), h.now(), h.now(), model.SavepointList{Job: int(job)}, model.SavepointIDs(ids))
}

// check runs every model over its history; it cuts operations left open
// by the end of the run first. A malformed history is a harness bug,
// returned apart from the verdicts.
func (h *histories) check() (out []linearizability.Verdict, harness []string) {
	for _, c := range []struct {
		spec model.Spec
		rec  *linearizability.Recorder
	}{{model.Generation, h.gen}, {model.Register, h.reg}, {model.Savepoints, h.sp}} {
		c.rec.CutOpen()
		if err := c.rec.Err(); err != nil {
			harness = append(harness, fmt.Sprintf("%s: malformed history (harness bug): %v", c.spec.Name, err))
			continue
		}
		out = append(out, linearizability.Check(c.spec, c.rec.Operations(), CheckTimeout))
	}
	return out, harness
}
