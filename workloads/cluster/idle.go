package cluster

import (
	"fmt"
	"slices"

	"github.com/ckptsim/ckptsim/core/coord"
	"github.com/ckptsim/ckptsim/sim"
)

// The checks of idle-task closing (idle-close-uncommitted,
// barrier-to-closed-task, finish-before-close) are judged in
// workloads/oracle from the boundary observations the simulated tasks
// make here (ObsAskClose, ObsAck, ObsNotified, ObsTaskClosed).

// simTask is what a simulated task remembers about closing.
type simTask struct {
	idle     bool  // asked to close (readyToCloseIdleTask)
	prepared int64 // id of the last barrier that named it in PrepareClose and it acknowledged
	final    int64 // id of the final (COMPLETED_POINT) barrier it acknowledged
	closed   bool
	closedBy int64
}

// idleTasks are the simulated tasks' closing state and its checks, when the
// pipelines have non-starting tasks or bounded sources.
type idleTasks struct {
	c        *Cluster
	tasks    map[taskKey]*simTask
	finished map[PipelineID]bool // pipelines whose sources finished
}

// taskKey is one task of one pipeline.
type taskKey struct {
	PipelineID
	task coord.TaskID
}

func newIdleTasks(c *Cluster) *idleTasks {
	if c.cfg.StartingTasks <= 0 && c.cfg.Workload.FinishAfter == (Dist{}) {
		return nil
	}
	return &idleTasks{c: c, tasks: map[taskKey]*simTask{}, finished: map[PipelineID]bool{}}
}

func (it *idleTasks) task(job int64, pipeline int, task coord.TaskID) *simTask {
	k := taskKey{PipelineID{job, pipeline}, task}
	t, ok := it.tasks[k]
	if !ok {
		t = &simTask{}
		it.tasks[k] = t
	}
	return t
}

// start launches, per pipeline, the idle reports of its non-starting tasks
// and the finish of its bounded sources.
func (it *idleTasks) start() {
	if it == nil {
		return
	}
	c := it.c
	r := c.W.Rand(sim.StreamIdle)
	wl := c.cfg.Workload
	for j, m := range c.Managers {
		for p := range c.cfg.Pipelines {
			co := m.Coordinator(p)
			for t := c.cfg.StartingTasks; c.cfg.StartingTasks > 0 && t < c.cfg.Tasks && wl.IdleAfter != (Dist{}); t++ {
				after, task := wl.IdleAfter.Draw(r), coord.TaskID(t)
				c.W.Go(fmt.Sprintf("idle-%d-%d-%d", j, p, t), func() {
					c.W.Sleep(after)
					it.askClose(co, task)
				})
			}
			if wl.FinishAfter != (Dist{}) {
				after := wl.FinishAfter.Draw(r)
				c.W.Go(fmt.Sprintf("source-end-%d-%d", j, p), func() { c.W.Sleep(after); it.finishSources(co) })
			}
		}
	}
}

func (it *idleTasks) askClose(co *coord.Coordinator, task coord.TaskID) {
	st := it.task(co.Job(), co.Pipeline(), task)
	if st.closed {
		return
	}
	st.idle = true
	it.c.observe(Obs{Kind: ObsAskClose, Job: co.Job(), Pipeline: co.Pipeline(), Task: int(task)})
	answer := it.c.Into("Coordinator.ReadyToCloseIdle", co.Job(), co.Pipeline())
	err := co.ReadyToCloseIdle(task)
	answer.Give(err)
	if err != nil {
		it.c.W.Note("ready to close idle task %d-%d-%d: %v", co.Job(), co.Pipeline(), task, err)
	}
}

// finishSources reports every starting task's source finished
// (readyToClose); the last one triggers the COMPLETED_POINT checkpoint.
func (it *idleTasks) finishSources(co *coord.Coordinator) {
	n := it.c.cfg.StartingTasks
	if n <= 0 {
		n = it.c.cfg.Tasks
	}
	it.c.W.Note("sources of job %d pipeline %d finished", co.Job(), co.Pipeline())
	if k := (PipelineID{co.Job(), co.Pipeline()}); !it.finished[k] {
		it.finished[k] = true
		it.c.observe(Obs{Kind: ObsSourcesFinished, Job: co.Job(), Pipeline: co.Pipeline()})
	}
	for t := range n {
		answer := it.c.Into("Coordinator.ReadyToClose", co.Job(), co.Pipeline())
		err := co.ReadyToClose(coord.TaskID(t))
		answer.Give(err)
		if err != nil {
			it.c.W.Note("ready to close task %d-%d-%d: %v", co.Job(), co.Pipeline(), t, err)
			return
		}
	}
}

// received is the task's side of a barrier: a closed task ignores it (no
// acknowledgement); an open one acknowledges (ok) and remembers a barrier
// that prepares it to close; an idle task the barrier does not prepare
// asks again (a clean forgot its request).
func (it *idleTasks) received(co *coord.Coordinator, task coord.TaskID, b coord.Barrier) (ack bool) {
	st := it.task(co.Job(), co.Pipeline(), task)
	if st.closed {
		it.c.W.Note("closed task %d-%d-%d ignores barrier %d", co.Job(), co.Pipeline(), task, b.ID)
		return false
	}
	switch {
	case b.Type == coord.CompletedPoint:
		st.final = b.ID
	case slices.Contains(b.PrepareClose, task):
		st.prepared = b.ID
	case st.idle:
		defer it.askClose(co, task)
	}
	return true
}

// notified is the task's side of a completion: it closes when the
// completion names it, or on the final checkpoint it acknowledged. Closing
// requires its final state stored: the checkpoint it acknowledged ready to
// close, in storage.
func (it *idleTasks) notified(job int64, pipeline int, task coord.TaskID, cp *coord.Completed) {
	st := it.task(job, pipeline, task)
	if st.closed {
		return
	}
	switch {
	case slices.Contains(cp.Closed, task):
	case cp.Type == coord.CompletedPoint && st.final == cp.ID:
	default:
		return
	}
	st.closed, st.closedBy = true, cp.ID
	it.c.observe(Obs{Kind: ObsTaskClosed, Job: job, Pipeline: pipeline, ID: cp.ID, Task: int(task), Final: cp.Type == coord.CompletedPoint})
	it.c.W.Note("task %d-%d-%d closed by checkpoint %d", job, pipeline, task, cp.ID)
}

// restored re-reports finished sources after a restore, as restarted
// source tasks would: a failure's clean removed the ready-to-close set.
func (it *idleTasks) restored(ev coord.Event) {
	if !it.finished[PipelineID{ev.Job, ev.Pipeline}] {
		return
	}
	co := it.c.Managers[ev.Job].Coordinator(ev.Pipeline)
	it.c.W.Go(fmt.Sprintf("source-end-again-%d-%d", ev.Job, ev.Pipeline), func() { it.finishSources(co) })
}

// chain returns the observer that also routes restores to the simulated
// tasks (restarted sources report finished again).
func (it *idleTasks) chain(obs coord.Observer) coord.Observer {
	if it == nil {
		return obs
	}
	return func(ev coord.Event) {
		obs(ev)
		if ev.Kind == coord.EvRestored {
			it.restored(ev)
		}
	}
}

// Closed reports how many tasks closed, and how many closed as idle
// (before the pipeline's final checkpoint).
func (it *idleTasks) counts() (closed, idle int) {
	if it == nil {
		return 0, 0
	}
	for _, st := range it.tasks {
		if st.closed {
			closed++
			if st.closedBy != coord.CompletedPointID {
				idle++
			}
		}
	}
	return closed, idle
}
