package workloads

import (
	"fmt"
	"time"

	"github.com/ckptsim/ckptsim/core/coord"
	"github.com/ckptsim/ckptsim/linearizability"
	"github.com/ckptsim/ckptsim/model"
	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/workloads/cluster"
	"github.com/ckptsim/ckptsim/workloads/oracle"
)

// CheckSteps bounds each porcupine check by model steps per partition, so
// that a verdict never depends on the machine's speed; a check that runs
// out is Unknown (the unknown verdict, with the unfinished partition's
// history as its artefact), never a pass. Most partitions never reach
// porcupine: a linear witness search accepts them first.
var CheckSteps int64 = 2_000_000

// CheckSearchBytes bounds the memory porcupine's search keeps per
// partition (linearizability.Options.MaxSearchBytes): each step the model
// accepts is charged the partition's size in bits plus a cache entry, so
// a long partition with many concurrent operations that is not
// linearizable (a restore storm of 100 000 operations on one pipeline)
// runs out of it long before CheckSteps and ends Unknown after about
// CheckSearchBytes of heap, where its 2 000 000 steps would have taken
// tens of GiB. Deterministic, like CheckSteps; the searches of one check
// share it, so it bounds the whole check.
var CheckSearchBytes int64 = 512 << 20

// CheckTimeout is the last-resort wall-clock limit of one model's check:
// a check it cuts is Unknown, and says the limit depends on the machine.
// The deterministic bounds above end every check first on any machine
// this has run on.
var CheckTimeout = 10 * time.Minute

// checkOptions are the bounds of every porcupine check of a run; maxHeap
// is the run's heap share (Options.MaxHeap), watched while porcupine
// searches as the simulator watches it while the world runs.
func checkOptions(maxHeap int64) linearizability.Options {
	return linearizability.Options{MaxSteps: CheckSteps, MaxSearchBytes: CheckSearchBytes,
		Timeout: CheckTimeout, MaxHeap: maxHeap}
}

// histories records the run's operations for the porcupine models:
// generations and the latest-completed register per pipeline, and
// savepoint retention per job. Pipelines are numbered by
// cluster.PipelineID.Seq.
//
// The generation history holds boundary observations only (issue 13):
// Restore around each restore call the harness made, with the generation
// the harness counts for it (oracle.Generations); Trigger when the id
// counter hands a checkpoint id out, in the harness's generation of that
// moment, until the generation's failure notification (after it the
// clean aborts whatever starts) and while no restore of the pipeline is in
// flight; Status, the status store's value read by the harness at each
// such trigger; and Effect for
// each failure notification to the job master, spanning from the
// failure's status write to the notification, with the generation the
// harness assigned it. No coordinator label enters it.
type histories struct {
	w         *sim.World
	pipelines int
	gen, reg  *linearizability.Recorder
	sp        *linearizability.Recorder
	completes map[int]linearizability.Op // pipeline -> open completion
	storing   map[int]int64              // pipeline -> id being stored
}

func newHistories(w *sim.World, jobs, pipelines int) *histories {
	h := &histories{w: w, pipelines: pipelines,
		gen: linearizability.NewRecorder(linearizability.Logical), reg: linearizability.NewRecorder(linearizability.Logical),
		sp:        linearizability.NewRecorder(linearizability.Logical),
		completes: map[int]linearizability.Op{}, storing: map[int]int64{}}
	for p := range jobs * pipelines {
		_ = h.gen.Record(fmt.Sprintf("restore-%d", p), 0, 0, model.Restore{Pipeline: p, NewGen: 1}, nil)
	}
	return h
}

func (h *histories) attach(c *cluster.Cluster) {
	c.Storage.OnStore = h.store
	c.Storage.OnLatest = h.latest
	c.OnBoundary(h.stored)
}

func (h *histories) pid(job int64, p int) int {
	return cluster.PipelineID{Job: job, Pipeline: p}.Seq(h.pipelines)
}
func (h *histories) now() int64 { return int64(h.w.Elapsed()) }

// stored returns a completion of the register history where
// Storage.Store returned it durable (cluster.ObsStored): from then on a
// restore's read of the latest checkpoint must see it or a newer one,
// whatever the coordinator made of the store's reply.
func (h *histories) stored(o cluster.Obs) {
	if o.Kind != cluster.ObsStored {
		return
	}
	p := h.pid(o.Job, o.Pipeline)
	if op, ok := h.completes[p]; ok && h.storing[p] == o.ID {
		_ = h.reg.Return(op, h.now(), nil)
		delete(h.completes, p)
	}
}

// attachGenerations records the generation history from the oracle's
// boundary view of generations and the cluster's boundary calls.
func (h *histories) attachGenerations(c *cluster.Cluster, g *oracle.Generations) {
	restores := map[int64]linearizability.Op{} // call -> open restore
	type failureKey struct {
		pipeline cluster.PipelineID
		thread   int32
	}
	failures := map[failureKey]linearizability.Op{} // open failures
	g.OnRestoreBegin = func(job int64, pipeline int, call int64) {
		p := h.pid(job, pipeline)
		if op, err := h.gen.Invoke(fmt.Sprintf("restore-%d-%d", p, call), h.now(), model.Restore{Pipeline: p}); err == nil {
			restores[call] = op
		}
	}
	g.OnRestore = func(job int64, pipeline int, call int64, gen int) {
		p := h.pid(job, pipeline)
		if op, ok := restores[call]; ok {
			delete(restores, call)
			_ = h.gen.SetInput(op, model.Restore{Pipeline: p, NewGen: int64(gen)})
			_ = h.gen.Return(op, h.now(), nil)
		}
	}
	g.OnFailureBegin = func(job int64, pipeline int, thread int32) {
		p := h.pid(job, pipeline)
		k := failureKey{cluster.PipelineID{Job: job, Pipeline: pipeline}, thread}
		if op, ok := failures[k]; ok {
			_ = h.gen.Cut(op) // it notified nobody: another error won
		}
		if op, err := h.gen.Invoke(fmt.Sprintf("failure-%d-t%d", p, thread), h.now(), model.Effect{Pipeline: p, Kind: "failure"}); err == nil {
			failures[k] = op
		}
	}
	g.OnFailure = func(job int64, pipeline int, thread int32, gen int) {
		p := h.pid(job, pipeline)
		k := failureKey{cluster.PipelineID{Job: job, Pipeline: pipeline}, thread}
		op, ok := failures[k]
		if !ok {
			return
		}
		delete(failures, k)
		_ = h.gen.SetInput(op, model.Effect{Pipeline: p, Armed: int64(gen), Kind: "failure"})
		_ = h.gen.Return(op, h.now(), model.EffectResult{Failed: true, Gen: int64(gen)})
	}
	g.OnTrigger = func(job int64, pipeline int, gen int, id int64, failed bool) {
		if failed {
			return
		}
		p := h.pid(job, pipeline)
		_ = h.gen.Record(fmt.Sprintf("trigger-%d", p), h.now(), h.now(), model.Trigger{Pipeline: p, Gen: int64(gen), ID: id}, model.TriggerResult{Started: true})
		h.status(c, job, pipeline, gen)
	}
}

// status records the harness's read of a pipeline's status, in the
// generation the harness counts now.
func (h *histories) status(c *cluster.Cluster, job int64, pipeline int, gen int) {
	p := h.pid(job, pipeline)
	v := c.Status.Peek(fmt.Sprintf("checkpoint_state_%d_%d", job, pipeline))
	_ = h.gen.Record(fmt.Sprintf("status-%d", p), h.now(), h.now(), model.ReadGen{Pipeline: p},
		model.ReadGenResult{Gen: int64(gen), Failed: v == coord.Failed.String()})
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

// savepointCommitUnknown records a commit a crash hit: its outcome is
// unknown (it never returns, so the model may place it anywhere after its
// call, or never), on an actor of its own.
func (h *histories) savepointCommitUnknown(job int64, id int64, call int64) {
	_, _ = h.sp.Invoke(fmt.Sprintf("savepoint-%d-crashed-%d", job, id), call, model.SavepointCommit{Job: int(job), ID: id})
}

// savepointRotted records the savepoint_rot fault as a delete: a rotted
// savepoint leaves the set List may return (List skips a bundle that
// fails any check of Read).
func (h *histories) savepointRotted(job int64, id int64) {
	_ = h.sp.Record(fmt.Sprintf("savepoint-rot-%d", job), h.now(), h.now(), model.SavepointDelete{Job: int(job), ID: id}, nil)
}

func (h *histories) savepointDelete(job int64, id int64, call int64) {
	_ = h.sp.Record(fmt.Sprintf("savepoint-delete-%d", job), call, h.now(), model.SavepointDelete{Job: int(job), ID: id}, nil)
}

func (h *histories) savepointList(job int64, ids []int64) {
	_ = h.sp.Record(fmt.Sprintf("savepoint-list-%d", job), h.now(), h.now(), model.SavepointList{Job: int(job)}, model.SavepointIDs(ids))
}

// check runs every model over its history; it cuts operations left open
// by the end of the run first. A malformed history is a harness bug,
// returned apart from the verdicts.
func (h *histories) check() (out []oracle.History, harness []string) {
	for _, c := range []struct {
		spec model.Spec
		rec  *linearizability.Recorder
	}{{model.Generation, h.gen}, {model.Register, h.reg}, {model.Savepoints, h.sp}} {
		c.rec.CutOpen()
		if err := c.rec.Err(); err != nil {
			harness = append(harness, fmt.Sprintf("%s: malformed history (harness bug): %v", c.spec.Name, err))
			continue
		}
		out = append(out, oracle.History{Spec: c.spec, Ops: c.rec.Operations()})
	}
	return out, harness
}

// specs are the models by name, for artefacts.
var specs = map[string]model.Spec{model.Generation.Name: model.Generation, model.Register.Name: model.Register,
	model.Savepoints.Name: model.Savepoints, model.Watermark.Name: model.Watermark}
