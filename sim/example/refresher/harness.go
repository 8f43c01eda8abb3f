package refresher

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/ckptsim/ckptsim/core/env"
	"github.com/ckptsim/ckptsim/sim"
)

// RunConfig is one seeded run of the cache.
type RunConfig struct {
	Seed     uint64
	Strategy sim.StrategyKind // sim.StrategyRandom or sim.StrategyPCT
	Buggy    bool
	Clients  int // client threads (default 3)
	Ops      int // operations per client (default 25)
}

// Result is what a run gave.
type Result struct {
	Config    RunConfig
	Outcome   sim.Outcome // done, or a deadlock, panic or budget
	Reason    string
	Check     porcupine.CheckResult // porcupine's verdict on the history
	Ops       int
	TraceHash uint64
	History   []porcupine.Event
	Info      porcupine.LinearizationInfo // for porcupine.Visualize
}

// Pass reports whether the run ended normally and its history is
// linearizable.
func (r Result) Pass() bool { return r.Outcome == sim.OutcomeDone && r.Check == porcupine.Ok }

// Replay is the command that runs this seed again (the package test's
// TestReplay), printing the history and writing porcupine's page.
func (r Result) Replay() string {
	s := fmt.Sprintf("go test ./sim/example/refresher -run TestReplay -v -args -seed %d -strategy %s", r.Config.Seed, r.Config.Strategy)
	if r.Config.Buggy {
		s += " -buggy"
	}
	return s
}

// origin is the simulated slow origin: a request and a response latency
// around an atomic step under its own lock.
type origin struct {
	e       env.Env
	rnd     *rand.Rand
	mu      env.Mutex
	value   int
	version int64
}

func (o *origin) latency() { o.e.Sleep(time.Duration(o.rnd.Int64N(16)) * 10 * time.Millisecond) }

func (o *origin) Write(v int) int64 {
	o.latency()
	o.mu.Lock()
	o.value = v
	o.version++
	ver := o.version
	o.mu.Unlock()
	o.latency()
	return ver
}

func (o *origin) Read() (int, int64) {
	o.latency()
	o.mu.Lock()
	v, ver := o.value, o.version
	o.mu.Unlock()
	o.latency()
	return v, ver
}

// Run runs the cache in a fresh simulated world: Clients threads each do
// Ops random Puts (unique values) and Gets with random think times, while
// the refresher renews the lease; then porcupine checks the history
// against Model. All randomness comes from the seed: the workload from
// one stream, the scheduling from another, so the same RunConfig gives
// the same history and trace hash every time.
func Run(cfg RunConfig) Result {
	if cfg.Clients == 0 {
		cfg.Clients = 3
	}
	if cfg.Ops == 0 {
		cfg.Ops = 25
	}
	var events []porcupine.Event
	id := 0
	// sim.Run builds the program once per world: under PCT a random-walk
	// run of the same seed first measures the horizon, so the history
	// starts afresh in each.
	_, res := sim.Run(sim.Config{Seed: cfg.Seed, Strategy: cfg.Strategy, MaxSteps: 1_000_000, MaxTime: time.Hour}, func(w *sim.World) func() {
		events, id = nil, 0
		return program(w, cfg, &events, &id)
	})
	r := Result{Config: cfg, Outcome: res.Outcome, Reason: res.Reason, Ops: id, TraceHash: res.TraceHash, History: events}
	if res.Outcome != sim.OutcomeDone {
		if res.Panic != nil {
			r.Reason = fmt.Sprintf("panic in %s: %v", res.Panic.Thread, res.Panic.Value)
		}
		return r
	}
	r.Check, r.Info = porcupine.CheckEventsVerbose(Model, events, 10*time.Second)
	return r
}

// program is one run's main: the cache, its origin and the clients, which
// append to events (ids from *id) at every call and return.
func program(w *sim.World, cfg RunConfig, events *[]porcupine.Event, id *int) func() {
	work := w.Rand(sim.StreamWorkload)
	call := func(client int, in Input) int {
		*id++
		*events = append(*events, porcupine.Event{ClientId: client, Kind: porcupine.CallEvent, Value: in, Id: *id})
		return *id
	}
	ret := func(client, id int, out any) {
		*events = append(*events, porcupine.Event{ClientId: client, Kind: porcupine.ReturnEvent, Value: out, Id: id})
	}
	return func() {
		o := &origin{e: w, rnd: w.Rand(sim.StreamFaults), mu: w.NewMutex("refresher.origin")}
		c := New(w, o, Config{Lease: time.Second, Refresh: 600 * time.Millisecond, Buggy: cfg.Buggy})
		c.Start()
		done := w.NewMutex("refresher.done")
		allDone := w.NewCond(done)
		left := cfg.Clients
		for k := range cfg.Clients {
			think := make([]time.Duration, cfg.Ops) // drawn up front: the workload does not depend on the schedule
			puts := make([]bool, cfg.Ops)
			for i := range cfg.Ops {
				think[i] = time.Duration(work.Int64N(15)) * 50 * time.Millisecond
				puts[i] = work.IntN(5) < 2
			}
			w.Go(fmt.Sprintf("client-%d", k), func() {
				for i := range cfg.Ops {
					w.Sleep(think[i])
					if puts[i] {
						v := (k+1)*1000 + i
						op := call(k, Input{Put: true, Value: v})
						c.Put(v)
						ret(k, op, 0)
					} else {
						op := call(k, Input{})
						ret(k, op, c.Get())
					}
				}
				done.Lock()
				left--
				allDone.Broadcast()
				done.Unlock()
			})
		}
		done.Lock()
		for left > 0 {
			allDone.Wait()
		}
		done.Unlock()
		c.Close()
	}
}
