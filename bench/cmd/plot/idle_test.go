package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIdleMedianOverRounds: the idle table and goals take each figure's
// median over a cell's runs (bench/idle.sh -r), compute context switches
// per firing from ctxsw/s and firings/s, show – where a run lacks the
// count, and judge CPU and switches separately.
func TestIdleMedianOverRounds(t *testing.T) {
	dir := t.TempDir()
	goRuns := `goos: linux
BenchmarkIdleMember/env=precise/design=shared/pipelines=100/interval=1s-2 1 9.0 cpu-% 100 firings/s 900 ctxsw/s 4 threads
BenchmarkIdleMember/env=wall1/design=shared/pipelines=100/interval=1s-2 1 1.0 cpu-% 100 firings/s 280 ctxsw/s 3 threads
BenchmarkIdleMember/env=precise/design=shared/pipelines=100/interval=1s-2 1 30.0 cpu-% 100 firings/s 920 ctxsw/s 4 threads
BenchmarkIdleMember/env=wall1/design=shared/pipelines=100/interval=1s-2 1 5.0 cpu-% 100 firings/s 300 ctxsw/s 3 threads
BenchmarkIdleMember/env=precise/design=shared/pipelines=100/interval=1s-2 1 2.0 cpu-% 100 firings/s 910 ctxsw/s 4 threads
BenchmarkIdleMember/env=wall1/design=shared/pipelines=100/interval=1s-2 1 1.5 cpu-% 100 firings/s 290 ctxsw/s 3 threads
BenchmarkIdleMember/env=wall/design=shared/pipelines=100/interval=1s-2 1 2.5 cpu-% 100 firings/s 4 threads
BenchmarkIdleMember/env=precise1/design=shared/pipelines=100/interval=1s-2 1 2.0 cpu-% 100 firings/s 300 ctxsw/s 3 threads 0.75 spin-% 12.5 over-budget-% 1500 p50-ns
`
	jdkRuns := `peer: jdk
BenchmarkIdleMember/env=jdk/design=shared/pipelines=100/interval=1s-2 1 3.0 cpu-% 100 firings/s 400 ctxsw/s 30 threads
BenchmarkIdleMember/env=jdk/design=shared/pipelines=100/interval=1s-2 1 3.5 cpu-% 100 firings/s 420 ctxsw/s 30 threads
BenchmarkIdleMember/env=jdk/design=shared/pipelines=100/interval=1s-2 1 4.0 cpu-% 100 firings/s 410 ctxsw/s 30 threads
`
	for name, s := range map[string]string{"idle-go.txt": goRuns, "idle-jdk.txt": jdkRuns} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	idleGoal(&b, rows)
	idleTable(&b, rows)
	out := b.String()
	for _, want := range []string{
		// CPU medians 9.0 (precise), 2.0 (precise1: one run), 2.5 (wall: one run), 1.5 (wall1), 3.5 (jdk)
		// spin, over budget and p50: the one precise1 run's, – for the runs without them
		"| shared | 100 | 1s | 9.00 / 2.00 / 2.50 / 1.50 / 3.50 | – / 0.75 / – / – / – | – / 12.5 / – / – / – | – / 1.5 µs / – / – / – | 9.1 / 3.0 / – / 2.9 / 4.1 |",
		"| (idle member) default env on one P (GOMAXPROCS 1) CPU % of a core <= the JDK peer's on the same schedule, every design x pipelines x interval cell where both run | 1 of 1 cells at or below (median ratio 0.57) | **met** |",
		"| (idle member) default env CPU % of a core <= the JDK peer's on the same schedule, every design x pipelines x interval cell where both run | 0 of 1 cells at or below (median ratio 2.57); above: shared/100/1s 9.00% vs 3.50% | **not met** |",
		"| (idle member) Wall CPU % of a core <= the JDK peer's on the same schedule, every design x pipelines x interval cell where both run | 1 of 1 cells at or below (median ratio 0.71) | **met** |",
		"| (idle member) Wall on one P (GOMAXPROCS 1) CPU % of a core <= the JDK peer's on the same schedule, every design x pipelines x interval cell where both run | 1 of 1 cells at or below (median ratio 0.43) | **met** |",
		"| (idle member) default env context switches per firing (a count the host's stops do not move) <= the JDK peer's on the same schedule, every design x pipelines x interval cell where both run | 0 of 1 cells at or below (median ratio 2.22); above: shared/100/1s 9.1 vs 4.1 | **not met** |",
		"| (idle member) Wall on one P (GOMAXPROCS 1) context switches per firing (a count the host's stops do not move) <= the JDK peer's on the same schedule, every design x pipelines x interval cell where both run | 1 of 1 cells at or below (median ratio 0.71) | **met** |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks\n%s\ngot:\n%s", want, out)
		}
	}
	// Wall has no count: no switches goal line for it.
	if strings.Contains(out, "| (idle member) Wall context switches") {
		t.Errorf("a switches goal for Wall, whose run has no ctxsw/s:\n%s", out)
	}
}

// TestTriggerOnOneP: a BenchmarkTriggerPrecise result named without a
// -N suffix ran at GOMAXPROCS 1 (bench/side.sh -cpu 1); it gets its own
// table rows and its own CPU goal line, and the default env's goal is
// judged on the machine's Ps alone.
func TestTriggerOnOneP(t *testing.T) {
	dir := t.TempDir()
	goRuns := `goos: linux
peer: go
BenchmarkTriggerPrecise/design=shared-inline/pipelines=10-2 1000 900000 cpu-ns/op 4000 p50-ns 90000 p99-ns 9 ctxsw/op
BenchmarkTriggerPrecise/design=shared-inline/pipelines=10 1000 300000 cpu-ns/op 3000 p50-ns 80000 p99-ns 3 ctxsw/op
BenchmarkTriggerPrecise/design=shared-inline/pipelines=10 1000 350000 cpu-ns/op 3500 p50-ns 70000 p99-ns 3 ctxsw/op
BenchmarkTriggerPrecise/design=shared-inline/pipelines=10 1000 320000 cpu-ns/op 3200 p50-ns 60000 p99-ns 3 ctxsw/op 90000 spin-ns/op 0.5 over-budget/op
`
	jdkRuns := `peer: jdk
BenchmarkTriggerPrecise/design=shared-inline/pipelines=10 1000 400000 cpu-ns/op 300000 p50-ns 900000 p99-ns 3 ctxsw/op
`
	for name, s := range map[string]string{"trigger-precise.txt": goRuns, "trigger-jdk.txt": jdkRuns} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	cpuGoal(&b, rows, false)
	cpuGoal(&b, rows, true)
	tables(&b, rows)
	out := b.String()
	for _, want := range []string{
		"| default env CPU per firing <= the JDK peer's, p50 < 5 µs, in every design x pipelines cell where both run | 0 of 1 cells; shared-inline/10 900 µs vs 400 µs (2.25x, p50 4.0 µs) | **not met** |",
		// one P: medians of three runs, 320 µs and 3.2 µs
		"| default env on one P (GOMAXPROCS 1) CPU per firing <= the JDK peer's, p50 < 5 µs, in every design x pipelines cell where both run | 1 of 1 cells; shared-inline/10 320 µs vs 400 µs (0.80x, p50 3.2 µs) | **met** |",
		"| TriggerPrecise | shared-inline | 10 | 4.0 µs | 90 µs | 900 µs | – | – | 9.0 |",
		// spin and over budget: the one run that has them
		"| TriggerPrecise, GOMAXPROCS 1 | shared-inline | 10 | 3.2 µs | 70 µs | 320 µs | 90 µs | 0.5 | 3.0 |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks\n%s\ngot:\n%s", want, out)
		}
	}
	// the machine's Ps before one
	if i, j := strings.Index(out, "| TriggerPrecise |"), strings.Index(out, "| TriggerPrecise, GOMAXPROCS 1 |"); i < 0 || j < i {
		t.Errorf("one P's row not after the machine's:\n%s", out)
	}
}
