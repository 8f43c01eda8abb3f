package sched_test

import (
	"testing"

	"github.com/ckptsim/ckptsim/core/env"
	"github.com/ckptsim/ckptsim/core/sched"
)

// TestSecondCloseIsANoOp: closing a scheduler twice returns at once the
// second time, on every design (the harness closes each once;
// results/coverage/defensive.txt).
func TestSecondCloseIsANoOp(t *testing.T) {
	eachDesign(t, func(t testing.TB, e env.Env, d sched.Design) {
		s, _ := newSched(t, e, sched.Config{Design: d, DispatchThreads: 1})
		s.Close()
		s.Close()
	})
}
