package watermark_test

import (
	"fmt"

	"github.com/ckptsim/ckptsim/core/env"
	"github.com/ckptsim/ckptsim/core/watermark"
)

// A source polls batches and issues one ack each; sinks resolve them out of
// order, one holder per record; the runtime drains and commits.
func Example() {
	cp := watermark.New(env.Wall{}, watermark.Options{PendingCeiling: 1024})
	cp.BeginEpoch([]watermark.Partition{0, 1}, 1)
	issuer := cp.NewIssuer() // one per pipeline thread

	poll := func(p watermark.Partition, last int64, records int) *watermark.Ack {
		if issuer.AtCeiling(p) {
			return nil // skip p this round
		}
		ack := issuer.Issue(p, last)
		ack.Add(records - 1)
		return ack
	}
	a := poll(0, 99, 2)  // offsets ..99 of partition 0, two records
	b := poll(0, 199, 1) // offsets 100..199
	c := poll(1, 49, 1)

	b.Done() // out of order: partition 0 waits for a
	c.Done()
	a.Done()
	cp.Drain()
	epoch, marks := cp.TakeWatermarks()
	fmt.Println(epoch, marks)

	a.Done() // the second record of a
	cp.Drain()
	epoch, marks = cp.TakeWatermarks()
	fmt.Println(epoch, marks)

	epoch, marks = cp.TakeWatermarks() // idempotent
	fmt.Println(epoch, marks, cp.MaxPending())
	// Output:
	// 1 [{1 50}]
	// 1 [{0 200}]
	// 1 [] 0
}
