package cluster

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/ckptsim/ckptsim/core/coord"
)

// Task report values (ObsTaskReport's Value).
const (
	ReportWaitingRestore = "waiting-restore"
	ReportReadyStart     = "ready-start"
	// ReportLastReadyStart is the redeploy's last READY_START: every task
	// of the pipeline has reported it, and the pipeline must start
	// checkpointing again.
	ReportLastReadyStart = "last-ready-start"
)

// errTaskFailed is a redeploy abandoned because a task failed between
// its two reports.
var errTaskFailed = errors.New("a task failed during the redeploy")

// report is one task report a redeploy sends.
type report struct {
	at   time.Duration // after the restore returned
	task coord.TaskID
	st   coord.TaskState
}

// RedeployPipeline is the harness's redeploy of one pipeline (SPEC 1.3,
// restoreCoordinator(false)): it restores the pipeline with
// Coordinator.Restore(false), then each task, redeployed, reports
// WAITING_RESTORE after an ack latency (the coordinator hands it its state
// through Transport.RestoreState) and READY_START after another; the
// reports of different tasks interleave as their latencies fall, and the
// last READY_START is what starts the pipeline checkpointing again.
// failing >= 0 names a task that fails between its two reports: the
// reports due after its failure are never sent, and after the restart
// delay the harness redeploys the pipeline again (with no failure). The
// restore and each report are observed (ObsRestoreBegin and ObsRestoreEnd
// with Redeploy set, ObsTaskReport). The redeploy counts as a restore in
// flight of the job until its last report is sent (CancelJob waits for
// it).
func (c *Cluster) RedeployPipeline(job int64, pipeline int, failing int) error {
	if c.canceled[job] {
		c.W.Note("job %d is canceled: no redeploy of pipeline %d", job, pipeline)
		return nil
	}
	k := PipelineID{job, pipeline}
	c.restoring[job]++
	c.redeploying[k]++
	defer func() { c.restoring[job]--; c.redeploying[k]-- }()
	var restored int64 // a restore that restarted the reports (RestorePipeline)
	for {
		err := c.redeployOnce(job, pipeline, failing, restored)
		var again *redeployRestarted
		if errors.As(err, &again) {
			restored, failing = again.call, -1
			continue
		}
		restored = 0
		if !errors.Is(err, errTaskFailed) {
			return err
		}
		failing = -1
		c.W.Sleep(c.cfg.Workload.RestartDelay.Draw(c.work))
		if c.canceled[job] {
			return nil
		}
	}
}

// redeployRestarted is a redeploy whose tasks' reports start over: the
// job master restored the pipeline (call, Coordinator.Restore(false))
// while they were still reporting, and the restore's clean forgot the
// reports so far (RestorePipeline).
type redeployRestarted struct{ call int64 }

func (e *redeployRestarted) Error() string {
	return fmt.Sprintf("restored again (call %d) while its tasks reported", e.call)
}

// redeployOnce restores the pipeline as not started (unless restored, a
// restore of RestorePipeline, already did) and sends its tasks' reports.
func (c *Cluster) redeployOnce(job int64, pipeline int, failing int, restored int64) error {
	co := c.Managers[job].Coordinator(pipeline)
	k := PipelineID{job, pipeline}
	call := restored
	if call == 0 {
		c.restoreCalls++
		call = c.restoreCalls
		c.observe(Obs{Kind: ObsRestoreBegin, Job: job, Pipeline: pipeline, Call: call, Redeploy: true})
		answer := c.Into("Coordinator.Restore", job, pipeline)
		err := co.Restore(false)
		answer.Give(err)
		c.observe(Obs{Kind: ObsRestoreEnd, Job: job, Pipeline: pipeline, Call: call, Value: restoreOutcome(err), Redeploy: true})
		if err != nil {
			return fmt.Errorf("redeploy restore: %w", err) // the failed generation is the job master's to restore
		}
	}
	c.redeployRestart[k] = 0
	tasks := c.cfg.Tasks
	reports := make([]report, 0, 2*tasks)
	failAt := time.Duration(-1)
	for t := range tasks {
		waiting := c.cfg.Workload.AckLatency.Draw(c.work)
		ready := waiting + c.cfg.Workload.AckLatency.Draw(c.work)
		reports = append(reports, report{waiting, coord.TaskID(t), coord.TaskWaitingRestore}, report{ready, coord.TaskID(t), coord.TaskReadyStart})
		if t == failing {
			failAt = waiting + (ready-waiting)/2
		}
	}
	slices.SortStableFunc(reports, func(a, b report) int { return int(a.at - b.at) }) // ties: task order, WAITING_RESTORE first
	start := c.W.Elapsed()
	readyLeft := tasks
	for _, r := range reports {
		if failAt >= 0 && r.at > failAt {
			if d := start + failAt - c.W.Elapsed(); d > 0 {
				c.W.Sleep(d)
			}
			c.W.Note("fault: task %d-%d-%d fails during its redeploy", job, pipeline, failing)
			return errTaskFailed
		}
		if d := start + r.at - c.W.Elapsed(); d > 0 {
			c.W.Sleep(d)
		}
		for c.redeployHeld[k] > 0 {
			c.W.Sleep(10 * time.Millisecond) // a restore of the job master runs (RestorePipeline)
		}
		if again := c.redeployRestart[k]; again != 0 {
			c.W.Note("redeploy of job %d pipeline %d: restored again (call %d); its tasks report again", job, pipeline, again)
			return &redeployRestarted{again}
		}
		v := ReportWaitingRestore
		if r.st == coord.TaskReadyStart {
			v = ReportReadyStart
			if readyLeft--; readyLeft == 0 {
				v = ReportLastReadyStart
			}
		}
		c.observe(Obs{Kind: ObsTaskReport, Job: job, Pipeline: pipeline, Task: int(r.task), Call: call, Value: v})
		answer := c.Into("Coordinator.ReportTask", job, pipeline)
		co.ReportTask(r.task, r.st)
		answer.Give(nil)
	}
	return nil
}
