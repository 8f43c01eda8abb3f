package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// upstreamRepro is an entry's upstream-repro field: "simrun run ARGS  #
// check C; not with KEY=DEFAULT". ARGS include --profile upstream (and may
// name a scenario file, .yaml, by its path from the repository root); C must
// fire under them, the seed must pass without --profile, and C must not
// fire under them with KEY=DEFAULT on top (the key that models the finding).
type upstreamRepro struct {
	entry, check, without string
	args                  []string
}

func loadUpstreamRepros(t *testing.T) []upstreamRepro {
	t.Helper()
	names, err := filepath.Glob(filepath.Join("..", "..", "results", "findings", "F[0-9]*.md"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no ledger entries: %v", err)
	}
	var out []upstreamRepro
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		front, _, _ := strings.Cut(strings.TrimPrefix(string(b), "---\n"), "\n---")
		for line := range strings.SplitSeq(front, "\n") {
			v, ok := strings.CutPrefix(line, "upstream-repro:")
			if !ok {
				continue
			}
			cmd, note, _ := strings.Cut(v, "#")
			check, without, _ := strings.Cut(strings.TrimSpace(note), ";")
			r := upstreamRepro{entry: filepath.Base(name),
				check:   strings.TrimSpace(strings.TrimPrefix(check, "check ")),
				without: strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(without), "not with "))}
			f := strings.Fields(cmd)
			if len(f) < 4 || f[0] != "simrun" || f[1] != "run" || !slices.Contains(f, "--profile") || r.check == "" || r.without == "" {
				t.Fatalf("%s: upstream-repro %q: want simrun run --profile NAME ...  # check C; not with K=V", r.entry, v)
			}
			r.args = f[2:]
			// A scenario file is named from the repository root, as the
			// entry's command runs; the test runs in cmd/simrun.
			if i := slices.Index(r.args, "--scenario"); i >= 0 && i+1 < len(r.args) && strings.HasSuffix(r.args[i+1], ".yaml") {
				r.args[i+1] = filepath.Join("..", "..", r.args[i+1])
			}
			out = append(out, r)
		}
	}
	return out
}

// withoutProfile drops --profile NAME from args.
func withoutProfile(args []string) []string {
	i := slices.Index(args, "--profile")
	return slices.Delete(slices.Clone(args), i, i+2)
}

// TestUpstreamRepros runs every ledger entry's upstream-repro: the named
// check fires under the profile, not once the finding's own key is back at
// its default, and the seed passes without the profile.
func TestUpstreamRepros(t *testing.T) {
	repros := loadUpstreamRepros(t)
	if len(repros) == 0 {
		t.Fatal("no ledger entry has an upstream-repro")
	}
	for _, r := range repros {
		t.Run(strings.TrimSuffix(r.entry, ".md"), func(t *testing.T) {
			t.Parallel()
			run := func(args ...string) (string, []string) {
				res := simrunExec(t, append(append([]string{"run"}, args...), "--seeds", "1", "--parallel", "1", "--json")...)
				var o struct {
					Verdict  string   `json:"verdict"`
					Checks   []string `json:"checks"`
					Profile  string   `json:"profile"`
					Variants string   `json:"variants"`
				}
				if err := json.Unmarshal([]byte(res.stdout), &o); err != nil {
					t.Fatalf("simrun run %v: %v\nstdout %s\nstderr %s", args, err, res.stdout, res.stderr)
				}
				if slices.Contains(args, "--profile") && (o.Profile == "" || !strings.Contains(o.Variants, "trigger-fence=")) {
					t.Errorf("simrun run %v: record names profile %q, variants %q: want the profile and its pairs", args, o.Profile, o.Variants)
				}
				return o.Verdict, o.Checks
			}
			if _, checks := run(r.args...); !slices.Contains(checks, r.check) {
				t.Errorf("under the profile %s did not fire (checks %v)", r.check, checks)
			}
			if _, checks := run(append(slices.Clone(r.args), "--variant", r.without)...); slices.Contains(checks, r.check) {
				t.Errorf("with %s on top of the profile %s still fired: the repro is not the finding's", r.without, r.check)
			}
			if v, checks := run(withoutProfile(r.args)...); v != "pass" {
				t.Errorf("without the profile: %s %v, want pass", v, checks)
			}
		})
	}
}

// TestProfileFlag: --profile expands to the profile's pairs, a --variant
// for one of its keys wins, the record names the profile, an unknown
// profile is a usage error, and compare shows the default and the profile
// side by side.
func TestProfileFlag(t *testing.T) {
	res := simrunExec(t, "run", "--scenario", "h9-deferred-fence", "--seeds", "1", "--parallel", "1", "--json",
		"--profile", "upstream", "--variant", "trigger-fence=generation")
	var o struct {
		Profile  string `json:"profile"`
		Variants string `json:"variants"`
		Replay   string `json:"replay"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &o); err != nil {
		t.Fatalf("%v\n%s%s", err, res.stdout, res.stderr)
	}
	if o.Profile != "upstream" || !strings.Contains(o.Variants, "trigger-fence=generation") ||
		!strings.Contains(o.Variants, "periodic-arm=live-chain") || !strings.Contains(o.Replay, "--variant periodic-arm=live-chain") {
		t.Errorf("record: profile %q variants %q replay %q: want upstream's pairs with trigger-fence=generation", o.Profile, o.Variants, o.Replay)
	}
	if r := simrunExec(t, "run", "--scenario", "smoke", "--profile", "nope"); r.code != exitUsage || !strings.Contains(r.stderr, "upstream") {
		t.Errorf("unknown profile: exit %d, stderr %q", r.code, r.stderr)
	}
	cmp := simrunExec(t, "compare", "--scenario", "h9-deferred-fence", "--seeds", "1", "--parallel", "1", "--profile", "upstream")
	var rows []string
	for line := range strings.SplitSeq(cmp.stdout, "\n") {
		if f := strings.Fields(line); len(f) > 2 && (f[0] == "fixed" || f[0] == "profile=upstream") {
			rows = append(rows, f[0]+" pass="+f[2])
		}
	}
	if strings.Join(rows, "; ") != "fixed pass=1; profile=upstream pass=0" {
		t.Errorf("compare --profile upstream rows %q, want the default passing and the profile failing\n%s", rows, cmp.stdout)
	}
}
