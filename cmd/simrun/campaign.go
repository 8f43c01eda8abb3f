package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"time"

	"github.com/ckptsim/ckptsim/workloads"
	"github.com/ckptsim/ckptsim/workloads/campaign"
)

// job is one seed of one scenario with its options; group says which
// scenario (run) or column (compare) it counts towards.
type job struct {
	sc     *workloads.Scenario
	opt    workloads.Options
	group  int
	replay string    // flags appended to the replay command
	label  string    // the group's label in a comparison ("": its variants)
	own    [2]string // the span's own strategy and BUGGIFY overrides (its row's label)
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
	if wallFrozen {
		out.WallNs = 0
	}
	if !j.opt.Trace {
		out.Events = nil
	}
	out.Decisions, out.LockGraph = nil, nil
	return out
}

// wallFrozen stops the wall clock of reports, progress lines and seed
// outcomes at zero. The golden tests (golden_test.go) set it, so that the
// output they compare is the same on every machine.
var wallFrozen bool

// wallNow reads the wall clock: the zero time while wallFrozen.
func wallNow() time.Time {
	if wallFrozen {
		return time.Time{}
	}
	return time.Now()
}

func wallSince(t time.Time) time.Duration { return wallNow().Sub(t) }

// graceWall is how long the seeds running at a first interrupt get to
// finish before the campaign gives up on them and writes what finished.
const graceWall = 3 * time.Second

// interrupts watches SIGINT and SIGTERM. The first cancels ctx (no new
// seed starts), prints notice and, graceWall later, cancels abandon (the
// running seeds are given up); a second removes the temporary files of the
// atomic writes in progress (campaign.AbandonWrites: the files they were
// replacing stay as they were), calls quit and exits 130 at once. stop
// ends the watch; a signal after it has its default effect (the process
// killed), so the watch lasts until the last result is written.
func interrupts(notice, quit func()) (ctx, abandon context.Context, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	abandon, giveUp := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, sigterm)
	go func() {
		if _, ok := <-ch; !ok {
			return
		}
		notice()
		cancel()
		t := time.AfterFunc(graceWall, giveUp)
		defer t.Stop()
		if _, ok := <-ch; ok {
			campaign.AbandonWrites()
			quit()
			os.Exit(exitInterrupted)
		}
	}()
	return ctx, abandon, func() { signal.Stop(ch); close(ch); cancel(); giveUp() }
}
