package cluster

import "testing"

// TestPipelineSeq: Seq and PipelineAt are inverse, and Seq numbers a
// cluster's pipelines 0..jobs*perJob-1 without gaps or repeats.
func TestPipelineSeq(t *testing.T) {
	const jobs, perJob = 3, 4
	seen := map[int]bool{}
	for j := range int64(jobs) {
		for p := range perJob {
			id := PipelineID{Job: j, Pipeline: p}
			n := id.Seq(perJob)
			if n < 0 || n >= jobs*perJob || seen[n] {
				t.Fatalf("%v: seq %d out of range or repeated", id, n)
			}
			seen[n] = true
			if back := PipelineAt(n, perJob); back != id {
				t.Errorf("PipelineAt(%d) = %v, want %v", n, back, id)
			}
		}
	}
}
