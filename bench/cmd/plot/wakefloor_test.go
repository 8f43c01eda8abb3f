package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWakeFloorGoal: the restated cost goal compares each default-env cell
// on the machine's Ps with the bare wake's median plus 50 µs, and on one P
// with the JDK peer's CPU per firing, and names the clock of each side from
// the files' cpu-clock lines (a file without one: getrusage, or the JDK's
// 10 ms ticks).
func TestWakeFloorGoal(t *testing.T) {
	dir := t.TempDir()
	goRuns := `peer: go
cpu-clock: schedstat
BenchmarkWakeFloor-2 100 100000 cpu-ns/op 5 ctxsw/op 50000 late-p50-ns 90000 late-p99-ns
BenchmarkWakeFloor-2 100 120000 cpu-ns/op 5 ctxsw/op 50000 late-p50-ns 90000 late-p99-ns
BenchmarkWakeFloor-2 100 300000 cpu-ns/op 5 ctxsw/op 50000 late-p50-ns 90000 late-p99-ns
BenchmarkWakeFloor 100 80000 cpu-ns/op 3 ctxsw/op 50000 late-p50-ns 90000 late-p99-ns
BenchmarkTriggerPrecise/design=shared/pipelines=10-2 100 160000 cpu-ns/op 2000 p50-ns
BenchmarkTriggerPrecise/design=shared/pipelines=100-2 100 200000 cpu-ns/op 2000 p50-ns
BenchmarkTriggerPrecise/design=shared/pipelines=10 100 90000 cpu-ns/op 2000 p50-ns
BenchmarkTriggerPrecise/design=shared/pipelines=100 100 110000 cpu-ns/op 2000 p50-ns
`
	jdkRuns := `peer: jdk
cpu-clock: schedstat
BenchmarkTrigger/design=shared/pipelines=10-2 100 100000 cpu-ns/op 300000 p50-ns
BenchmarkTrigger/design=shared/pipelines=100-2 100 100000 cpu-ns/op 300000 p50-ns
`
	wallRuns := `peer: go
BenchmarkTrigger/design=shared/pipelines=10-2 100 150000 cpu-ns/op 600000 p50-ns
`
	for name, s := range map[string]string{"trigger-precise.txt": goRuns, "trigger-jdk.txt": jdkRuns, "trigger.txt": wallRuns} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	wakeFloorGoal(&b, rows)
	wakeFloorTable(&b, rows)
	tables(&b, rows)
	out := b.String()
	for _, want := range []string{
		// the floor's median is 120 µs: shared/10 within (+40), shared/100 not (+80)
		"bare wake 120 µs per wake (80 µs per wake on one P); 1 of 2 cells within; shared/10 160 µs (+40 µs, 1.33x), shared/100 200 µs (+80 µs, 1.67x). Clock: schedstat",
		"| **not met** |",
		"2 cells; shared/10 90 µs vs 100 µs (0.90x), shared/100 110 µs vs 100 µs (1.10x). Clock: Go schedstat",
		"| 2 | 120 µs | 5.0 | 50 µs | 90 µs | schedstat",
		"| 1 | 80 µs | 3.0 |",
		"Trigger: getrusage (user + system)",
		"JDK peer: schedstat",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
