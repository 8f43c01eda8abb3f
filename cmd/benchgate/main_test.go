package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

func TestGate(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want int
		out  string
	}{
		{"time is informational", []string{"testdata/base.txt", "testdata/head-ok.txt"}, 0, "info  BenchmarkTrigger/design=shared/pipelines=10 p50-sec"},
		{"steps regressed", []string{"testdata/base.txt", "testdata/head-steps.txt"}, 1, "FAIL  BenchmarkSim/pipelines=10 steps/op"},
		{"allocs regressed", []string{"testdata/base.txt", "testdata/head-allocs.txt"}, 1, "FAIL  BenchmarkSim/pipelines=10 allocs/step"},
		{"tighter max", []string{"-max", "2", "testdata/base.txt", "testdata/head-ok.txt"}, 1, "allocs/step"},
		{"improvement passes", []string{"testdata/head-steps.txt", "testdata/base.txt"}, 0, "ok    BenchmarkSim/pipelines=10 steps/op"},
		{"GOMAXPROCS suffix ignored", []string{"testdata/base.txt", "testdata/head-procs.txt"}, 1, "FAIL  BenchmarkSim/pipelines=10 steps/op"},
		{"gated figure missing from head", []string{"testdata/base.txt", "testdata/head-gone.txt"}, 1, "GONE  BenchmarkSim/pipelines=100 steps/op"},
		{"ungated figure missing is fine", []string{"testdata/head-ok.txt", "testdata/head-notrigger.txt"}, 0, "ok    BenchmarkSim/pipelines=10 steps/op"},
		{"gated ratio within its limit", []string{"testdata/ratio-base.txt", "testdata/ratio-head-ok.txt"}, 0, "ok    BenchmarkTimedWakeRatio/threads=500 synctest/sim"},
		{"gated ratio past its limit", []string{"testdata/ratio-base.txt", "testdata/ratio-head-bad.txt"}, 1, "FAIL  BenchmarkTimedWakeRatio/threads=500 synctest/sim"},
		{"gated ratio missing from head", []string{"testdata/ratio-base.txt", "testdata/ratio-head-gone.txt"}, 1, "GONE  BenchmarkTimedWakeRatio/threads=500 synctest/sim"},
		{"ungated wall-clock figure", []string{"testdata/ratio-base.txt", "testdata/ratio-head-gone.txt"}, 1, "info  BenchmarkTimedWakeRatio/threads=500 sim-sec/wake"},
		{"floor: a drop from the baseline above the floor passes", []string{"testdata/floor-base.txt", "testdata/floor-head-ok.txt"}, 0, "ok    BenchmarkTimedWakeRatio/threads=500 synctest/sim: 3 -> 2.15 (~) floor 2"},
		{"floor: below it fails", []string{"testdata/floor-base.txt", "testdata/floor-head-bad.txt"}, 1, "FAIL  BenchmarkTimedWakeRatio/threads=500 synctest/sim: 3 -> 1.95"},
		{"floor: missing from head", []string{"testdata/floor-base.txt", "testdata/floor-head-gone.txt"}, 1, "GONE  BenchmarkTimedWakeRatio/threads=500 synctest/sim"},
		{"quiet: the regression and the counts", []string{"-quiet", "testdata/base.txt", "testdata/head-steps.txt"}, 1, "FAIL  BenchmarkSim/pipelines=10 steps/op"},
		{"quiet: counts only when all pass", []string{"-quiet", "testdata/base.txt", "testdata/head-ok.txt"}, 0, "gated figures within their limit, 0 regressed"},
		{"rel: a ratio to the reference within its limit", []string{"-rel", "cpu-ns/op ^BenchmarkTriggerPrecise/ BenchmarkWakeFloor x4", "testdata/rel-head.txt", "testdata/rel-head.txt"}, 0, "ok    BenchmarkTriggerPrecise/design=leader-follower/pipelines=10 cpu-ns/op: 3.5e+05 = 3.50x BenchmarkWakeFloor's 1e+05 (limit x4)"},
		{"rel: the median, not the mean", []string{"-rel", "cpu-ns/op ^BenchmarkTriggerPrecise/ BenchmarkWakeFloor x4", "testdata/rel-head.txt", "testdata/rel-head.txt"}, 0, "ok    BenchmarkTriggerPrecise/design=shared/pipelines=10 cpu-ns/op: 2.5e+05 = 2.50x"},
		{"rel: a ratio past its limit", []string{"-rel", "cpu-ns/op ^BenchmarkTriggerPrecise/ BenchmarkWakeFloor x3", "testdata/rel-head.txt", "testdata/rel-head.txt"}, 1, "FAIL  BenchmarkTriggerPrecise/design=leader-follower/pipelines=10 cpu-ns/op: 3.5e+05 = 3.50x"},
		{"rel: a difference within its limit", []string{"-rel", "cpu-ns/op ^BenchmarkTriggerPrecise/ BenchmarkWakeFloor +250000", "testdata/rel-head.txt", "testdata/rel-head.txt"}, 0, "ok    BenchmarkTriggerPrecise/design=leader-follower/pipelines=10 cpu-ns/op: 3.5e+05 = BenchmarkWakeFloor's 1e+05 +2.5e+05 (limit +250000)"},
		{"rel: a difference past its limit", []string{"-rel", "cpu-ns/op ^BenchmarkTriggerPrecise/ BenchmarkWakeFloor +200000", "testdata/rel-head.txt", "testdata/rel-head.txt"}, 1, "FAIL  BenchmarkTriggerPrecise/design=leader-follower/pipelines=10"},
		{"rel: quiet prints the failure", []string{"-quiet", "-rel", "cpu-ns/op ^BenchmarkTriggerPrecise/ BenchmarkWakeFloor x3", "testdata/rel-head.txt", "testdata/rel-head.txt"}, 1, "FAIL  BenchmarkTriggerPrecise/design=leader-follower"},
		{"rel: the reference missing from head", []string{"-rel", "cpu-ns/op ^BenchmarkTriggerPrecise/ BenchmarkWakeFloor x4", "testdata/rel-head.txt", "testdata/head-ok.txt"}, 1, "GONE  BenchmarkWakeFloor cpu-ns/op"},
		{"rel: nothing matches in head", []string{"-rel", "cpu-ns/op ^BenchmarkTriggerCoord/ BenchmarkWakeFloor x4", "testdata/rel-head.txt", "testdata/rel-head.txt"}, 1, "GONE  ^BenchmarkTriggerCoord/ cpu-ns/op"},
		{"rel: a malformed rule", []string{"-rel", "cpu-ns/op ^BenchmarkTriggerPrecise/ BenchmarkWakeFloor 3", "testdata/rel-head.txt", "testdata/rel-head.txt"}, 2, ""},
		{"missing input", []string{"testdata/base.txt", "testdata/nope.txt"}, 2, ""},
		{"empty input", []string{"testdata/empty.txt", "testdata/base.txt"}, 2, ""},
		{"usage", []string{"testdata/base.txt"}, 2, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errs bytes.Buffer
			if got := run(c.args, &out, &errs); got != c.want {
				t.Fatalf("exit %d, want %d\n%s%s", got, c.want, out.String(), errs.String())
			}
			if !strings.Contains(out.String(), c.out) {
				t.Fatalf("output lacks %q:\n%s", c.out, out.String())
			}
			if slices.Contains(c.args, "-quiet") && c.want == 0 && strings.Count(out.String(), "\n") != 1 {
				t.Fatalf("quiet output of a passing gate is more than its line of counts:\n%s", out.String())
			}
		})
	}
}
