package main

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/workloads"
)

// TestReproductionsStillFail replays every shrunk hazard reproduction of
// results/hazards/repro.mk (what `make repro-hN` runs) and requires it to
// fail: a catalog entry that stops reproducing is a regression of the
// harness, not a fix.
func TestReproductionsStillFail(t *testing.T) {
	f, err := os.Open("../../results/hazards/repro.mk")
	if err != nil {
		t.Skip("no catalog yet:", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "go run ./cmd/simrun replay ") {
			continue
		}
		n++
		s, opt := parseReplay(t, strings.Fields(line)[4:])
		if out := workloads.Run(s, opt); out.Verdict == workloads.Pass {
			t.Errorf("%s no longer fails", line)
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
			if s, err = workloads.LoadFile("../../" + v); err != nil {
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
