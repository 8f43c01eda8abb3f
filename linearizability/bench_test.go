package linearizability

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/model"
)

var (
	synthMu    sync.Mutex
	synthCache = map[int]synthRun{}
)

// hourRun returns the synthetic one-hour run of n pipelines, generated once.
func hourRun(n int) synthRun {
	synthMu.Lock()
	defer synthMu.Unlock()
	if r, ok := synthCache[n]; ok {
		return r
	}
	r := synth(hourConfig(n))
	synthCache[n] = r
	return r
}

// TestSyntheticHourIsLegal checks that the generator's histories are legal,
// with and without the witness search, so the benchmark measures Ok checks.
func TestSyntheticHourIsLegal(t *testing.T) {
	run := hourRun(10)
	for _, spec := range model.Specs() {
		for _, po := range []bool{false, true} {
			v := CheckWith(spec, run.histories[spec.Name], Options{Timeout: 20 * time.Second, PorcupineOnly: po})
			if !v.Pass() {
				t.Fatalf("porcupineOnly=%t: %v", po, v)
			}
		}
	}
}

// BenchmarkCheckHour measures the check of one simulated hour (10 s
// checkpoint interval) against the number of pipelines, per model and for
// all four models together; "porcupine-only" skips the witness search.
// Run with -cpu 1 for the one-core figure.
func BenchmarkCheckHour(b *testing.B) {
	for _, n := range []int{10, 100, 500} {
		run := hourRun(n)
		for _, name := range []string{"watermark", "generation", "register", "savepoints", "all", "all-porcupine-only"} {
			specs := model.Specs()
			if i := slices.IndexFunc(specs, func(s model.Spec) bool { return s.Name == name }); i >= 0 {
				specs = specs[i : i+1]
			}
			opt := Options{Timeout: time.Minute, PorcupineOnly: name == "all-porcupine-only"}
			b.Run(fmt.Sprintf("pipelines=%d/model=%s", n, name), func(b *testing.B) {
				ops := 0
				for _, s := range specs {
					ops += len(run.histories[s.Name])
				}
				for b.Loop() {
					for _, s := range specs {
						if v := CheckWith(s, run.histories[s.Name], opt); !v.Pass() {
							b.Fatal(v)
						}
					}
				}
				b.ReportMetric(float64(ops), "ops")
			})
		}
	}
}

// TestWitnessCoversSyntheticHour: on legal simulator-shaped histories the
// witness search finds a linearization for every partition, so porcupine is
// only the fallback.
func TestWitnessCoversSyntheticHour(t *testing.T) {
	run := hourRun(10)
	for _, spec := range model.Specs() {
		h := run.histories[spec.Name]
		for _, p := range split(spec, h) {
			if !witness(spec, h, p.idx) {
				t.Errorf("%s %s: no witness", spec.Name, spec.Label(p.key))
			}
		}
	}
}
