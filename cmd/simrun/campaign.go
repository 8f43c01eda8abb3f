package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"sync"

	"github.com/ckptsim/ckptsim/workloads"
)

// job is one seed of one scenario with its options; group says which
// scenario (run) or column (compare) it counts towards.
type job struct {
	sc     *workloads.Scenario
	opt    workloads.Options
	group  int
	replay string // flags appended to the replay command
}

// done is a finished job.
type done struct {
	index int
	out   workloads.Outcome
}

// execute runs jobs on parallel workers in their order. complete sees each
// outcome as it finishes; ordered sees them in job order. When ctx ends no
// new job starts and running ones finish; execute returns how many jobs
// started, always a prefix of jobs.
func execute(ctx context.Context, jobs []job, parallel int, complete, ordered func(done)) int {
	next := make(chan int)
	results := make(chan done)
	started := 0
	go func() {
		defer close(next)
		for i := range jobs {
			if ctx.Err() != nil {
				return
			}
			select {
			case next <- i:
				started++
			case <-ctx.Done():
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range max(parallel, 1) {
		wg.Go(func() {
			for i := range next {
				results <- done{i, runJob(jobs[i])}
			}
		})
	}
	go func() { wg.Wait(); close(results) }()
	pending := map[int]workloads.Outcome{}
	flushed := 0
	for d := range results {
		complete(d)
		pending[d.index] = d.out
		for o, ok := pending[flushed]; ok; o, ok = pending[flushed] {
			delete(pending, flushed)
			ordered(done{flushed, o})
			flushed++
		}
	}
	return started
}

// runJob runs one seed; a panic outside workloads.Run is a crash outcome
// too. The trace, decisions and lock graph are dropped unless asked for.
func runJob(j job) (out workloads.Outcome) {
	defer func() {
		if p := recover(); p != nil {
			out = workloads.Outcome{Scenario: j.sc.Name, Seed: j.opt.Seed, Verdict: workloads.Crash,
				Variants:   workloads.VariantString(j.opt.Variants),
				Replay:     workloads.ReplayCommand(j.sc, j.opt.Seed, j.opt.Variants) + j.replay,
				Violations: []string{fmt.Sprintf("simrun panic: %v\n%s", p, debug.Stack())}}
		}
	}()
	out = workloads.Run(j.sc, j.opt)
	out.Replay += j.replay
	if !j.opt.Trace {
		out.Events = nil
	}
	out.Decisions, out.LockGraph = nil, nil
	return out
}

// interrupts returns a context cancelled by the first SIGINT or SIGTERM;
// a second one exits at once. notice is printed on the first.
func interrupts(notice func()) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, sigterm)
	go func() {
		if _, ok := <-ch; !ok {
			return
		}
		notice()
		cancel()
		if _, ok := <-ch; ok {
			fmt.Fprintln(os.Stderr, "simrun: interrupted again; exiting without writing results")
			os.Exit(exitInterrupted)
		}
	}()
	return ctx, func() { signal.Stop(ch); close(ch); cancel() }
}
