package workloads

import (
	"errors"
	"strings"
	"testing"
)

const graceScenario = `name: grace-test
cluster: {jobs: 1, pipelines: 2, tasks: 2}
checkpoint: {interval: 2s, timeout: 2s}
faults:
  failover: {per_hour: 60}
  step_down: {at: [5s], for: 2s, graceful: true, grace: 2ms}
run: {duration: 20s, heal: 10s}
`

// TestStepDownGraceValidated: a grace is taken only by a graceful
// step-down; anywhere else, or a bad duration, is refused naming the
// file, line and field.
func TestStepDownGraceValidated(t *testing.T) {
	if _, err := Parse("ok.yaml", []byte(graceScenario)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ from, to, field string }{
		{"graceful: true, grace: 2ms", "grace: 2ms", "faults.step_down.grace"},
		{"graceful: true, grace: 2ms", "graceful: false, grace: 2ms", "faults.step_down.grace"},
		{"grace: 2ms", "grace: soon", "faults.step_down.grace"},
		{"grace: 2ms", "grace: 0s", "faults.step_down.grace"},
		{"failover: {per_hour: 60}", "failover: {per_hour: 60, grace: 2ms}", "faults.failover.grace"},
	} {
		src := strings.Replace(graceScenario, c.from, c.to, 1)
		_, err := Parse("bad.yaml", []byte(src))
		var e *Error
		if !errors.As(err, &e) || e.File != "bad.yaml" || e.Field != c.field {
			t.Errorf("%s: got %v, want bad.yaml naming %s", c.to, err, c.field)
			continue
		}
		line := 5
		if c.field == "faults.step_down.grace" {
			line = 6
		}
		if e.Line != line {
			t.Errorf("%s: line %d, want %d", c.to, e.Line, line)
		}
	}
}

// TestRedeployRefusesGrace: redeploy takes no option of the step-down's.
func TestRedeployRefusesGrace(t *testing.T) {
	src := strings.Replace(redeployScenario, "redeploy: {every: 5s}", "redeploy: {every: 5s, grace: 2ms}", 1)
	_, err := Parse("bad.yaml", []byte(src))
	var e *Error
	if !errors.As(err, &e) || e.Line != 8 || e.Field != "faults.redeploy.grace" {
		t.Errorf("redeploy with grace: got %v, want bad.yaml line 8 naming faults.redeploy.grace", err)
	}
}
