package coord

// Transcript tests: the files in testdata/transcripts drive one real
// coordinator, on a real scheduler and executor in the simulator (seed 1),
// with commands (new, start, trigger, ack, expire, advance, restore,
// step-down, reactivate, cancel-all, cancel, fail, report-error, state),
// and compare what it did at its boundaries (barriers, storage, status
// store, id counter, job master) and the events it reported with the
// transcript below each command. Regenerate after a change on purpose:
//
//	go test ./core/coord -run TestTranscripts -rewrite
//
// Transcripts are deterministic for a given simulator; a change to the
// simulator's scheduling decisions may reorder lines of concurrent
// threads, which -rewrite records.

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/ckptsim/ckptsim/core/env"
	"github.com/ckptsim/ckptsim/core/exec"
	"github.com/ckptsim/ckptsim/core/sched"
	"github.com/ckptsim/ckptsim/core/variant"
	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/sim/simtest"
)

func TestTranscripts(t *testing.T) {
	simtest.Transcripts(t, "testdata/transcripts", func(w *sim.World) (simtest.Script, *simtest.Transcript) {
		s := &script{w: w, mu: w.NewMutex("test.script"), fail: map[string]int{}}
		s.tr = simtest.NewTranscript(w, s.mu)
		return s, s.tr
	})
}

// script is one coordinator driven by commands; every boundary records
// what it was asked into the transcript.
type script struct {
	w     *sim.World
	lease *sched.Lease // the coordinator's lease, for its outstanding count
	mu    env.Mutex    // guards the transcript, fail, barriers, stored, status, ids
	tr    *simtest.Transcript

	c        *Coordinator
	s        sched.Scheduler
	pool     *exec.Pool
	down     bool // the executor rejects (a master step-down)
	hold     bool // the executor holds work until release (a blocked executor)
	held     []func()
	sync     bool           // the executor runs work on the caller's thread
	fail     map[string]int // boundary -> calls left to fail
	barriers map[TaskID]int64
	stored   []int64
	status   map[string]string
	ids      int64
	match    func(Event) bool // until's condition
	matched  bool
}

var errInjected = errors.New("injected")

// log appends one transcript line stamped with virtual time.
func (s *script) log(format string, args ...any) { s.tr.Logf(format, args...) }

// failing reports whether the boundary call should fail (and counts it).
func (s *script) failing(what string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail[what] > 0 {
		s.fail[what]--
		return true
	}
	return false
}

func (s *script) Started() bool { return s.c != nil }

// run executes one command and lets the world settle.
func (s *script) Run(d *datadriven.TestData) error {
	switch d.Cmd {
	case "new":
		return s.new(d)
	case "start":
		s.c.Start()
	case "trigger":
		return s.until(time.Hour, func(ev Event) bool { return ev.Kind == EvTriggered })
	case "ack":
		task, id := TaskID(intArg(d, "task", 0)), int64(intArg(d, "id", 0))
		if id == 0 {
			s.mu.Lock()
			id = s.barriers[task]
			s.mu.Unlock()
		}
		s.c.Acknowledge(task, id, []byte("state"))
	case "expire":
		return s.until(time.Hour, func(ev Event) bool {
			return ev.Reason == ReasonExpired && (ev.Kind == EvGenFailed || ev.Kind == EvStaleDropped) ||
				ev.Kind == EvEffectNoop && ev.Reason == ReasonExpired
		})
	case "advance":
		dur, err := time.ParseDuration(d.CmdArgs[0].Key)
		if err != nil {
			return err
		}
		s.w.Sleep(dur)
	case "restore":
		if err := s.c.Restore(boolArg(d, "started", true)); err != nil {
			s.log("restore returned: %v", err)
		}
	case "step-down", "reactivate":
		s.mu.Lock()
		s.down = d.Cmd == "step-down"
		s.mu.Unlock()
	case "hold":
		s.mu.Lock()
		s.hold = true
		s.mu.Unlock()
	case "release":
		s.mu.Lock()
		held := s.held
		s.hold, s.held = false, nil
		s.mu.Unlock()
		s.log("executor releases %d held", len(held))
		for _, fn := range held {
			s.pool.Execute(fn)
		}
	case "cancel-all":
		s.c.Lease().CancelAll()
	case "cancel":
		s.c.Cancel()
	case "report-error":
		s.mu.Lock()
		id := s.ids
		s.mu.Unlock()
		s.c.ReportTaskError(id, "task says no")
	case "fail":
		s.mu.Lock()
		s.fail[d.CmdArgs[0].Key] += intArg(d, "times", 1)
		s.mu.Unlock()
	case "state":
		s.state()
	default:
		return fmt.Errorf("unknown command %q", d.Cmd)
	}
	s.w.Sleep(time.Millisecond) // let every runnable thread run
	return nil
}

// new builds the coordinator: new [tasks=N] [interval=D] [timeout=D] [variants=k=v,k=v].
func (s *script) new(d *datadriven.TestData) error {
	cfg := Config{Interval: durArg(d, "interval", 10*time.Second), Timeout: durArg(d, "timeout", 5*time.Second),
		Tasks: intArg(d, "tasks", 2), StatusBackoff: 100 * time.Millisecond, StatusRetries: 3, Observer: s.observe}
	if d.HasArg("variants") {
		m := map[string]string{}
		for _, v := range argVals(d, "variants") {
			k, val, _ := strings.Cut(v, "=")
			m[k] = val
		}
		set, err := variant.Parse(m)
		if err != nil {
			return err
		}
		cfg.Variants = set
	}
	sc, err := sched.New(s.w, sched.Config{Cores: 2})
	if err != nil {
		return err
	}
	s.s, s.barriers, s.status = sc, map[TaskID]int64{}, map[string]string{}
	s.sync = boolArg(d, "sync-executor", false)
	s.pool = exec.NewPool(s.w, exec.PoolConfig{Name: "coordinator-executor", Core: 4, Max: 1 << 20, KeepAlive: time.Minute, Queue: exec.Direct})
	s.lease = sc.Lease(1, 0)
	s.c = New(Deps{Env: s.w, Lease: SchedLease(s.lease), Executor: func() Executor { return (*scriptExec)(s) },
		Transport: (*scriptTransport)(s), Storage: (*scriptStorage)(s), Status: (*scriptStatus)(s),
		IDs: (*scriptIDs)(s), Master: (*scriptMaster)(s)}, 1, 0, cfg, nil)
	return nil
}

// until advances virtual time in small steps until an event matches or
// limit passes.
func (s *script) until(limit time.Duration, match func(Event) bool) error {
	s.mu.Lock()
	s.matched, s.match = false, match
	s.mu.Unlock()
	defer func() { s.mu.Lock(); s.match = nil; s.mu.Unlock() }()
	for end := s.w.Now().Add(limit); s.w.Now().Before(end); {
		s.w.Sleep(10 * time.Millisecond)
		s.mu.Lock()
		m := s.matched
		s.mu.Unlock()
		if m {
			return nil
		}
	}
	return fmt.Errorf("nothing happened in %v", limit)
}

func (s *script) observe(ev Event) {
	s.mu.Lock()
	if s.match != nil && s.match(ev) {
		s.matched = true
	}
	s.mu.Unlock()
	switch ev.Kind {
	case EvPendingCount, EvEffect:
		return // bookkeeping, shown by state
	case EvTriggered:
		s.log("event %s id=%d type=%s gen=%d", ev.Kind, ev.ID, ev.Type, ev.Gen)
	case EvTriggerArmed:
		s.log("event %s type=%s delay=%v", ev.Kind, ev.Type, ev.Delay)
	case EvTriggerStopped:
		s.log("event %s (%s)", ev.Kind, ev.Reason)
	case EvInlineContinuation:
		s.log("event %s", ev.Kind)
	case EvCompleted, EvExpiryFallback:
		s.log("event %s id=%d", ev.Kind, ev.ID)
	case EvAborted:
		s.log("event %s id=%d gen=%d reason=%s", ev.Kind, ev.ID, ev.Gen, ev.Reason)
	case EvGeneration, EvCanceled, EvFinished:
		s.log("event %s gen=%d", ev.Kind, ev.Gen)
	case EvRestored:
		s.log("event %s gen=%d latest=%d", ev.Kind, ev.Gen, ev.ID)
	default: // gen-failed, stale-dropped, effect-noop
		s.log("event %s armed=%d gen=%d reason=%s", ev.Kind, ev.ArmedGen, ev.Gen, ev.Reason)
	}
}

// state prints what the coordinator exposes.
func (s *script) state() {
	gen, f := s.c.Generation()
	st := "running"
	if f.Done() {
		v, _ := f.Get()
		st = v.String()
	}
	latest := int64(0)
	if l := s.c.LatestCompleted(); l != nil {
		latest = l.ID
	}
	s.mu.Lock()
	stored := slices.Clone(s.stored)
	s.mu.Unlock()
	s.log("state gen=%d %s pending=%d latest=%d stored=%v outstanding=%d", gen, st, s.c.PendingCount(), latest,
		stored, s.lease.Outstanding())
}

func (s *script) Close() {
	if s.s != nil {
		s.s.Close()
		s.pool.ShutdownNow()
	}
}

type scriptExec script

func (x *scriptExec) Execute(fn func()) error {
	s := (*script)(x)
	s.mu.Lock()
	down, hold, sync := s.down, s.hold, s.sync
	if hold && !down {
		s.held = append(s.held, fn)
	}
	s.mu.Unlock()
	switch {
	case down:
		s.log("executor rejected (stepped down)")
		return exec.ErrClosed
	case hold:
		return nil
	case sync:
		fn()
		return nil
	}
	return s.pool.Execute(fn)
}

type scriptTransport script

func (x *scriptTransport) TriggerBarrier(_ int64, _ int, task TaskID, b Barrier) error {
	s := (*script)(x)
	if s.failing("barrier") {
		s.log("barrier task=%d id=%d type=%s -> injected failure", task, b.ID, b.Type)
		return errInjected
	}
	s.log("barrier task=%d id=%d type=%s", task, b.ID, b.Type)
	s.mu.Lock()
	s.barriers[task] = b.ID
	s.mu.Unlock()
	return nil
}

func (x *scriptTransport) NotifyComplete(_ int64, _ int, task TaskID, c *Completed) error {
	(*script)(x).log("notify-complete task=%d id=%d", task, c.ID)
	return nil
}

func (x *scriptTransport) NotifyStart(_ int64, _ int, task TaskID) error {
	(*script)(x).log("notify-start task=%d", task)
	return nil
}

func (x *scriptTransport) RestoreState(_ int64, _ int, task TaskID, c *Completed) error {
	id := int64(0)
	if c != nil {
		id = c.ID
	}
	(*script)(x).log("restore-state task=%d id=%d", task, id)
	return nil
}

type scriptStorage script

func (x *scriptStorage) Store(c *Completed) error {
	s := (*script)(x)
	if s.failing("store") {
		s.log("store id=%d -> injected failure", c.ID)
		return errInjected
	}
	s.log("store id=%d type=%s", c.ID, c.Type)
	s.mu.Lock()
	s.stored = append(s.stored, c.ID)
	s.mu.Unlock()
	return nil
}

func (x *scriptStorage) Delete(_ int64, _ int, ids []int64) error {
	s := (*script)(x)
	s.log("delete ids=%v", ids)
	s.mu.Lock()
	s.stored = slices.DeleteFunc(s.stored, func(id int64) bool { return slices.Contains(ids, id) })
	s.mu.Unlock()
	return nil
}

func (x *scriptStorage) Latest(int64, int) (*Completed, error) {
	s := (*script)(x)
	s.mu.Lock()
	n := len(s.stored)
	var c *Completed
	if n > 0 {
		c = &Completed{Job: 1, ID: s.stored[n-1], Type: Checkpoint}
	}
	s.mu.Unlock()
	if c == nil {
		s.log("storage latest -> none")
	} else {
		s.log("storage latest -> %d", c.ID)
	}
	return c, nil
}

// Load is never called: the script's checkpoints carry no checksum, so a
// restore never falls back past the latest.
func (x *scriptStorage) Load(_ int64, _ int, id int64) (*Completed, error) {
	return nil, fmt.Errorf("scriptStorage.Load(%d): unexpected", id)
}

func (x *scriptStorage) IDs(int64, int) ([]int64, error) {
	s := (*script)(x)
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.stored), nil
}

type scriptStatus script

func (x *scriptStatus) Get(k string) (string, error) {
	s := (*script)(x)
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.status[k], nil
}

func (x *scriptStatus) Set(k, v string) error {
	s := (*script)(x)
	if s.failing("status") {
		s.log("status set %s=%s -> retryable failure", k, v)
		return fmt.Errorf("%w: injected", ErrRetryable)
	}
	s.log("status set %s=%s", k, v)
	s.mu.Lock()
	s.status[k] = v
	s.mu.Unlock()
	return nil
}

func (x *scriptStatus) Delete(k string) error {
	s := (*script)(x)
	s.log("status delete %s", k)
	s.mu.Lock()
	delete(s.status, k)
	s.mu.Unlock()
	return nil
}

type scriptIDs script

func (x *scriptIDs) Next(int64, int) (int64, error) {
	s := (*script)(x)
	if s.failing("ids") {
		s.log("ids next -> injected failure")
		return 0, errInjected
	}
	s.mu.Lock()
	s.ids++
	id := s.ids
	s.mu.Unlock()
	s.log("ids next -> %d", id)
	return id, nil
}

func (x *scriptIDs) Set(_ int64, _ int, next int64) error {
	s := (*script)(x)
	s.log("ids set next=%d", next)
	s.mu.Lock()
	s.ids = next - 1
	s.mu.Unlock()
	return nil
}

type scriptMaster script

func (x *scriptMaster) HandleCheckpointError(_ int64, _ int, gen uint64, r Reason) {
	(*script)(x).log("master checkpoint-error gen=%d reason=%s", gen, r)
}

// argVals returns the values of a key=(a,b) argument.
func argVals(d *datadriven.TestData, key string) []string {
	for _, a := range d.CmdArgs {
		if a.Key == key {
			return a.Vals
		}
	}
	return nil
}

func intArg(d *datadriven.TestData, key string, def int) int {
	if v := argVals(d, key); len(v) > 0 {
		if n, err := strconv.Atoi(v[0]); err == nil {
			return n
		}
	}
	return def
}

func durArg(d *datadriven.TestData, key string, def time.Duration) time.Duration {
	if v := argVals(d, key); len(v) > 0 {
		if x, err := time.ParseDuration(v[0]); err == nil {
			return x
		}
	}
	return def
}

func boolArg(d *datadriven.TestData, key string, def bool) bool {
	if v := argVals(d, key); len(v) > 0 {
		return v[0] == "true"
	}
	return def
}
