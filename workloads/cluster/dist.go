package cluster

import (
	"math"
	"math/rand/v2"
	"time"
)

// Dist is a latency distribution drawn from a seeded stream.
type Dist struct {
	Kind string        `yaml:"kind"` // fixed | uniform | exp (default fixed)
	Min  time.Duration `yaml:"min"`
	Max  time.Duration `yaml:"max"`
	Mean time.Duration `yaml:"mean"` // exp: mean above Min, capped at Max
	// Step, when positive, rounds every draw down to a whole multiple of
	// it, so that latencies drawn apart coincide: threads wake at the
	// same virtual instant. It draws the same numbers as without it.
	Step time.Duration `yaml:"step"`
}

// Draw returns one latency.
func (d Dist) Draw(r *rand.Rand) time.Duration {
	v := d.draw(r)
	if d.Step > 0 {
		v -= v % d.Step
	}
	return v
}

func (d Dist) draw(r *rand.Rand) time.Duration {
	switch d.Kind {
	case "uniform":
		if d.Max <= d.Min {
			return d.Min
		}
		return d.Min + time.Duration(r.Int64N(int64(d.Max-d.Min)+1))
	case "exp":
		v := d.Min + time.Duration(r.ExpFloat64()*float64(d.Mean))
		if d.Max > 0 {
			v = time.Duration(math.Min(float64(v), float64(d.Max)))
		}
		return v
	}
	return d.Min
}

// chance draws a Bernoulli trial.
func chance(r *rand.Rand, p float64) bool { return p > 0 && r.Float64() < p }
