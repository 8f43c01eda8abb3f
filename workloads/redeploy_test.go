package workloads

import (
	"errors"
	"strings"
	"testing"
)

const redeployScenario = `name: redeploy-test
cluster: {jobs: 2, pipelines: 3, tasks: 2}
checkpoint: {interval: 2s, timeout: 2s, max_retained: 2}
workload:
  ack_latency: {kind: exp, min: 10ms, mean: 300ms, max: 2s}
  restart_delay: {kind: uniform, min: 100ms, max: 1s}
faults:
  redeploy: {every: 5s}
  storage_reply_lost: 0.02
  bit_rot: 0.02
run: {duration: 1m, heal: 20s}
`

// TestRedeployValidated: a bad redeploy names its file, line and field:
// a schedule's own errors, the options of other schedule kinds, and tasks
// that close or finish on their own.
func TestRedeployValidated(t *testing.T) {
	for _, c := range []struct{ with, field string }{
		{"redeploy: {per_hour: -1}", "faults.redeploy.per_hour"},
		{"redeploy: {every: soon}", "faults.redeploy.every"},
		{"redeploy: {every: 5s, for: 2s}", "faults.redeploy.for"},
		{"redeploy: {every: 5s, whole_job: true}", "faults.redeploy.whole_job"},
		{"redeploy: {every: 5s, graceful: true}", "faults.redeploy.graceful"},
		{"redeploy: {every: 5s, keep_coordinators: true}", "faults.redeploy.keep_coordinators"},
	} {
		src := strings.Replace(redeployScenario, "redeploy: {every: 5s}", c.with, 1)
		_, err := Parse("bad.yaml", []byte(src))
		var e *Error
		if !errors.As(err, &e) || e.File != "bad.yaml" || e.Line != 8 || e.Field != c.field {
			t.Errorf("%s: got %v, want bad.yaml line 8 naming %s", c.with, err, c.field)
		}
	}
	src := strings.Replace(redeployScenario, "workload:\n", "workload:\n  finish_after: {min: 30s}\n", 1)
	_, err := Parse("bounded.yaml", []byte(src))
	var e *Error
	if !errors.As(err, &e) || e.Line != 9 || e.Field != "faults.redeploy" || !strings.Contains(e.Msg, "finish_after") {
		t.Errorf("redeploy with finish_after: got %v, want bounded.yaml line 9 naming faults.redeploy", err)
	}
	src = strings.Replace(redeployScenario, "  redeploy: {every: 5s}\n", "  redeploy: {every: 5s}\n  failover: {every: 7s, whole_job: true}\n", 1)
	_, err = Parse("wholejob.yaml", []byte(src))
	if !errors.As(err, &e) || e.Line != 9 || e.Field != "faults.failover.whole_job" {
		t.Errorf("redeploy with a whole-job failover: got %v, want wholejob.yaml line 9 naming faults.failover.whole_job", err)
	}
	if _, err := Parse("ok.yaml", []byte(strings.Replace(src, ", whole_job: true", "", 1))); err != nil {
		t.Fatal(err)
	}
	if _, err := Parse("ok.yaml", []byte(redeployScenario)); err != nil {
		t.Fatal(err)
	}
}

// TestRedeployScenario: a scenario that redeploys a pipeline every 5 s
// passes every check, the same seed gives the same trace hash, and the
// redeploy is in effect (the trace differs from the same seed without it).
func TestRedeployScenario(t *testing.T) {
	s, err := Parse("redeploy.yaml", []byte(redeployScenario))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := Parse("plain.yaml", []byte(strings.Replace(redeployScenario, "  redeploy: {every: 5s}\n", "", 1)))
	if err != nil {
		t.Fatal(err)
	}
	for seed := range uint64(4) {
		out := Run(s, Options{Seed: seed})
		if out.Verdict != Pass {
			t.Errorf("seed %d: %s %v\nreplay: %s", seed, out.Verdict, out.Violations, out.Replay)
			continue
		}
		if seed > 0 {
			continue
		}
		if again := Run(s, Options{Seed: seed}); again.TraceHash != out.TraceHash {
			t.Errorf("seed 0: trace hash %s then %s", out.TraceHash, again.TraceHash)
		}
		if p := Run(plain, Options{Seed: seed}); p.TraceHash == out.TraceHash {
			t.Errorf("seed 0: the same trace with and without redeploy (%s)", p.TraceHash)
		}
	}
}
