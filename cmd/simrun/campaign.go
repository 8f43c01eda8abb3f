package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"

	"github.com/ckptsim/ckptsim/workloads"
)

// job is one seed of one scenario with its options; group says which
// scenario (run) or column (compare) it counts towards.
type job struct {
	sc     *workloads.Scenario
	opt    workloads.Options
	group  int
	replay string // flags appended to the replay command
	label  string // the group's label in a comparison ("": its variants)
}

// runJob runs one seed; a panic outside workloads.Run is a crash outcome
// too. The trace, decisions and lock graph are dropped unless asked for.
func runJob(j job) (out workloads.Outcome) {
	defer func() {
		if p := recover(); p != nil {
			out = workloads.Outcome{Scenario: j.sc.Name, Seed: j.opt.Seed, Verdict: workloads.Crash,
				Variants: workloads.VariantString(j.opt.Variants), Profile: j.opt.Profile,
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
