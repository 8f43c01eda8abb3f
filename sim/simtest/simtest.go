// Package simtest runs one test program both in the simulator, over many
// seeds, and on real goroutines and time, so that core's tests state each
// behaviour once and check it in both modes.
package simtest

import (
	"os"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/core/env"
	"github.com/ckptsim/ckptsim/sim"
)

// Program is a test body that runs in any env.
type Program func(t testing.TB, e env.Env)

// Sim runs p in a fresh simulated world for each seed, alternating the
// random and PCT strategies, and fails with the seed on a bad outcome.
func Sim(t *testing.T, seeds int, p Program) {
	t.Helper()
	for seed := range uint64(seeds) {
		cfg := sim.Config{Seed: seed, MaxSteps: 5_000_000, MaxTime: 24 * time.Hour}
		if seed%2 == 1 {
			cfg.Strategy = sim.StrategyPCT
		}
		w := sim.New(cfg)
		r := w.Run(func() { p(t, w) })
		if r.Outcome != sim.OutcomeDone {
			t.Fatalf("seed %d (%v): %v: %s", seed, cfg.Strategy, r.Outcome, r.Reason)
		}
		if t.Failed() {
			t.Fatalf("seed %d (%v) failed", seed, cfg.Strategy)
		}
	}
}

// Wall runs p once on real goroutines and time.
func Wall(t *testing.T, p Program) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); p(t, env.Wall{}) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("wall program did not finish in 60s")
	}
}

// Both runs p in sim over seeds and in wall mode, as subtests. Seeds are
// divided by 10 under -short.
func Both(t *testing.T, seeds int, p Program) {
	t.Helper()
	if testing.Short() {
		seeds = max(seeds/10, 1)
	}
	t.Run("sim", func(t *testing.T) { Sim(t, seeds, p) })
	if os.Getenv("CKPTSIM_SKIP_WALL") == "" {
		t.Run("wall", func(t *testing.T) { Wall(t, p) })
	}
}

// Latch blocks callers of Wait until Release, and counts arrivals.
type Latch struct {
	mu      env.Mutex
	cv      env.Cond
	open    bool
	arrived int
}

// NewLatch returns a closed latch.
func NewLatch(e env.Env) *Latch {
	l := &Latch{mu: e.NewMutex("test.latch")}
	l.cv = e.NewCond(l.mu)
	return l
}

// Wait blocks until the latch is released.
func (l *Latch) Wait() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.arrived++
	l.cv.Broadcast()
	for !l.open {
		l.cv.Wait()
	}
}

// WaitErr is Wait for bodies that return an error.
func (l *Latch) WaitErr() error { l.Wait(); return nil }

// Release opens the latch.
func (l *Latch) Release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.open = true
	l.cv.Broadcast()
}

// AwaitArrivals waits until n callers are blocked in Wait.
func (l *Latch) AwaitArrivals(n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.arrived < n {
		l.cv.Wait()
	}
}

// Counter counts events and lets a waiter wait for a count.
type Counter struct {
	mu env.Mutex
	cv env.Cond
	n  int
}

// NewCounter returns a zero counter.
func NewCounter(e env.Env) *Counter {
	c := &Counter{mu: e.NewMutex("test.counter")}
	c.cv = e.NewCond(c.mu)
	return c
}

// Add counts one event.
func (c *Counter) Add() { c.mu.Lock(); c.n++; c.cv.Broadcast(); c.mu.Unlock() }

// AddErr is Add for bodies that return an error.
func (c *Counter) AddErr() error { c.Add(); return nil }

// N returns the count.
func (c *Counter) N() int { c.mu.Lock(); defer c.mu.Unlock(); return c.n }

// Await waits until the count reaches n.
func (c *Counter) Await(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.n < n {
		c.cv.Wait()
	}
}

// AwaitFor waits up to d (in e's time) for the count to reach n and reports
// whether it did.
func (c *Counter) AwaitFor(e env.Env, n int, d time.Duration) bool {
	deadline := e.Now().Add(d)
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.n < n {
		left := deadline.Sub(e.Now())
		if left <= 0 {
			return false
		}
		c.cv.WaitFor(left)
	}
	return true
}
