package variant_test

import (
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/core/sched"
	"github.com/ckptsim/ckptsim/core/variant"
)

// TestSpellings pins every key and value as users type them (simrun
// --variant, a scenario's variants map): they are an interface.
func TestSpellings(t *testing.T) {
	want := []string{
		"design=" + joinDesigns(),
		"task-failure=recover|kill-worker",
		"expiry-fence=generation|none",
		"deferred-fence=generation|none",
		"savepoint-wait=outside-lock|under-lock",
		"trigger-errors=report|silent",
		"barrier-continuation=async|inline",
		"expiry-exec=executor|inline",
		"expiry-fallback=inline|drop",
		"watchdog-recheck=pending|none",
		"retention=durable|memory",
		"idle-restore=rebuild|forget",
		"pending-decrement=if-pending|always",
		"schema-recommit=keeps|ends",
		"finish-future=own|current",
		"completion-fallback=inline|drop",
		"dropped-schema-change=ends|keeps",
		"status-fence=generation|none",
		"periodic-arm=new-chain|live-chain",
		"trigger-fence=generation|none",
		"final-rearm=lease|none",
		"final-restore=waits|races",
		"restore-load=retries|once",
		"restore-chain=new|live",
		"notify-wait=none|backoff",
		"cancel-all=keeps|clears",
		"close-tasks=settles|drops",
		"status-panic=retry|drop",
		"savepoint-list=fail|skip-unreadable",
		"checkpoint-delete=sync|no-sync",
		"ack-match=stamp|id",
		"checkpoint-checksum=verify|ignore",
	}
	got := variant.Listing()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("listing:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// joinDesigns: every design the scheduler knows is a value of design,
// default first, with nothing to add here when a design is added.
func joinDesigns() string {
	var s []string
	for _, d := range sched.Designs {
		s = append(s, string(d))
	}
	return strings.Join(s, "|")
}

// TestEveryValueRoundTrips: each key=value parses to a typed value that
// String renders back (the default renders as nothing), and the zero Set
// is the fixed design.
func TestEveryValueRoundTrips(t *testing.T) {
	if s := (variant.Set{}).String(); s != "fixed" {
		t.Fatalf("zero Set is %q, want fixed", s)
	}
	for _, k := range variant.Keys() {
		for i, v := range k.Values {
			s, err := variant.Parse(map[string]string{k.Name: v})
			if err != nil {
				t.Fatalf("%s=%s: %v", k.Name, v, err)
			}
			want := k.Name + "=" + v
			if i == 0 {
				want = "fixed"
			}
			if s.String() != want {
				t.Errorf("%s=%s renders %q, want %q", k.Name, v, s.String(), want)
			}
		}
	}
}

// TestTypedValues: parsing lands in the typed field that core compares.
func TestTypedValues(t *testing.T) {
	s, err := variant.Parse(map[string]string{"expiry-fence": "none", "design": "per-pipeline",
		"task-failure": "kill-worker", "barrier-continuation": "inline", "retention": "memory"})
	if err != nil {
		t.Fatal(err)
	}
	if s.ExpiryFence != variant.FenceNone || s.DeferredFence != variant.FenceGeneration || s.Design != sched.PerPipeline ||
		s.TaskFailure != sched.KillWorker || s.BarrierContinuation != variant.ContinueInline || s.Retention != variant.RetainMemory {
		t.Fatalf("parsed %+v", s)
	}
	if got := s.String(); got != "design=per-pipeline,task-failure=kill-worker,expiry-fence=none,barrier-continuation=inline,retention=memory" {
		t.Errorf("String: %s", got)
	}
}

// TestTyposAreErrors: an unknown key or value names the key and what it
// allows; the first error of a map is always the same one.
func TestTyposAreErrors(t *testing.T) {
	for _, tc := range []struct{ key, value, want string }{
		{"expiry-fence", "nope", `unknown value "nope" for variant expiry-fence (want generation or none)`},
		{"trigger-errors", "loud", `unknown value "loud" for variant trigger-errors (want report or silent)`},
		{"design", "sharded", `unknown value "sharded" for variant design (want ` + strings.ReplaceAll(joinDesigns(), "|", ", ")},
		{"colour", "blue", `unknown variant key "colour"`},
		{"expiry_fence", "none", `unknown variant key "expiry_fence"`},
	} {
		err := variant.Check(tc.key, tc.value)
		if err == nil || !strings.Contains(strings.Replace(err.Error(), " or ", ", ", 1), strings.Replace(tc.want, " or ", ", ", 1)) {
			t.Errorf("%s=%s: %v, want %s", tc.key, tc.value, err, tc.want)
		}
	}
	for range 20 {
		_, err := variant.Parse(map[string]string{"zeta": "1", "alpha": "2", "retention": "x"})
		if err == nil || err.Error() != `unknown variant key "alpha"` {
			t.Fatalf("Parse: %v, want the first key in order", err)
		}
	}
}

// TestParsePairs: the command-line form, checked pair by pair.
func TestParsePairs(t *testing.T) {
	m, err := variant.ParsePairs("design=per-pipeline, expiry-fence=none")
	if err != nil || len(m) != 2 || m["design"] != "per-pipeline" || m["expiry-fence"] != "none" {
		t.Fatalf("%v %v", m, err)
	}
	if m, err := variant.ParsePairs("fixed"); err != nil || len(m) != 0 {
		t.Fatalf("fixed: %v %v", m, err)
	}
	for in, want := range map[string]string{"design": "want key=value", "=x": "want key=value",
		"retention=disk": `unknown value "disk" for variant retention`} {
		if _, err := variant.ParsePairs(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %s", in, err, want)
		}
	}
}

// TestProfiles: every profile's pairs are registry keys and values, none
// is a default (a pair that changes nothing is a mistake), no key repeats,
// and a --variant pair wins over the profile's value.
func TestProfiles(t *testing.T) {
	ps := variant.Profiles()
	if len(ps) == 0 || ps[0].Name != "upstream" {
		t.Fatalf("profiles %v: want upstream first", ps)
	}
	for _, p := range ps {
		seen := map[string]bool{}
		for _, v := range p.Values {
			k, err := variant.Lookup(v.Key)
			if err != nil {
				t.Fatalf("profile %s: %v", p.Name, err)
			}
			if err := variant.Check(v.Key, v.Value); err != nil {
				t.Fatalf("profile %s: %v", p.Name, err)
			}
			if v.Value == k.Values[0] {
				t.Errorf("profile %s sets %s to its default %s", p.Name, v.Key, v.Value)
			}
			if seen[v.Key] || v.Why == "" {
				t.Errorf("profile %s: %s repeated or without a reason", p.Name, v.Key)
			}
			seen[v.Key] = true
		}
		first, _ := variant.Lookup(p.Values[0].Key)
		m := p.Expand(map[string]string{first.Name: first.Values[0]})
		if m[first.Name] != first.Values[0] {
			t.Errorf("profile %s: --variant %s=%s lost to the profile's %s", p.Name, first.Name, first.Values[0], m[first.Name])
		}
		if len(m) != len(p.Values) {
			t.Errorf("profile %s expands to %d pairs, want %d", p.Name, len(m), len(p.Values))
		}
	}
	if _, err := variant.LookupProfile("nope"); err == nil || !strings.Contains(err.Error(), "upstream") {
		t.Fatalf("unknown profile: %v, want an error naming upstream", err)
	}
}
