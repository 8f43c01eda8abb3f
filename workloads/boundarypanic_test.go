package workloads

import (
	"testing"
)

const panicScenario = `name: boundary-panic-test
cluster: {jobs: 1, pipelines: 4, tasks: 2}
checkpoint: {interval: 2s, timeout: 2s}
workload:
  ack_latency: {kind: uniform, min: 10ms, max: 300ms}
  status_latency: {kind: uniform, max: 50ms}
  restart_delay: {min: 200ms}
faults:
  task_failure: 0.05
  boundary_panic: 0.05
run: {duration: 1m, heal: 30s}
`

// TestBoundaryPanicContained: under boundary_panic every call the fault
// covers panics on a core thread in a few seeds (a store, a barrier, a
// notify, a status write), core contains each as that call's error
// (coord.containDeps), no panic reaches the coordinator executor's pool,
// and the runs pass: every pipeline fails over and checkpoints again.
func TestBoundaryPanicContained(t *testing.T) {
	s, err := Parse("boundarypanic_test.go", []byte(panicScenario))
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string]int{}
	for seed := range uint64(4) {
		r := &runner{s: s, opt: Options{Seed: seed}, faults: s.Faults}
		if r.ccfg, err = s.clusterConfig(s.effectiveVariants(nil), s.Faults); err != nil {
			t.Fatal(err)
		}
		out := r.run(Outcome{Scenario: s.Name, Seed: seed})
		if out.Verdict != Pass {
			t.Fatalf("seed %d: %s %v", seed, out.Verdict, out.Violations)
		}
		if n := r.c.ExecutorPanics; n != 0 {
			t.Fatalf("seed %d: %d panics reached the coordinator executor", seed, n)
		}
		for k, n := range r.c.Panicked {
			calls[k] += n
		}
	}
	for _, call := range []string{"Storage.Store", "Transport.TriggerBarrier", "Transport.NotifyComplete", "StatusStore.Set"} {
		if calls[call] == 0 {
			t.Errorf("no %s panicked in 4 seeds (%v)", call, calls)
		}
	}
	t.Logf("panics %v", calls)
}
