package main

import (
	"bufio"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/workloads"
)

// TestReproductionsStillFail replays every shrunk hazard reproduction of
// results/hazards/repro.mk (what `make repro-hN` runs) and requires the
// row's named check to fire (a crash or another failure is not a
// reproduction), and the fixed design to pass the same case: a catalog
// entry that stops reproducing is a regression of the harness, not a fix.
func TestReproductionsStillFail(t *testing.T) {
	f, err := os.Open("../../results/hazards/repro.mk")
	if err != nil {
		t.Skip("no catalog yet:", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	catalog := mustCatalog(t)
	var h workloads.Hazard
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if id, ok := strings.CutPrefix(line, "repro-"); ok && strings.HasSuffix(id, ":") {
			id = strings.ToUpper(strings.TrimSuffix(id, ":"))
			for _, c := range catalog {
				if c.ID == id {
					h = c
				}
			}
			continue
		}
		if !strings.HasPrefix(line, "go run ./cmd/simrun replay ") {
			continue
		}
		if h.Pending != "" {
			t.Logf("%s pending (%s): %s not replayed", h.ID, h.Pending, line)
			continue
		}
		n++
		s, opt := parseReplay(t, strings.Fields(line)[4:])
		if out := workloads.Run(s, opt); !slices.ContainsFunc(out.Checks, func(id string) bool { return slices.Contains(h.Checks, id) }) {
			t.Errorf("%s: %s no longer fires %v (verdict %s, checks %v)", h.ID, line, h.Checks, out.Verdict, out.Checks)
		}
		// The fixed design: a shrunk scenario file carries the bug's
		// variants in its own variants: block, so they come out of the
		// scenario as well as out of the options.
		fixed := *s
		fixed.Variants = maps.Clone(s.Variants)
		for k := range h.Bug {
			delete(fixed.Variants, k)
		}
		opt.Variants = h.Fixed
		if out := workloads.Run(&fixed, opt); out.Verdict != workloads.Pass {
			t.Errorf("%s: the fixed design fails the reproduction %s: %s %.300v", h.ID, line, out.Verdict, out.Violations)
		}
	}
	if n == 0 {
		t.Fatal("repro.mk lists no reproduction")
	}
}

func parseReplay(t *testing.T, args []string) (*workloads.Scenario, workloads.Options) {
	t.Helper()
	opt := workloads.Options{Variants: map[string]string{}}
	var s *workloads.Scenario
	for i := 0; i+1 < len(args); i += 2 {
		v := args[i+1]
		switch args[i] {
		case "--scenario":
			var err error
			if _, serr := os.Stat("../../" + v); serr == nil {
				s, err = workloads.LoadFile("../../" + v) // a shrunk scenario under results/
			} else {
				s, err = workloads.Lookup(v) // an embedded one (catalog run with -shrink=false)
			}
			if err != nil {
				t.Fatal(err)
			}
		case "--seed":
			seed, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			opt.Seed = seed
		case "--variant":
			k, val, _ := strings.Cut(v, "=")
			opt.Variants[k] = val
		case "--strategy":
			opt.Strategy = v
		}
	}
	if s == nil {
		t.Fatalf("no scenario in %v", args)
	}
	return s, opt
}
