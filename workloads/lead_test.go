package workloads

import (
	"errors"
	"strings"
	"testing"
)

// withTimerLead returns an embedded scenario with scheduler.timer_lead set
// (the YAML's own scheduler block, or a new one).
func withTimerLead(t *testing.T, name, lead string) *Scenario {
	t.Helper()
	s, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	src := string(s.YAML())
	if strings.Contains(src, "\nscheduler:\n") {
		src = strings.Replace(src, "\nscheduler:\n", "\nscheduler:\n  timer_lead: "+lead+"\n", 1)
	} else {
		src += "scheduler:\n  timer_lead: " + lead + "\n"
	}
	l, err := Parse(name+"-lead.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestTimerLeadScenarios runs the scheduler's timers with a lead (the path
// production takes on env.PreciseWall) under the whole harness: smoke and
// failovers pass with every design, the run is deterministic, and the lead
// is in effect (the trace differs from the same seed without it).
func TestTimerLeadScenarios(t *testing.T) {
	seeds := uint64(6)
	if testing.Short() {
		seeds = 2
	}
	for _, name := range []string{"smoke", "failovers"} {
		plain, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		s := withTimerLead(t, name, "2ms")
		designs := []string{"shared", "leader-follower", "per-pipeline", "shared-inline"}
		if name == "failovers" {
			// shared-inline fails failovers' delay bound with or without a
			// lead (seeds 1, 2, 4, 5 of 0-5): its two timer threads run the
			// bodies that block in the status path during a step-down.
			designs = designs[:3]
		}
		for _, design := range designs {
			v := map[string]string{"design": design}
			for seed := range seeds {
				out := Run(s, Options{Seed: seed, Variants: v})
				if out.Verdict != Pass {
					t.Errorf("%s with timer_lead, design %s, seed %d: %s %v\nreplay: %s", name, design, seed, out.Verdict, out.Violations, out.Replay)
					continue
				}
				if seed > 0 {
					continue
				}
				if again := Run(s, Options{Seed: seed, Variants: v}); again.TraceHash != out.TraceHash {
					t.Errorf("%s with timer_lead, design %s, seed 0: trace hash %s then %s", name, design, out.TraceHash, again.TraceHash)
				}
				if p := Run(plain, Options{Seed: seed, Variants: v}); p.TraceHash == out.TraceHash {
					t.Errorf("%s, design %s, seed 0: the same trace with and without timer_lead (%s)", name, design, p.TraceHash)
				}
			}
		}
	}
}

func TestTimerLeadValidated(t *testing.T) {
	for _, bad := range []string{"2s", "-1ms", "soon"} {
		s, err := Lookup("smoke")
		if err != nil {
			t.Fatal(err)
		}
		_, err = Parse("lead.yaml", append(s.YAML(), []byte("scheduler:\n  timer_lead: "+bad+"\n")...))
		if !errors.Is(err, ErrScenario) || !strings.Contains(err.Error(), "timer_lead") {
			t.Errorf("timer_lead %s: %v, want a scenario error naming timer_lead", bad, err)
		}
	}
}
