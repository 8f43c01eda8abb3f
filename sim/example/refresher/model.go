package refresher

import (
	"fmt"

	"github.com/anishathalye/porcupine"
)

// Input is one client operation on the cache: a Put of Value, or a Get.
type Input struct {
	Put   bool
	Value int
}

// Model is the cache's sequential specification: a single register that
// starts at 0. A Put sets it; a Get returns it. A cache is correct when
// every history of Puts and Gets it gives is linearizable against it:
// however stale a cache may be allowed to be in general, this one writes
// through and so must never show a value older than a Put that returned.
var Model = porcupine.Model{
	Init: func() any { return 0 },
	Step: func(state, input, output any) (bool, any) {
		in := input.(Input)
		if in.Put {
			return true, in.Value
		}
		return output.(int) == state.(int), state
	},
	DescribeOperation: func(input, output any) string {
		in := input.(Input)
		if in.Put {
			return fmt.Sprintf("put(%d)", in.Value)
		}
		return fmt.Sprintf("get() -> %d", output.(int))
	},
	DescribeState: func(state any) string { return fmt.Sprint(state) },
}
