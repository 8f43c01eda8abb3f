package workloads

import (
	"maps"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/core/sched"
)

// TestSwarmConfigCovers: over 40 seeds the swarm scenario's draw runs
// every scheduler design, the timer lead both off and on, every pool and
// executor size and keep-alive, and zero and stepped latencies; the same
// seed draws the same options.
func TestSwarmConfigCovers(t *testing.T) {
	s, err := Lookup("swarm")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]map[string]bool{}
	for seed := range uint64(40) {
		out, chosen := SwarmConfig(s, seed)
		if _, again := SwarmConfig(s, seed); !maps.Equal(chosen, again) {
			t.Fatalf("seed %d: drew %v, then %v", seed, chosen, again)
		}
		if out == s || s.Scheduler.Design != "" {
			t.Fatal("SwarmConfig changed the scenario it was given")
		}
		if out.Scheduler.Design != chosen["design"] || out.Scheduler.TimerLead.D.String() != chosen["timer_lead"] {
			t.Fatalf("seed %d: scenario runs design %q lead %v, options say %v", seed, out.Scheduler.Design, out.Scheduler.TimerLead.D, chosen)
		}
		for k, v := range chosen {
			if seen[k] == nil {
				seen[k] = map[string]bool{}
			}
			switch {
			case k == "timer_lead" && v != "0s":
				v = "on"
			case strings.HasSuffix(k, "_latency") && strings.Contains(v, "step:"):
				v = "stepped"
			case strings.HasSuffix(k, "_latency") && v != "{kind: fixed}":
				v = "as listed"
			}
			seen[k][v] = true
		}
	}
	var designs []string
	for _, d := range sched.Designs {
		designs = append(designs, string(d))
	}
	want := map[string][]string{
		"design":              designs,
		"timer_lead":          {"0s", "on"},
		"dispatch_threads":    {"1", "2", "4", "8", "16"},
		"keep_alive":          {"10ms", "1s", "1m0s"},
		"executor_core":       {"1", "2", "10"},
		"executor_keep_alive": {"10ms", "1s", "1m0s"},
		"ack_latency":         {"{kind: fixed}", "stepped", "as listed"},
		"status_latency":      {"{kind: fixed}", "stepped", "as listed"},
	}
	for k, vs := range want {
		for _, v := range vs {
			if !seen[k][v] {
				t.Errorf("40 seeds never drew %s %s (drew %v)", k, v, seen[k])
			}
		}
	}
	if _, ok := seen["notify_latency"]; ok {
		t.Error("drew notify_latency, which swarm.yaml leaves unset (zero)")
	}
}

// TestSwarmConfigKeepsWhatTheFileSets: an option the file sets is not
// drawn, and the others draw what they draw without it.
func TestSwarmConfigKeepsWhatTheFileSets(t *testing.T) {
	s, err := Lookup("swarm")
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(string(s.YAML()), "\ncluster:\n", "\nscheduler:\n  design: per-pipeline\n  timer_lead: 1ms\ncluster:\n", 1)
	set, err := Parse("swarm-set.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for seed := range uint64(10) {
		_, all := SwarmConfig(s, seed)
		out, some := SwarmConfig(set, seed)
		if _, ok := some["design"]; ok || out.Scheduler.Design != "per-pipeline" || out.Scheduler.TimerLead.D.String() != "1ms" {
			t.Fatalf("seed %d: the file's design and lead were drawn over: %v", seed, some)
		}
		delete(all, "design")
		delete(all, "timer_lead")
		if !maps.Equal(all, some) {
			t.Errorf("seed %d: the other options moved when the file set two: %v, then %v", seed, all, some)
		}
	}
}

// TestSwarmOptionsRun: a swarm seed records the options it ran with, the
// same on a second run with the same trace hash; a --variant naming the
// drawn design changes nothing, one naming another design wins over the
// draw (and changes the run).
func TestSwarmOptionsRun(t *testing.T) {
	s, err := Lookup("swarm")
	if err != nil {
		t.Fatal(err)
	}
	const seed = 3
	a, b := Run(s, Options{Seed: seed}), Run(s, Options{Seed: seed})
	_, drawn := SwarmConfig(s, seed)
	if a.Verdict != Pass || a.TraceHash != b.TraceHash || !maps.Equal(a.Options, b.Options) || !maps.Equal(a.Options, drawn) {
		t.Fatalf("seed %d: %s %s %v, then %s %v; drawn %v", seed, a.Verdict, a.TraceHash, a.Options, b.TraceHash, b.Options, drawn)
	}
	same := Run(s, Options{Seed: seed, Variants: map[string]string{"design": drawn["design"]}})
	if same.TraceHash != a.TraceHash || !maps.Equal(same.Options, a.Options) {
		t.Errorf("--variant design=%s (the drawn design): hash %s, options %v; want %s, %v", drawn["design"], same.TraceHash, same.Options, a.TraceHash, a.Options)
	}
	other := string(sched.PerPipeline)
	if drawn["design"] == other {
		other = string(sched.LeaderFollower)
	}
	o := Run(s, Options{Seed: seed, Variants: map[string]string{"design": other}})
	if o.Options["design"] != other || o.TraceHash == a.TraceHash {
		t.Errorf("--variant design=%s: options %v, hash %s (drawn run %s)", other, o.Options, o.TraceHash, a.TraceHash)
	}
	delete(o.Options, "design")
	delete(drawn, "design")
	if !maps.Equal(o.Options, drawn) {
		t.Errorf("the variant moved the other options: %v, want %v", o.Options, drawn)
	}
	if plain, err := Lookup("smoke"); err != nil || Run(plain, Options{Seed: 0}).Options != nil {
		t.Errorf("a scenario without swarm records options (%v)", err)
	}
}
