package sched_test

// Transcript tests: the files in testdata/transcripts drive a real
// scheduler in the simulator (seed 1) with commands (new, lease,
// schedule, block, unblock, cancel, cancel-all, advance, close, stats)
// and compare what happened at its boundaries (which thread ran which
// body when, each firing's stages as Observe reports them, what Cancel
// returned, the counters) with the transcript below each command.
// Regenerate after a change on purpose:
//
//	go test ./core/sched -run TestTranscripts -rewrite

import (
	"errors"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/ckptsim/ckptsim/core/env"
	"github.com/ckptsim/ckptsim/core/sched"
	"github.com/ckptsim/ckptsim/core/variant"
	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/sim/simtest"
)

func TestTranscripts(t *testing.T) {
	simtest.Transcripts(t, "testdata/transcripts", func(w *sim.World) (simtest.Script, *simtest.Transcript) {
		s := &schedScript{w: w, mu: w.NewMutex("test.script"),
			leases: map[string]*sched.Lease{}, tasks: map[string]*sched.Task{}, gates: map[string]env.Cond{}, open: map[string]bool{}}
		s.tr = simtest.NewTranscript(w, s.mu)
		return s, s.tr
	})
}

// schedScript is one scheduler driven by commands.
type schedScript struct {
	w  *sim.World
	mu env.Mutex // guards the transcript, gates, open
	tr *simtest.Transcript

	s      sched.Scheduler
	leases map[string]*sched.Lease
	tasks  map[string]*sched.Task
	gates  map[string]env.Cond // gate name -> bodies waiting on it
	open   map[string]bool
}

func (s *schedScript) log(format string, args ...any) { s.tr.Logf(format, args...) }

func (s *schedScript) Started() bool { return s.s != nil }

func (s *schedScript) Run(d *datadriven.TestData) error {
	switch d.Cmd {
	case "new":
		return s.new(d)
	case "lease":
		name := arg(d, "name", "a")
		s.leases[name] = s.s.Lease(int64(atoi(arg(d, "job", "1"))), atoi(arg(d, "pipeline", "0")))
	case "schedule":
		return s.schedule(d)
	case "block":
		s.mu.Lock()
		s.open[arg(d, "gate", "g")] = false
		s.mu.Unlock()
	case "unblock":
		g := arg(d, "gate", "g")
		s.mu.Lock()
		s.open[g] = true
		if c, ok := s.gates[g]; ok {
			c.Broadcast()
		}
		s.mu.Unlock()
	case "cancel":
		name := arg(d, "task", "")
		t, ok := s.tasks[name]
		if !ok {
			return fmt.Errorf("no task %q", name)
		}
		s.log("cancel %s -> %v", name, t.Cancel())
	case "cancel-all":
		l := s.leases[arg(d, "lease", "a")]
		l.CancelAll()
		s.log("cancel-all %v: %d outstanding", l, l.Outstanding())
	case "advance":
		dur, err := time.ParseDuration(d.CmdArgs[0].Key)
		if err != nil {
			return err
		}
		s.w.Sleep(dur)
	case "close":
		s.s.Close()
	case "stats":
		st := s.s.Stats()
		s.log("stats timer-threads=%d dispatch-threads=%d queued=%d scheduled=%d fired=%d dispatched=%d canceled-before-fire=%d skipped=%d ran-after-cancel=%d completed=%d failed=%d worker-deaths=%d",
			st.TimerThreads, st.DispatchThreads, st.Queued, st.Scheduled, st.Fired, st.Dispatched, st.CanceledBeforeFire,
			st.SkippedAfterHandoff, st.RanAfterCancel, st.Completed, st.Failed, st.WorkerDeaths)
	default:
		return fmt.Errorf("unknown command %q", d.Cmd)
	}
	s.w.Sleep(time.Millisecond) // let every runnable thread run
	return nil
}

// new builds the scheduler: new [design=D] [cores=N] [dispatch=N] [task-failure=F].
func (s *schedScript) new(d *datadriven.TestData) error {
	var set variant.Set
	for _, k := range []string{"design", "task-failure"} {
		if d.HasArg(k) {
			if err := set.Set(k, arg(d, k, "")); err != nil {
				return err
			}
		}
	}
	sc, err := sched.New(s.w, sched.Config{Design: set.Design, TaskFailure: set.TaskFailure,
		Cores: atoi(arg(d, "cores", "2")), DispatchThreads: atoi(arg(d, "dispatch", "0")), Observe: s.observe})
	if err != nil {
		return err
	}
	s.s = sc
	return nil
}

// schedule: schedule name=T [lease=a] after=D [body=ok|fail|panic] [gate=G] [takes=D].
func (s *schedScript) schedule(d *datadriven.TestData) error {
	name := arg(d, "name", "")
	l, ok := s.leases[arg(d, "lease", "a")]
	if name == "" || !ok {
		return errors.New("schedule needs name= and an existing lease=")
	}
	after, err := time.ParseDuration(arg(d, "after", "0s"))
	if err != nil {
		return err
	}
	takes, err := time.ParseDuration(arg(d, "takes", "0s"))
	if err != nil {
		return err
	}
	body, gate := arg(d, "body", "ok"), arg(d, "gate", "")
	s.tasks[name] = l.Schedule(after, func() error {
		s.log("run %s on %s", name, s.w.ThreadName())
		s.wait(gate)
		if takes > 0 {
			s.w.Sleep(takes)
		}
		switch body {
		case "fail":
			return fmt.Errorf("%s failed", name)
		case "panic":
			panic(name + " panicked")
		}
		return nil
	})
	return nil
}

// wait blocks a body while its gate is closed.
func (s *schedScript) wait(gate string) {
	if gate == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.gates[gate]
	if !ok {
		c = s.w.NewCond(s.mu)
		s.gates[gate] = c
	}
	for !s.open[gate] {
		c.Wait()
	}
}

func (s *schedScript) observe(f sched.Firing) {
	at := func(t time.Time) string {
		if t.IsZero() {
			return "-"
		}
		return s.tr.Since(t).String()
	}
	what := "ran"
	if f.Skipped {
		what = "skipped"
	}
	errs := ""
	if f.Err != nil {
		errs = " err=" + f.Err.Error()
	}
	s.log("firing job=%d pipeline=%d %s due=%s fired=%s started=%s on %s%s", f.Job, f.Pipeline, what, at(f.Due),
		at(f.Fired), at(f.Started), f.Thread, errs)
}

func (s *schedScript) Close() {
	if s.s != nil {
		s.s.Close()
	}
}

func arg(d *datadriven.TestData, key, def string) string {
	for _, a := range d.CmdArgs {
		if a.Key == key && len(a.Vals) > 0 {
			return a.Vals[0]
		}
	}
	return def
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }
