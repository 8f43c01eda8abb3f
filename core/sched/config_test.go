package sched_test

import (
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/core/env"
	"github.com/ckptsim/ckptsim/core/sched"
)

// TestUnknownModesAreRefused: New refuses a design, task-failure,
// cancel-all or close-tasks value it does not know, and ParseDesign names
// the designs. The harness passes values variant parsing already checked,
// so no simulation gets here (results/coverage/defensive.txt).
func TestUnknownModesAreRefused(t *testing.T) {
	for _, d := range sched.Designs {
		if got, err := sched.ParseDesign(string(d)); err != nil || got != d {
			t.Errorf("ParseDesign(%q) = %q, %v", d, got, err)
		}
	}
	if _, err := sched.ParseDesign("round-robin"); err == nil || !strings.Contains(err.Error(), "round-robin") {
		t.Errorf("ParseDesign of an unknown design: %v", err)
	}
	for name, cfg := range map[string]sched.Config{
		"design":       {Cores: 1, Design: "round-robin"},
		"task-failure": {Cores: 1, TaskFailure: "explode"},
		"cancel-all":   {Cores: 1, CancelAll: "forget"},
		"close-tasks":  {Cores: 1, CloseTasks: "leak"},
	} {
		if s, err := sched.New(env.Wall{}, cfg); err == nil {
			s.Close()
			t.Errorf("an unknown %s accepted", name)
		}
	}
}
