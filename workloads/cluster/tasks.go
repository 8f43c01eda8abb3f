package cluster

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/ckptsim/ckptsim/core/coord"
	"github.com/ckptsim/ckptsim/sim"
)

// Transport delivers coordinator calls to simulated tasks.
type Transport struct {
	c     *Cluster
	job   int64
	names map[taskKey]string // task thread names, made once (not per barrier)
	slab  []delivery         // deliveries are carved from chunks: one allocation per chunk
}

// delivery is one barrier on its way to a task: its thread acknowledges
// it after the ack latency (Run). Carved from Transport.slab, never
// reused: a chunk is freed once all its deliveries are.
type delivery struct {
	t        *Transport
	job      int64
	pipeline int
	task     coord.TaskID
	b        coord.Barrier
	lat      time.Duration
	drop     bool // AckDrop: the ack is never sent
	taskErr  bool // TaskError: the task reports an error instead
}

func (t *Transport) newDelivery() *delivery {
	if len(t.slab) == cap(t.slab) {
		t.slab = make([]delivery, 0, 128)
	}
	t.slab = t.slab[:len(t.slab)+1]
	return &t.slab[len(t.slab)-1]
}

// taskName is the name of a task's acknowledging thread.
func (t *Transport) taskName(job int64, pipeline int, task coord.TaskID) string {
	k := taskKey{PipelineID{job, pipeline}, task}
	n, ok := t.names[k]
	if !ok {
		if t.names == nil {
			t.names = map[taskKey]string{}
		}
		n = fmt.Sprintf("task-%d-%d-%d", job, pipeline, task)
		t.names[k] = n
	}
	return n
}

// TriggerBarrier blocks for the dispatch latency, then a task thread
// acknowledges after the ack latency (or never, under the AckDrop fault).
func (t *Transport) TriggerBarrier(job int64, pipeline int, task coord.TaskID, b coord.Barrier) error {
	c := t.c
	c.call("Transport.TriggerBarrier")
	c.observe(Obs{Kind: ObsBarrier, Job: job, Pipeline: pipeline, ID: b.ID, Task: int(task),
		Stamp: b.Timestamp.UnixNano(), Final: b.Type == coord.CompletedPoint, InLeaseBody: c.leases.InBody()})
	if lat := c.cfg.Workload.DispatchLatency.Draw(c.work); lat > 0 {
		c.noteFailureDue(job, c.W.Elapsed()+lat)
		c.W.Sleep(lat)
	}
	c.panicAt("Transport.TriggerBarrier", job, pipeline, b.ID)
	if c.injected(c.cfg.Faults.BarrierFail, FaultBarrier, job, pipeline, b.ID) {
		c.W.Note("fault: barrier dispatch fails job %d pipeline %d", job, pipeline)
		return fmt.Errorf("simulated barrier dispatch failure")
	}
	c.taskEvent(job, pipeline, task, b.ID, false)
	drop := c.injected(c.cfg.Faults.AckDrop, FaultAckDrop, job, pipeline, b.ID)
	taskErr := !drop && c.injected(c.cfg.Faults.TaskError, FaultTaskError, job, pipeline, b.ID)
	lat := c.cfg.Workload.AckLatency.Draw(c.work)
	if taskErr {
		c.noteFailureDue(job, c.W.Elapsed()+lat)
	}
	k := PipelineID{job, pipeline}
	c.Recorder.inflight[k]++
	d := t.newDelivery()
	*d = delivery{t: t, job: job, pipeline: pipeline, task: task, b: b, lat: lat, drop: drop, taskErr: taskErr}
	c.W.GoRunner(t.taskName(job, pipeline, task), d)
	return nil
}

// Run is the task thread: it acknowledges the barrier after the ack
// latency.
func (d *delivery) Run() {
	c, job, pipeline, task, b, drop := d.t.c, d.job, d.pipeline, d.task, d.b, d.drop
	c.W.Sleep(d.lat)
	c.Recorder.inflight[PipelineID{job, pipeline}]--
	if c.idle != nil && !drop && !c.idle.received(c.Managers[job].Coordinator(pipeline), task, b) {
		return
	}
	if drop {
		c.W.Note("fault: task %d-%d-%d drops ack of %d", job, pipeline, task, b.ID)
		return
	}
	if d.taskErr { // reportCheckpointErrorFromTask
		c.W.Note("fault: task %d-%d-%d reports an error for checkpoint %d", job, pipeline, task, b.ID)
		answer := c.IntoFor("Coordinator.ReportTaskError", job, pipeline, b.ID)
		c.Managers[job].Coordinator(pipeline).ReportTaskError(b.ID, fmt.Sprintf("task %d failed checkpoint %d", task, b.ID))
		answer.Give(nil)
		return
	}
	c.taskEvent(job, pipeline, task, b.ID, true)
	c.observe(Obs{Kind: ObsAck, Job: job, Pipeline: pipeline, ID: b.ID, Task: int(task),
		Stamp: b.Timestamp.UnixNano(), Final: b.Type == coord.CompletedPoint, Prepares: slices.Contains(b.PrepareClose, task)})
	state := c.taskState(job, pipeline, task, b.ID)
	answer := c.Into("Manager.AcknowledgeBarrier", job, pipeline)
	c.Managers[job].AcknowledgeBarrier(pipeline, task, b, state)
	answer.Give(nil)
}

// NotifyComplete blocks for the notify latency and may fail.
func (t *Transport) NotifyComplete(job int64, pipeline int, task coord.TaskID, cp *coord.Completed) error {
	c := t.c
	c.call("Transport.NotifyComplete")
	final := cp.Type == coord.CompletedPoint
	c.observe(Obs{Kind: ObsNotify, Job: job, Pipeline: pipeline, ID: cp.ID, Task: int(task), Stamp: cp.TriggeredAt.UnixNano(), Final: final, Sum: StateSum(cp)})
	c.sleep(c.cfg.Workload.NotifyLatency)
	c.panicAt("Transport.NotifyComplete", job, pipeline, cp.ID)
	if c.injected(c.cfg.Faults.NotifyFail, FaultNotify, job, pipeline, cp.ID) {
		c.W.Note("fault: notify-complete fails job %d pipeline %d", job, pipeline)
		return fmt.Errorf("simulated notify failure")
	}
	c.observe(Obs{Kind: ObsNotified, Job: job, Pipeline: pipeline, ID: cp.ID, Task: int(task), Stamp: cp.TriggeredAt.UnixNano(),
		Final: final, Closes: slices.Contains(cp.Closed, task)})
	c.Pipelines.notify(job, pipeline, task)
	if c.idle != nil {
		c.idle.notified(job, pipeline, task, cp)
	}
	return nil
}

// NotifyStart tells a task that its pipeline starts; it may fail
// (NotifyStartFail, drawn from its own stream).
func (t *Transport) NotifyStart(job int64, pipeline int, task coord.TaskID) error {
	c := t.c
	c.call("Transport.NotifyStart")
	if p := c.cfg.Faults.NotifyStartFail; p > 0 && !c.healed {
		if c.notifyStart == nil {
			c.notifyStart = c.W.Rand(sim.StreamNotifyStart)
		}
		if chance(c.notifyStart, p) {
			c.observe(Obs{Kind: ObsFault, Job: job, Pipeline: pipeline, Task: int(task), Fault: FaultNotifyStart})
			c.W.Note("fault: notify-start fails job %d pipeline %d task %d", job, pipeline, task)
			return fmt.Errorf("simulated notify-start failure")
		}
	}
	return nil
}

// RestoreState hands a task the checkpoint it restores from (nil: none);
// the simulated task keeps nothing of it.
func (t *Transport) RestoreState(job int64, pipeline int, task coord.TaskID, cp *coord.Completed) error {
	t.c.call("Transport.RestoreState")
	o := Obs{Kind: ObsRestoreState, Job: job, Pipeline: pipeline, Task: int(task)}
	if cp != nil {
		o.ID, o.Sum = cp.ID, StateSum(cp)
	}
	t.c.observe(o)
	return nil
}

// Master is the simulated job master: a failed pipeline is restored after
// the restart delay, on its own thread.
type Master struct{ c *Cluster }

// HandleCheckpointError schedules the pipeline's restore.
func (m *Master) HandleCheckpointError(job int64, pipeline int, gen uint64, r coord.Reason) {
	c := m.c
	c.call("JobMaster.HandleCheckpointError")
	c.observe(Obs{Kind: ObsFailure, Job: job, Pipeline: pipeline, Value: string(r)})
	delay := c.cfg.Workload.RestartDelay.Draw(c.work)
	c.W.Go(fmt.Sprintf("job-master-%d-%d", job, pipeline), func() {
		c.W.Sleep(delay)
		for attempt := 0; ; attempt++ {
			if err := c.RestorePipeline(job, pipeline); err == nil || attempt >= 10 {
				return
			}
			c.W.Sleep(restoreBackoff)
		}
	})
}

const restoreBackoff = 1e9 // 1 s between restore attempts

// taskState is a task's acknowledged state, "state-J-P-T-ID" (what
// fmt.Appendf made, without boxing four integers per acknowledgement),
// carved from a shared buffer: one allocation per 8 KiB of states. The
// slice's capacity ends at its length, so an append by its holder copies.
func (c *Cluster) taskState(job int64, pipeline int, task coord.TaskID, id int64) []byte {
	if cap(c.stateBuf)-len(c.stateBuf) < 96 {
		c.stateBuf = make([]byte, 0, 8192)
	}
	start := len(c.stateBuf)
	c.stateBuf = appendTaskState(c.stateBuf, job, pipeline, task, id)
	return c.stateBuf[start:len(c.stateBuf):len(c.stateBuf)]
}

func appendTaskState(b []byte, job int64, pipeline int, task coord.TaskID, id int64) []byte {
	b = append(b, "state-"...)
	b = strconv.AppendInt(b, job, 10)
	b = append(b, '-')
	b = strconv.AppendInt(b, int64(pipeline), 10)
	b = append(b, '-')
	b = strconv.AppendInt(b, int64(task), 10)
	b = append(b, '-')
	return strconv.AppendInt(b, id, 10)
}
