package workloads

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/core/sched"
	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/workloads/cluster"
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

// TestBoundsStallWhenBodiesQueue: the scheduling bound adds one FAILED
// status write when bodies queue for the pool and a trigger can fail on
// its thread, and only then.
func TestBoundsStallWhenBodiesQueue(t *testing.T) {
	s, err := Lookup("swarm") // 2 x 10 leases, status_latency max 5ms
	if err != nil {
		t.Fatal(err)
	}
	f := Faults{TriggerThrow: 0.01, StatusSlow: Dist{Kind: "exp", Mean: Dur(200 * time.Millisecond), Max: Dur(3 * time.Second)}}
	write := 5*time.Millisecond + 3*time.Second
	one := *s
	one.Scheduler.DispatchThreads = 1
	wide := *s
	wide.Scheduler.DispatchThreads = 20
	retry := f
	retry.StatusRetryable = 0.05
	ids := f
	ids.TriggerThrow, ids.IDFailure = 0, 0.01
	none := f
	none.TriggerThrow = 0
	for _, c := range []struct {
		name   string
		s      *Scenario
		design sched.Design
		f      Faults
		want   time.Duration
	}{
		{"one thread, throwing triggers", &one, sched.Shared, f, write},
		{"with retryable status errors, one backoff more", &one, sched.Shared, retry, write + statusBackoff},
		{"failing ids", &one, sched.LeaderFollower, ids, write},
		{"shared-inline's two timer threads", s, sched.SharedInline, f, write},
		{"no fault fails a trigger on its thread", &one, sched.Shared, none, 0},
		{"a thread per lease", &wide, sched.Shared, f, 0},
		{"per-pipeline", &one, sched.PerPipeline, f, 0},
	} {
		b := c.s.bounds(c.design, c.f)
		if b.SchedStall != c.want || b.SchedDelay != BoundFloor+c.want {
			t.Errorf("%s: stall %v, scheduling bound %v; want %v, %v", c.name, b.SchedStall, b.SchedDelay, c.want, BoundFloor+c.want)
		}
	}
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
	// failover = 2s + 10s + complete + sched (0) + wave (2.005s: see below)
	if want := 3*(2*time.Second+10*time.Second+4034*time.Millisecond+2005*time.Millisecond) + BoundFloor; b.FailoverToFirst != want {
		t.Fatalf("failover bound %v, want %v", b.FailoverToFirst, want)
	}
	// sched: no body slowness, so the floor; a step-down with retryable
	// status errors gives bodies due in its window one status write (5 ms)
	// and one status backoff (2 s) of allowance, and nothing else
	if b.SchedDelay != BoundFloor || b.SchedWave != 2005*time.Millisecond {
		t.Fatalf("sched bound %v wave %v, want the floor and 2.005s", b.SchedDelay, b.SchedWave)
	}
	// a step-down with a slowed status store (status_slow) and no
	// retryable errors: one status write at its longest
	g := s.Faults
	g.StatusRetryable = 0
	g.StatusSlow = Dist{Kind: "uniform", Min: Duration{D: 100 * time.Millisecond}, Max: Duration{D: 3 * time.Second}}
	if b := s.bounds("", g); b.SchedWave != 5*time.Millisecond+3*time.Second {
		t.Fatalf("wave with status_slow %v, want 3.005s", b.SchedWave)
	}
	f := s.Faults
	f.StepDown = Schedule{}
	if b := s.bounds("", f); b.SchedDelay != BoundFloor || b.SchedWave != 0 {
		t.Fatalf("sched bound without a step-down %v wave %v, want the floor and 0", b.SchedDelay, b.SchedWave)
	}
	if p := p99([]time.Duration{5, 1, 3}); p != 5 {
		t.Fatalf("p99 = %v", p)
	}
}

// TestBoundsWaveOnlyInStepDownWindows: the status-retry allowance applies
// only to bodies due inside a step-down window the harness injected (or
// one backoff after it), so a 2 s wave there passes while the same delays
// anywhere else fail; without the wave faults there is no allowance.
func TestBoundsWaveOnlyInStepDownWindows(t *testing.T) {
	s, err := Lookup("failovers")
	if err != nil {
		t.Fatal(err)
	}
	b := s.bounds("", s.Faults)
	sec := func(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }
	windows := []oracle.Window{{From: sec(90), To: sec(95)}}
	// 1000 bodies, every 100 ms from 0 s; the 50 due at 90.0-94.9 s
	// start 2.03 s late (one backoff and a little), the rest on time.
	var delays, dues []time.Duration
	for i := range 1000 {
		due := sec(float64(i) / 10)
		d := time.Duration(0)
		if due >= sec(90) && due < sec(95) {
			d = 2030 * time.Millisecond
		}
		dues, delays = append(dues, due), append(delays, d)
	}
	if vs := b.violations(Latencies{SchedDelay: delays}, dues, windows); len(vs) != 0 {
		t.Fatalf("a wave inside the step-down window failed: %v", vs)
	}
	// the same wave at 30-35 s, outside any window: fails
	shifted := slices.Clone(dues)
	for i := range shifted {
		shifted[i] = (shifted[i] + sec(40)) % sec(100)
	}
	vs := b.violations(Latencies{SchedDelay: delays}, shifted, windows)
	if len(vs) != 1 || !strings.Contains(vs[0], "scheduling delay 2.03s") {
		t.Fatalf("a wave outside any window: %v", vs)
	}
	// a tenfold degradation (2.5 s at p99) of bodies due outside the
	// window fails although the window's own bodies are forgiven
	for i := range delays {
		if dues[i] < sec(90) && i%50 == 0 {
			delays[i] = 2500 * time.Millisecond
		}
	}
	if vs := b.violations(Latencies{SchedDelay: delays}, dues, windows); len(vs) != 1 {
		t.Fatalf("degradation outside the window: %v", vs)
	}
	// without a step-down in the faults there is no allowance at all
	f := s.Faults
	f.StepDown = Schedule{}
	if vs := s.bounds("", f).violations(Latencies{SchedDelay: delays[900:]}, dues[900:], windows); len(vs) != 1 {
		t.Fatalf("no wave faults, wave delays: %v", vs)
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
