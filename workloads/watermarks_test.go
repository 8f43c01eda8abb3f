package workloads

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/workloads/cluster"
	"github.com/ckptsim/ckptsim/workloads/oracle"
)

// runWatermarks runs one seed of the watermarks scenario with its cluster
// configuration changed by mod, keeping the runner for inspection.
func runWatermarks(t *testing.T, seed uint64, mod func(*cluster.Config)) (Outcome, *runner) {
	t.Helper()
	s, err := Lookup("watermarks")
	if err != nil {
		t.Fatal(err)
	}
	r := &runner{s: s, opt: Options{Seed: seed}, faults: s.Faults}
	if r.ccfg, err = s.clusterConfig(s.effectiveVariants(nil), s.Faults); err != nil {
		t.Fatal(err)
	}
	if mod != nil {
		mod(&r.ccfg)
	}
	start := time.Now()
	out := r.run(Outcome{Scenario: s.Name, Seed: seed})
	out.WallNs = time.Since(start).Nanoseconds()
	return out, r
}

func TestWatermarksScenarioPasses(t *testing.T) {
	for seed := range uint64(3) {
		out, r := runWatermarks(t, seed, nil)
		if out.Verdict != Pass {
			t.Fatalf("seed %d: %s %v", seed, out.Verdict, out.Violations)
		}
		st := r.c.Pipelines.Stats
		ops := len(r.wm.rec.Operations())
		if len(r.c.Pipelines.All) != 20 || st.Commits < 200 || st.Failed == 0 || st.Restarts == 0 ||
			st.Quarantined == 0 || st.Revokes+st.Extends == 0 || ops < st.Batches {
			t.Fatalf("seed %d: too little happened: %d ops, %+v", seed, ops, st)
		}
		t.Logf("seed %d: %d steps, %v wall, %d watermark ops, %+v", seed, out.Steps, time.Duration(out.WallNs), ops, st)
	}
}

// TestWatermarksPlantedCommitBugIsCaught commits one offset past every
// watermark (the harness-side commit path, behind a test-only switch):
// the watermark model must call the run a safety failure.
func TestWatermarksPlantedCommitBugIsCaught(t *testing.T) {
	for seed := range uint64(3) {
		out, _ := runWatermarks(t, seed, func(c *cluster.Config) { c.Workload.PlantCommitPastWatermark = true })
		if out.Verdict != Safety {
			t.Fatalf("seed %d: planted bug not caught: %s %v", seed, out.Verdict, out.Violations)
		}
		var found string
		for _, f := range out.Findings {
			if f.Check == oracle.ModelWatermark && strings.Contains(f.Message, "commit past a batch not resolved OK") {
				found = f.String()
			}
		}
		if found == "" {
			t.Fatalf("seed %d: no watermark model verdict among %.1000v", seed, out.Violations)
		}
		t.Logf("seed %d: %.300s", seed, found)
	}
}

func TestSmokeHasNoPipelines(t *testing.T) {
	s, err := Lookup("smoke")
	if err != nil {
		t.Fatal(err)
	}
	r := &runner{s: s, opt: Options{Seed: 1}, faults: s.Faults}
	r.ccfg, _ = s.clusterConfig(s.effectiveVariants(nil), s.Faults)
	out := r.run(Outcome{})
	if out.Verdict != Pass || r.c.Pipelines != nil || r.wm.used {
		t.Fatalf("smoke: %s %v, pipelines %v", out.Verdict, out.Violations, r.c.Pipelines)
	}
}

func TestWatermarksDeterministic(t *testing.T) {
	s, err := Lookup("watermarks")
	if err != nil {
		t.Fatal(err)
	}
	a, b := Run(s, Options{Seed: 11}), Run(s, Options{Seed: 11})
	if a.Verdict != Pass || a.TraceHash != b.TraceHash || a.Steps != b.Steps {
		t.Fatalf("seed 11 twice: %s %s %d vs %s %s %d", a.Verdict, a.TraceHash, a.Steps, b.Verdict, b.TraceHash, b.Steps)
	}
}

// TestModelStepBoundGivesUnknown: a porcupine check cut by CheckSteps,
// or by CheckSearchBytes, is reported as unknown with the model's id and
// the bound that cut it, never as a pass and never as its check having
// fired; with the artefact folder set its unfinished partition is written.
func TestModelStepBoundGivesUnknown(t *testing.T) {
	for _, c := range []struct {
		name         string
		steps, bytes int64
		want         string
	}{
		{"steps", 1, CheckSearchBytes, "model-watermark: unknown: step limit 1 per partition"},
		{"search memory", CheckSteps, 1, "model-watermark: unknown: search memory limit 1 bytes per partition"},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func(n, b int64) { CheckSteps, CheckSearchBytes = n, b }(CheckSteps, CheckSearchBytes)
			CheckSteps, CheckSearchBytes = c.steps, c.bytes
			out := plantedCommitRun(t)
			if out.Verdict == Pass {
				t.Fatal("pass")
			}
			var line string
			for _, v := range out.Violations {
				if strings.Contains(v, c.want) {
					line = v
				}
			}
			if line == "" || slices.Contains(out.Checks, oracle.ModelWatermark) {
				t.Fatalf("no %q line (checks %v): %.600v", c.want, out.Checks, out.Violations)
			}
			if !slices.ContainsFunc(out.Artifacts, func(a string) bool { return strings.HasSuffix(a, "watermark-unknown.history") }) {
				t.Fatalf("artefacts %v", out.Artifacts)
			}
			t.Log(line)
		})
	}
}

// plantedCommitRun runs watermarks seed 0 with a runtime that commits past
// the watermark (an illegal watermark history porcupine must search),
// artefacts in a temporary folder.
func plantedCommitRun(t *testing.T) Outcome {
	t.Helper()
	s, err := Lookup("watermarks")
	if err != nil {
		t.Fatal(err)
	}
	r := &runner{s: s, opt: Options{Seed: 0, ArtifactDir: t.TempDir()}, faults: s.Faults}
	if r.ccfg, err = s.clusterConfig(s.effectiveVariants(nil), s.Faults); err != nil {
		t.Fatal(err)
	}
	r.ccfg.Workload.PlantCommitPastWatermark = true
	return r.run(Outcome{})
}

// TestWatermarkUnderCommit: a runtime that commits one offset short of each
// watermark is found by watermark-under-commit (the harness's source reads
// against its broker's commits at quiesce); the real one passes.
func TestWatermarkUnderCommit(t *testing.T) {
	out, _ := runWatermarks(t, 0, func(c *cluster.Config) { c.Workload.PlantCommitBehindWatermark = true })
	if out.Verdict != Safety || !slices.Contains(out.Checks, oracle.WatermarkUnderCommit) {
		t.Fatalf("planted under-commit: %s %v", out.Verdict, out.Checks)
	}
	if out, _ := runWatermarks(t, 0, nil); out.Verdict != Pass {
		t.Fatalf("real runtime: %s %v", out.Verdict, out.Violations)
	}
}

// TestWatermarkLeakedAckFromSinkRecord drops one resolution per pipeline in
// the harness's sink while recording it as made (PlantLostResolution, what a
// checkpointer that loses a resolution looks like from the sink): the
// watermarks TakeWatermarks returns then stop short of the prefix the sink
// resolved, and watermark-leaked-ack must say so from the harness's own
// record, whatever StalledPartitions reports. The real runtime passes. (The
// check it replaced, an unresolved StalledPartitions head older than 30 s,
// passed this seed: restores and restarts reset the head first.)
func TestWatermarkLeakedAckFromSinkRecord(t *testing.T) {
	out, _ := runWatermarks(t, 0, func(c *cluster.Config) { c.Workload.PlantLostResolution = true })
	if out.Verdict != Safety || !slices.Contains(out.Checks, oracle.WatermarkLeakedAck) {
		t.Fatalf("planted lost resolution: %s %v", out.Verdict, out.Checks)
	}
	var msg string
	for _, v := range out.Violations {
		if strings.Contains(v, oracle.WatermarkLeakedAck) {
			msg = v
			break
		}
	}
	if !strings.Contains(msg, "resolved prefix") && !strings.Contains(msg, "does not report it failed") {
		t.Fatalf("leaked-ack violation does not name the sink's record: %q", msg)
	}
	t.Logf("%s", msg)
	if out, _ := runWatermarks(t, 0, nil); out.Verdict != Pass {
		t.Fatalf("real runtime: %s %v", out.Verdict, out.Violations)
	}
}

// TestWatermarkLeakedAckHiddenFailure drops one Fail per pipeline without
// quarantine while the sink records it as made (PlantLostFailure): the
// watermark rightly stops before that batch, so only the other half of
// watermark-leaked-ack can see it: the harness's record puts a failed batch
// at the partition's head, and StalledPartitions does not report it Failed
// within stallGrace + probeEvery. (The old 30 s check passed this seed.)
func TestWatermarkLeakedAckHiddenFailure(t *testing.T) {
	out, _ := runWatermarks(t, 0, func(c *cluster.Config) { c.Workload.PlantLostFailure = true })
	if out.Verdict != Safety || !slices.Contains(out.Checks, oracle.WatermarkLeakedAck) {
		t.Fatalf("planted hidden failure: %s %v", out.Verdict, out.Checks)
	}
	for _, v := range out.Violations {
		if strings.Contains(v, oracle.WatermarkLeakedAck) && strings.Contains(v, "resolved prefix") {
			t.Fatalf("a dropped Fail without quarantine holds nothing back the sink resolved OK: %s", v)
		}
	}
	n := 0
	for _, v := range out.Violations {
		if strings.Contains(v, "StalledPartitions does not report it failed") {
			n++
		}
	}
	if n == 0 {
		t.Fatalf("no hidden-failure violation: %v", out.Violations)
	}
	t.Logf("%d hidden failures named", n)
}
