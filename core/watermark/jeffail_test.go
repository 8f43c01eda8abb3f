package watermark

import (
	"context"

	"github.com/Jeffail/checkpoint"
)

// The watermark peer: github.com/Jeffail/checkpoint v1.0.1 (Benthos'
// checkpointer), driven on the same batch orders as the ring tracker.
// Track returns a resolve function per batch; Highest is the watermark.
// Capped is the one Benthos uses (a mutex, a condition variable and a
// goroutine per Track); Uncapped is its linked list alone. The capacity is
// a round's batches, so Track never blocks.

type jeffailBench struct {
	track   func(last int64) func() *int64
	highest func() *int64
	fns     []func() *int64 // resolve function by seq - base
	base    uint64
	mark    int64
}

func newJeffailUncapped() *jeffailBench {
	c := checkpoint.NewUncapped[int64]()
	return &jeffailBench{
		track:   func(last int64) func() *int64 { return c.Track(last, 1) },
		highest: c.Highest,
		fns:     make([]func() *int64, benchBatches),
	}
}

func newJeffailCapped() *jeffailBench {
	c := checkpoint.NewCapped[int64](benchBatches)
	ctx := context.Background()
	return &jeffailBench{
		track: func(last int64) func() *int64 {
			fn, err := c.Track(ctx, last, 1)
			if err != nil {
				panic(err)
			}
			return fn
		},
		highest: c.Highest,
		fns:     make([]func() *int64, benchBatches),
	}
}

func (j *jeffailBench) register(seq uint64, last int64) {
	if seq%benchBatches == 0 {
		j.base = seq
	}
	j.fns[seq-j.base] = j.track(last)
}

func (j *jeffailBench) resolve(seq uint64, _ int64) {
	j.fns[seq-j.base]()
	j.fns[seq-j.base] = nil
}

// advance reports the committable offset (last resolved + 1) when it moved.
func (j *jeffailBench) advance() (int64, bool) {
	h := j.highest()
	if h == nil || *h+1 == j.mark {
		return 0, false
	}
	j.mark = *h + 1
	return j.mark, true
}
