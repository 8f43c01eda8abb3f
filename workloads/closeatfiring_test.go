package workloads

import (
	"errors"
	"strings"
	"testing"
)

// TestCloseAtFiringEntersBothWindows: with run.close_at_firing the
// harness's close of the scheduler meets a firing in flight, and the first
// ten seeds of close-at-firing enter both windows between a close and a
// firing (a re-arm refused by the shut-down timer, a claim's hand-off
// refused by the shut-down pool) and pass; the same seeds without the
// field enter neither.
func TestCloseAtFiringEntersBothWindows(t *testing.T) {
	s, err := Lookup("close-at-firing")
	if err != nil {
		t.Fatal(err)
	}
	plain, err := Parse("plain.yaml", []byte(strings.Replace(string(s.YAML()), "  close_at_firing: true\n", "", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if plain.Run.CloseAtFiring || !s.Run.CloseAtFiring {
		t.Fatalf("close_at_firing: scenario %v, without the line %v", s.Run.CloseAtFiring, plain.Run.CloseAtFiring)
	}
	probes := []string{"lease-arm-refused", "timer-schedule-closed", "claim-hand-off-refused"}
	seeds := map[string]int{}
	for seed := range uint64(10) {
		out := Run(s, Options{Seed: seed})
		if out.Verdict != Pass {
			t.Errorf("seed %d: %s %v\nreplay: %s", seed, out.Verdict, out.Violations, out.Replay)
		}
		for _, p := range probes {
			if out.Probes[p] > 0 {
				seeds[p]++
			}
		}
		base := Run(plain, Options{Seed: seed})
		for _, p := range probes {
			if base.Probes[p] > 0 {
				t.Errorf("seed %d without close_at_firing hit %s", seed, p)
			}
		}
	}
	for _, p := range probes {
		if seeds[p] == 0 {
			t.Errorf("no seed of 0-9 hit %s (hits: %v)", p, seeds)
		}
	}
}

// TestCloseAtFiringValidated: close_at_firing with every job cancelled
// is refused (no lease task would be left to fire), naming the field.
func TestCloseAtFiringValidated(t *testing.T) {
	s, err := Lookup("close-at-firing")
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(string(s.YAML()), "  close_at_firing: true\n", "  close_at_firing: true\n  cancel: {jobs: 1, at: 1s}\n", 1)
	_, err = Parse("bad.yaml", []byte(src))
	var e *Error
	if !errors.As(err, &e) || e.Field != "run.close_at_firing" {
		t.Errorf("close_at_firing with every job cancelled: got %v, want an error naming run.close_at_firing", err)
	}
	src = strings.Replace(string(s.YAML()), "  close_at_firing: true\n", "  close_at_firing: yes please\n", 1)
	if _, err := Parse("bad.yaml", []byte(src)); !errors.Is(err, ErrScenario) {
		t.Errorf("close_at_firing: yes please: got %v, want a scenario error", err)
	}
}
