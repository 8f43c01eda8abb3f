package cluster

import "fmt"

// PipelineID names one pipeline of one job: the key of every per-pipeline
// map in the simulated cluster and its checks.
type PipelineID struct {
	Job      int64
	Pipeline int
}

// Seq numbers the pipeline among a cluster's, job x perJob + pipeline: the
// one numbering that histories, models and the watermark checks key by.
func (p PipelineID) Seq(perJob int) int { return int(p.Job)*perJob + p.Pipeline }

// PipelineAt is the pipeline whose Seq(perJob) is seq.
func PipelineAt(seq, perJob int) PipelineID {
	return PipelineID{Job: int64(seq / perJob), Pipeline: seq % perJob}
}

func (p PipelineID) String() string { return fmt.Sprintf("job %d pipeline %d", p.Job, p.Pipeline) }
