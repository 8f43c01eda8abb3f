package campaign

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// exactQuantile is the nearest-rank quantile of sorted samples.
func exactQuantile(s []time.Duration, q float64) time.Duration {
	i := int(q*float64(len(s))+0.999999) - 1
	return s[min(max(i, 0), len(s)-1)]
}

func TestHistQuantilesWithinBound(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var h Hist
	var xs []time.Duration
	for range 20000 {
		d := time.Duration(r.ExpFloat64() * float64(300*time.Millisecond))
		h.Add(d)
		xs = append(xs, d)
	}
	slices.Sort(xs)
	for _, q := range []float64{0, 0.01, 0.5, 0.9, 0.99, 0.999, 1} {
		want, got := exactQuantile(xs, q), h.Quantile(q)
		if diff := float64(got-want) / float64(want); diff > 0.004 || diff < -0.004 {
			t.Errorf("q%v: got %v, exact %v (%.3f%%)", q, got, want, 100*diff)
		}
	}
	if h.Max() != xs[len(xs)-1] || h.Count() != int64(len(xs)) {
		t.Errorf("max %v count %d, want %v %d", h.Max(), h.Count(), xs[len(xs)-1], len(xs))
	}
}

func TestHistSmallValuesExact(t *testing.T) {
	var h Hist
	for _, v := range []time.Duration{0, 1, 5, 127} {
		h.Add(v)
	}
	if !h.Exact() || h.Quantile(0.5) != 1 || h.Quantile(1) != 127 {
		t.Errorf("exact %v p50 %v p100 %v", h.Exact(), h.Quantile(0.5), h.Quantile(1))
	}
	h.Add(time.Second)
	if h.Exact() {
		t.Error("a 1 s sample is in a wide bucket; quantiles are not exact")
	}
}

// TestHistMergeOrderFree: merging per-seed histograms in any order, and
// through JSON, gives the same histogram as adding every sample to one.
func TestHistMergeOrderFree(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var all Hist
	parts := make([]Hist, 10)
	for i := range parts {
		for range 500 {
			d := time.Duration(r.Int64N(int64(10 * time.Second)))
			parts[i].Add(d)
			all.Add(d)
		}
	}
	for _, order := range [][]int{{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {9, 3, 5, 1, 0, 2, 8, 7, 4, 6}} {
		var m Hist
		for _, i := range order {
			b, err := json.Marshal(parts[i])
			if err != nil {
				t.Fatal(err)
			}
			var back Hist
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			m.Merge(&back)
		}
		a, _ := json.Marshal(all)
		b, _ := json.Marshal(m)
		if string(a) != string(b) {
			t.Fatalf("order %v: merged histogram differs", order)
		}
	}
}

func TestHistRejectsBadJSON(t *testing.T) {
	for _, s := range []string{`{"n":2,"max":5,"b":[1]}`, `{"n":3,"max":5,"b":[1,2]}`, `{"n":1,"max":5,"b":[1,1,0,1]}`} {
		var h Hist
		if err := json.Unmarshal([]byte(s), &h); err == nil {
			t.Errorf("%s: accepted", s)
		}
	}
}
