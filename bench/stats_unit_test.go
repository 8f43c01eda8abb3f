package bench

import (
	"testing"
	"time"
)

func TestQuantileNearestRank(t *testing.T) {
	xs := make([]time.Duration, 0, 1000)
	for i := 1000; i >= 1; i-- {
		xs = append(xs, time.Duration(i))
	}
	for _, c := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 500}, {0.99, 990}, {0.999, 999}, {1, 1000}, {0, 1}} {
		if got := quantile(xs, c.q); got != c.want {
			t.Errorf("quantile(%v) = %v, want %v", c.q, got, c.want)
		}
	}
	if quantile(nil, 0.5) != 0 {
		t.Error("empty sample")
	}
	if got := quantile([]time.Duration{7}, 0.999); got != 7 {
		t.Errorf("single sample: %v", got)
	}
}
