package workloads

import (
	"slices"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/sim/cluster"
	"github.com/ckptsim/ckptsim/workloads/oracle"
)

// runModified runs one seed of an embedded scenario with its cluster
// configuration changed behind the scenario's back: the bounds still come
// from the scenario, so the change is a degradation it does not explain.
func runModified(t *testing.T, name string, seed uint64, mod func(*cluster.Config)) Outcome {
	t.Helper()
	s, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	r := &runner{s: s, opt: Options{Seed: seed}, faults: s.Faults}
	if r.ccfg, err = s.clusterConfig(s.effectiveVariants(nil), s.Faults); err != nil {
		t.Fatal(err)
	}
	mod(&r.ccfg)
	return r.run(Outcome{Scenario: s.Name, Seed: seed})
}

// TestBoundsCatchSlowdown: smoke's scheduling delay is 0 at p99 (bound
// 250 ms). A scheduler degraded to one dispatch thread whose trigger bodies
// block for 1 s (an order of magnitude and more) fails with a liveness
// verdict from latency-bound; the undegraded seed passes (TestSmokeScenarioPasses).
func TestBoundsCatchSlowdown(t *testing.T) {
	out := runModified(t, "smoke", 0, func(c *cluster.Config) {
		c.Sched.DispatchThreads = 1
		c.Workload.BodySlowness = cluster.Dist{Min: time.Second}
	})
	if out.Verdict != Liveness || !slices.Contains(out.Checks, oracle.LatencyBound) {
		t.Fatalf("degraded scheduler: %s %v %v", out.Verdict, out.Checks, out.Violations)
	}
	t.Logf("p99 scheduling delay %v: %v", p99(out.Latency.SchedDelay), out.Violations)
}

func TestBoundsRule(t *testing.T) {
	s, err := Lookup("failovers")
	if err != nil {
		t.Fatal(err)
	}
	b := s.bounds("", s.Faults)
	// complete = 2 x (2ms + 0) + min(4s, 5s) + 20ms + 2 x 5ms = 4.034s; x3 + 250ms
	if want := 3*(4034*time.Millisecond) + BoundFloor; b.TriggerToComplete != want {
		t.Fatalf("trigger to complete bound %v, want %v", b.TriggerToComplete, want)
	}
	// failover = 2s + 10s + complete + sched (2s: see below)
	if want := 3*(2*time.Second+10*time.Second+4034*time.Millisecond+2*time.Second) + BoundFloor; b.FailoverToFirst != want {
		t.Fatalf("failover bound %v, want %v", b.FailoverToFirst, want)
	}
	// sched: no body slowness, but a step-down with retryable status
	// errors: one status backoff (2 s)
	if want := 3*(2*time.Second) + BoundFloor; b.SchedDelay != want {
		t.Fatalf("sched bound %v, want %v", b.SchedDelay, want)
	}
	f := s.Faults
	f.StepDown = Schedule{}
	if b := s.bounds("", f); b.SchedDelay != BoundFloor {
		t.Fatalf("sched bound without a step-down %v, want the floor", b.SchedDelay)
	}
	if p := p99([]time.Duration{5, 1, 3}); p != 5 {
		t.Fatalf("p99 = %v", p)
	}
}

// TestBlockedForeverFires: a thread blocked without a deadline since before
// heal is a liveness finding; an idle pool worker is not, nor a wait that
// began after heal.
func TestBlockedForeverFires(t *testing.T) {
	r := &runner{healAt: time.Minute, w: sim.New(sim.Config{Seed: 1})}
	r.progress(sim.Result{Blocked: []sim.BlockedThread{
		{Name: "savepoint-waiter-0", WaitOn: "wait on cond of coord.future", Since: 30 * time.Second},
		{Name: "checkpoint-dispatcher-1", WaitOn: "wait on cond of exec.pool", Since: 0},
		{Name: "job-master-0-1", WaitOn: "lock coord.lock", Since: 2 * time.Minute},
	}})
	fs := r.find.List()
	if len(fs) != 1 || fs[0].Check != oracle.BlockedForever || fs[0].Subject != "savepoint-waiter-0" {
		t.Fatalf("findings %v", fs)
	}
}
