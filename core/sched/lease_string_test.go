package sched_test

import (
	"testing"

	"github.com/ckptsim/ckptsim/core/env"
	"github.com/ckptsim/ckptsim/core/sched"
)

// TestLeaseString: a lease prints as its job and pipeline (logs and
// tools; no simulation prints one).
func TestLeaseString(t *testing.T) {
	eachDesign(t, func(t testing.TB, e env.Env, d sched.Design) {
		s, _ := newSched(t, e, sched.Config{Design: d, DispatchThreads: 1})
		defer s.Close()
		if got, want := s.Lease(3, 4).String(), "lease(job 3, pipeline 4)"; got != want {
			t.Fatalf("%s: String() = %q, want %q", d, got, want)
		}
	})
}
