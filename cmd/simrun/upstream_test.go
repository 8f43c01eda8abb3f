package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// upstreamRepro is an entry's upstream-repro field: "simrun replay ARGS  #
// not with KEY=VALUE". ARGS run one seed (--seed N, never --seeds) under
// --profile upstream (and may name a scenario file, .yaml, by its path from
// the repository root) with --expect C, the check that is the finding:
// replay prints first whether C fired and exits 0 when it did, 1 when not,
// whatever else the profile makes fire. C must fire under ARGS, must not
// fire with KEY=VALUE on top (the key that models the finding, set to its
// fix), and the seed must pass without --profile.
type upstreamRepro struct {
	entry, check, without, seed string
	args                        []string
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
			r := upstreamRepro{entry: filepath.Base(name),
				without: strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(note), "not with "))}
			f := strings.Fields(cmd)
			value := func(flag string) (string, int) {
				n, val := 0, ""
				for i, a := range f {
					if a == flag && i+1 < len(f) {
						n, val = n+1, f[i+1]
					}
				}
				return val, n
			}
			var nSeed, nExpect int
			r.seed, nSeed = value("--seed")
			r.check, nExpect = value("--expect")
			if len(f) < 4 || f[0] != "simrun" || f[1] != "replay" || !slices.Contains(f, "--profile") ||
				slices.Contains(f, "--seeds") || nSeed != 1 || nExpect != 1 || strings.Contains(r.check, ",") ||
				!strings.Contains(r.without, "=") {
				t.Fatalf("%s: upstream-repro %q: want simrun replay --scenario S --seed N --profile NAME ... --expect C  # not with K=V", r.entry, v)
			}
			r.args = f[1:]
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

// without drops flag and its value from args.
func without(args []string, flag string) []string {
	i := slices.Index(args, flag)
	if i < 0 {
		return args
	}
	return slices.Delete(slices.Clone(args), i, i+2)
}

// TestUpstreamRepros runs every ledger entry's upstream-repro in-process,
// as a maintainer types it: one seed runs, the first line of its report
// says the finding's check fired and it exits 0; with the finding's key set
// to its fix the first line says the check did not fire and it exits 1;
// and the seed passes without the profile.
func TestUpstreamRepros(t *testing.T) {
	repros := loadUpstreamRepros(t)
	if len(repros) == 0 {
		t.Fatal("no ledger entry has an upstream-repro")
	}
	// Failing seeds leave their timelines under the temporary folder.
	t.Setenv("TMPDIR", t.TempDir())
	for _, r := range repros {
		t.Run(strings.TrimSuffix(r.entry, ".md"), func(t *testing.T) {
			replay := func(args []string) (int, []string) {
				var out, errb bytes.Buffer
				code := simrun(args, &out, &errb)
				lines := strings.Split(out.String(), "\n")
				var seeds []string
				for _, l := range lines {
					if s, ok := strings.CutPrefix(l, "seed: "); ok {
						seeds = append(seeds, s)
					}
				}
				if len(seeds) != 1 || seeds[0] != r.seed {
					t.Errorf("simrun %v: ran seeds %v, want the one seed %s\nstderr %s", args, seeds, r.seed, errb.String())
				}
				return code, lines
			}
			code, lines := replay(r.args)
			if want := "reproduced: " + r.check + " fired ("; code != 0 || !strings.HasPrefix(lines[0], want) || !strings.Contains(lines[0], " seed "+r.seed+",") {
				t.Errorf("under the profile: exit %d, first line %q: want 0 and %q...", code, lines[0], want)
			}
			code, lines = replay(append(slices.Clone(r.args), "--variant", r.without))
			if want := "not reproduced: none of " + r.check + " fired ("; code != 1 || !strings.HasPrefix(lines[0], want) {
				t.Errorf("with %s on top of the profile: exit %d, first line %q: want 1 and %q... (the repro is not the finding's)", r.without, code, lines[0], want)
			}
			if code, lines = replay(without(without(r.args, "--profile"), "--expect")); code != 0 {
				t.Errorf("without the profile: exit %d, want 0 (pass)\n%s", code, strings.Join(lines, "\n"))
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
