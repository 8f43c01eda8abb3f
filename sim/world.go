package sim

import (
	"cmp"
	"fmt"
	"iter"
	"math/rand/v2"
	"reflect"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/ckptsim/ckptsim/core/env"
)

// Epoch is virtual time zero.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Config describes one simulated run.
type Config struct {
	Seed     uint64
	Strategy StrategyKind // default Random
	// PCTDepth is d for PCT (default 3); PCTSteps the horizon k, the run
	// length over which the d-1 change points are spread uniformly (PCT's
	// bound holds for runs of about that length). Zero under Run: k is the
	// step count of a measuring run of the same seed under the random walk
	// (HorizonRun). Zero under New alone, which cannot run the program
	// twice: each change point's step is drawn log-uniformly over 1..2^24,
	// which on a short run puts most of them after its end.
	PCTDepth int
	PCTSteps int
	// Replay is the decision list for StrategyReplay.
	Replay []int32
	// MaxSteps and MaxTime end a run with OutcomeBudget (0: unlimited).
	MaxSteps int64
	MaxTime  time.Duration
	// MaxHeap ends a run with OutcomeBudget once the process's heap
	// (runtime/metrics /memory/classes/heap/objects:bytes, read every
	// 65 536 steps) passes it (0: unlimited): a run whose state explodes
	// stops with a verdict instead of taking the machine down. It is the
	// process's heap, not this world's: with several worlds at once, give
	// each its share. Where it trips depends on the garbage collector, so
	// a run it ends is a budget verdict, not a reproducible trace.
	MaxHeap int64
	// Trace keeps a readable event list (costly); the hash is always kept.
	Trace bool
	// RecordDecisions keeps the decision list needed for replay.
	RecordDecisions bool
	// LockOrder records the lock-order graph and acquisition sites.
	LockOrder bool
	// SpuriousWakeups is the probability that a Cond wait returns without
	// a signal (callers must loop).
	SpuriousWakeups float64
	// CPU, when non-nil, charges virtual time for running threads.
	CPU *CPUModel
	// Buggify, when non-nil, switches core's rare paths (env.Site) on.
	Buggify *BuggifyConfig
	// Progress, when non-nil, receives the run's steps and virtual time as
	// it goes, for a display in another goroutine; it changes nothing in
	// the run.
	Progress *Progress
}

// Outcome is how a run ended.
type Outcome int

// The outcomes of a run.
const (
	OutcomeDone Outcome = iota
	OutcomeDeadlock
	OutcomeBudget
	OutcomePanic
	OutcomeDivergence
)

func (o Outcome) String() string {
	return [...]string{"done", "deadlock", "budget", "panic", "replay-divergence"}[o]
}

// Result is what a run produced.
type Result struct {
	Outcome   Outcome
	Steps     int64
	Elapsed   time.Duration // virtual time from Epoch
	TraceHash uint64
	Decisions []int32 // when Config.RecordDecisions
	Deadlock  *DeadlockReport
	Panic     *PanicReport
	Reason    string // budget or divergence detail
	Threads   int    // threads ever started
	// Switches counts the hand-offs from one simulated thread to another
	// (coroutine switches): the scheduling points whose pick was not the
	// caller, and the blocks. A performance figure, not part of the trace.
	Switches int64
	// Blocked are the threads blocked without a deadline when the run
	// ended (a lock wait or an untimed condition wait), oldest wait first.
	Blocked []BlockedThread
	// WaitCycle, when the run ended with threads waiting for one another's
	// locks (each for a lock the next one holds, the last for the first's),
	// names them: a lock cycle that was hit, although the rest of the world
	// kept running (a thread that sleeps in a loop always leaves a deadline
	// pending, so such a partial deadlock never ends the run as
	// OutcomeDeadlock). A thread re-locking a lock it holds is a cycle of
	// one. Each entry says what the thread waits on and since when.
	WaitCycle []BlockedThread
}

// BlockedThread is a thread blocked without a deadline at the end of a run.
type BlockedThread struct {
	Name   string
	WaitOn string        // what it waits on ("lock coord.lock", "wait on cond of exec.pool")
	Since  time.Duration // virtual time it blocked at
}

// PanicReport names the thread that panicked.
type PanicReport struct {
	Thread string
	Value  any
	Stack  string
}

type tstate uint8

const (
	tRunnable tstate = iota
	tBlocked
	tDone
)

// thread is a simulated thread's record. The fields a scheduling point,
// a block or a wake-up reads come first and fill one cache line: a run
// with a thousand threads switches to a different one at nearly every
// point, and each line of its record is then a miss. The record is a
// multiple of the line, so that the slab (whose chunks the
// allocator aligns to their size class, a multiple of 64 bytes from 1 KiB
// up) keeps every record's first line whole.
type thread struct {
	// One cache line: what the scheduler touches.
	id       int32
	state    tstate
	timedOut bool
	untimed  bool
	at       *pull  // the switch slot its coroutine is parked in (nil while it runs)
	runIdx   int    // index in World.runq, -1 if absent
	prioIdx  int    // index in PCT's heap of runnable threads, -1 if absent
	prio     int64  // PCT priority
	timerGen uint64 // invalidates stale timer entries
	since    int64  // virtual time of its current block
	wantMu   *mutex // mutex it waits to acquire

	name    string
	co      *coro      // the coroutine that runs it
	waitOn  waitReason // what it blocks on, for reports
	held    []*mutex
	heldBuf [4]*mutex // held's first backing array

	// The thread table (World.Threads): who spawned it and when, and when
	// its function returned (or panicked) before the run ended.
	parent   int32
	exited   bool
	panicked bool
	spawnAt  int64
	exitAt   int64
}

// The record is a whole number of cache lines (192 bytes; a compile error
// otherwise: pad it).
var _ [0]struct{} = [unsafe.Sizeof(thread{}) % 64]struct{}{}

// World is a simulated environment. It implements env.Env. A World runs
// one program once; make a new World per run.
type World struct {
	cfg      Config
	now      int64
	steps    int64
	switches int64
	hash     uint64
	threads  []*thread
	runq     []*thread
	current  *thread
	timers   timerQueue
	timerSeq uint64
	nextObj  int32
	strategy strategy
	sched    *rand.Rand
	streams  map[Stream]*rand.Rand
	ended    bool
	killing  bool
	result   Result
	events   []Event
	locks    *LockGraph
	cpu      *cpuState
	mainDone bool
	mainAt   *pull   // the slot Run's own goroutine is parked in while threads run
	coros    []*coro // every coroutine started, for the teardown
	idle     []*coro // coroutines whose thread returned, to run the next one
	exiting  bool    // the teardown: a resumed idle coroutine returns
	fatal    any     // a panic of the scheduler itself (not a thread's), re-raised by Run
	bug      *buggify
	probes   []int // hits per env.Probe
	onNote   func(at time.Duration, thread, msg string)
	onSpawn  func(parent, child int32)
	// spawnPCs[spawnAt[id]:spawnAt[id+1]] is where thread id was spawned:
	// the call stack of the code that called Go (Harness.Threads resolves
	// it, leaving out the simulator's own frames). Recorded at the spawn,
	// into one growing slice (a slice per spawn cost an allocation each);
	// nothing reads it during the run.
	spawnPCs []uintptr
	spawnAt  []int32
	// stackFor, when set (Harness.SpawnStacksFor), picks the spawns whose
	// stack is recorded, by the function the thread runs; nil: all.
	stackFor func(body string) bool
	// Slabs for the objects a run makes by the ten thousand.
	threadSlab slab[thread]
	mutexSlab  slab[mutex]
	condSlab   slab[cond]
	coroSlab   slab[coro]
}

var _ env.Env = (*World)(nil)

// New returns a world for one run of cfg.
func New(cfg Config) *World {
	w := &World{cfg: cfg, hash: 0xcbf29ce484222325, streams: map[Stream]*rand.Rand{}}
	w.sched = w.Rand(StreamSched)
	w.strategy = newStrategy(cfg, w.Rand(StreamStrategy))
	if cfg.LockOrder {
		w.locks = NewLockGraph()
	}
	if cfg.CPU != nil {
		w.cpu = newCPUState(*cfg.CPU)
	}
	if cfg.Buggify != nil {
		w.bug = newBuggify(cfg.Seed, cfg.Buggify)
	}
	return w
}

// Rand returns the random stream s of this run. Streams are independent.
func (w *World) Rand(s Stream) *rand.Rand {
	r, ok := w.streams[s]
	if !ok {
		r = NewRand(w.cfg.Seed, s)
		w.streams[s] = r
	}
	return r
}

// Seed returns the run's seed.
func (w *World) Seed() uint64 { return w.cfg.Seed }

// Steps returns the number of scheduling decisions so far.
func (w *World) Steps() int64 { return w.steps }

// Elapsed returns virtual time since Epoch.
func (w *World) Elapsed() time.Duration { return time.Duration(w.now) }

// LockGraph returns the run's lock-order graph (nil unless Config.LockOrder).
func (w *Harness) LockGraph() *LockGraph { return w.locks }

// ThreadName returns the name of the running simulated thread ("" outside).
func (w *World) ThreadName() string {
	if w.current == nil {
		return ""
	}
	return w.current.name
}

// LiveThreads counts started threads that have not returned, by name prefix
// ("" counts all).
func (w *Harness) LiveThreads(prefix string) int {
	n := 0
	for _, t := range w.threads {
		if t.state != tDone && hasPrefix(t.name, prefix) {
			n++
		}
	}
	return n
}

// ThreadInfo is the world's record of one simulated thread: the
// simulator's own observation of its spawn and of its function returning,
// whatever the code it runs counts about itself.
type ThreadInfo struct {
	ID       int32
	Name     string        // as given to Go (a role and a number: "checkpoint-dispatcher-3")
	Parent   int32         // the thread that spawned it (-1: spawned outside a thread)
	Spawned  time.Duration // virtual time of the spawn
	Exited   bool          // its function returned (or panicked) before the run ended
	ExitAt   time.Duration // when, if Exited
	Panicked bool          // it ended by a panic that reached the simulator
	// Spawner is the spawn record: the functions on the stack of the code
	// that called Go, innermost first (package-qualified, as
	// runtime.Frame.Function gives them: "github.com/ckptsim/ckptsim/core/exec.(*Pool).addWorker"),
	// the simulator's own frames left out; at most 12 frames deep.
	Spawner []string
}

// Threads returns the thread table, in spawn order: every thread started
// in the run, with its spawn and, for those that ended before the run did,
// its exit. Threads still alive when the run ended (stopped by the
// teardown) have Exited false.
func (w *Harness) Threads() []ThreadInfo {
	out := make([]ThreadInfo, len(w.threads))
	for i, t := range w.threads {
		out[i] = ThreadInfo{ID: t.id, Name: t.name, Parent: t.parent, Spawned: time.Duration(t.spawnAt),
			Exited: t.exited, ExitAt: time.Duration(t.exitAt), Panicked: t.panicked, Spawner: spawner(w.spawnPCs[w.spawnAt[i]:(*World)(w).spawnEnd(i)])}
	}
	return out
}

// spawnStack records the stack of the code spawning a thread (its caller
// of Go, and that caller's callers): program counters only, resolved by
// spawner when the table is read.
func (w *World) spawnStack() {
	// 12 frames reach past the executor's own to its owner (workloads
	// roles.go); a deeper walk cost every spawn more.
	var pcs [12]uintptr
	n := runtime.Callers(3, pcs[:]) // runtime.Callers, spawnStack, spawn
	w.spawnAt = append(w.spawnAt, int32(len(w.spawnPCs)))
	w.spawnPCs = append(w.spawnPCs, pcs[:n]...)
}

// SpawnStacksFor records the spawn stack (ThreadInfo.Spawner) only of the
// threads whose function keep accepts (by name, package-qualified as
// runtime.Frame.Function gives it: "github.com/ckptsim/ckptsim/core/exec.(*Pool).startLocked.func1");
// the others get an empty record. A stack walk costs every spawn, and a
// run spawns thousands of threads, most of which a harness has no use
// for. Set it before Run.
func (w *Harness) SpawnStacksFor(keep func(body string) bool) { w.stackFor = keep }

// bodyName is the name of the function a thread runs: a func given to Go,
// or the method Run of a Runner given to GoRunner (resolved once per
// code address).
func bodyName(body Runner) string {
	var pc uintptr
	if f, ok := body.(funcBody); ok {
		pc = reflect.ValueOf(f).Pointer()
	} else {
		m, ok := reflect.TypeOf(body).MethodByName("Run")
		if !ok {
			return ""
		}
		pc = m.Func.Pointer()
	}
	if fns := pcFrames(pc + 1); len(fns) > 0 { // pcFrames takes a return address: one past the entry
		return fns[len(fns)-1]
	}
	return ""
}

// spawnEnd is where thread i's spawn stack ends in spawnPCs.
func (w *World) spawnEnd(i int) int32 {
	if i+1 < len(w.spawnAt) {
		return w.spawnAt[i+1]
	}
	return int32(len(w.spawnPCs))
}

// simPackage is this package's path, whose frames a spawn record leaves out.
var simPackage = reflect.TypeFor[World]().PkgPath()

// spawner resolves a spawn stack to function names, innermost first, the
// simulator's own frames (Go, GoRunner, ...) left out. Each
// program counter is resolved once per process (pcFrames): a run spawns
// thousands of threads from a handful of sites.
func spawner(pcs []uintptr) []string {
	var out []string
	for _, pc := range pcs {
		for _, fn := range pcFrames(pc) {
			if !strings.HasPrefix(fn, simPackage+".") && !strings.HasPrefix(fn, "runtime.") {
				out = append(out, fn)
				if len(out) == 24 {
					return out
				}
			}
		}
	}
	return out
}

// frameCache maps a return address to the functions it stands for,
// innermost first (more than one where calls were inlined).
var frameCache sync.Map // uintptr -> []string

// pcFrames resolves one return address from runtime.Callers.
func pcFrames(pc uintptr) []string {
	if v, ok := frameCache.Load(pc); ok {
		return v.([]string)
	}
	var fns []string
	fr := runtime.CallersFrames([]uintptr{pc})
	for {
		f, more := fr.Next()
		if f.Function != "" {
			fns = append(fns, f.Function)
		}
		if !more {
			break
		}
	}
	frameCache.Store(pc, fns)
	return fns
}

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }

// Run runs main as the first simulated thread until it returns or the run
// ends otherwise, then stops every other thread. Run may be called once.
func (w *World) Run(main func()) Result {
	if w.ended || len(w.threads) > 0 {
		panic("sim: World.Run called twice")
	}
	w.spawn("main", funcBody(func() { main(); w.mainDone = true }))
	if next := w.schedule(); next != nil {
		w.switchTo(&w.mainAt, next)
	}
	if w.fatal != nil {
		w.killAll()
		panic(w.fatal)
	}
	if !w.ended {
		panic("sim: scheduler returned before the run ended")
	}
	w.result.Steps = w.steps
	if w.cfg.Progress != nil {
		w.publish()
	}
	w.result.Switches = w.switches
	w.result.Elapsed = time.Duration(w.now)
	w.result.TraceHash = w.hash // before the teardown, which is not part of the run
	w.result.Blocked = w.blocked()
	for _, t := range w.waitCycleThreads() {
		w.result.WaitCycle = append(w.result.WaitCycle, BlockedThread{Name: t.name, WaitOn: t.waitOn.String(), Since: time.Duration(t.since)})
	}
	w.killAll()
	w.result.Threads = len(w.threads)
	if !w.cfg.RecordDecisions {
		w.result.Decisions = nil
	}
	return w.result
}

// schedule is the scheduler's loop body, run on the goroutine of the
// thread that parks (or on Run's, to start): it fires due timers, picks the
// thread to run next and returns it, or nil when the run is over (done,
// deadlock, budget, divergence, a panic). A panic of the scheduler itself
// ends the run and is re-raised by Run.
func (w *World) schedule() (next *thread) {
	w.current = nil
	defer func() {
		if v := recover(); v != nil {
			w.fatal = v
			w.end(OutcomePanic, fmt.Sprint("sim: scheduler: ", v))
			next = nil
		}
	}()
	for !w.ended {
		if w.mainDone {
			w.end(OutcomeDone, "")
			return nil
		}
		if w.overBudget() {
			return nil
		}
		if len(w.runq) == 0 {
			if !w.advance() {
				w.deadlock()
				return nil
			}
			continue
		}
		return w.pick() // nil after a replay divergence (ended)
	}
	return nil
}

func (w *World) overBudget() bool {
	if w.cfg.MaxSteps > 0 && w.steps >= w.cfg.MaxSteps {
		w.end(OutcomeBudget, fmt.Sprintf("step budget %d exhausted", w.cfg.MaxSteps))
		return true
	}
	if w.cfg.MaxTime > 0 && w.now > int64(w.cfg.MaxTime) {
		w.end(OutcomeBudget, fmt.Sprintf("virtual-time budget %v exhausted", w.cfg.MaxTime))
		return true
	}
	if w.cfg.MaxHeap > 0 && w.steps&0xffff == 0 {
		if h := heapBytes(); h > w.cfg.MaxHeap {
			w.end(OutcomeBudget, fmt.Sprintf("heap budget exhausted: the process's heap reached %d MiB at step %d, above the %d MiB this run may use",
				h>>20, w.steps, w.cfg.MaxHeap>>20))
			return true
		}
	}
	return false
}

// heapBytes is the process's heap in use by objects, live or not yet swept.
func heapBytes() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

func (w *World) end(o Outcome, reason string) {
	if w.ended {
		return
	}
	w.ended = true
	w.result.Outcome = o
	w.result.Reason = reason
}

func (w *World) pick() *thread {
	var t *thread
	if len(w.runq) == 1 {
		t = w.runq[0]
	} else {
		i := w.strategy.pick(w, w.runq)
		if i < 0 {
			w.end(OutcomeDivergence, fmt.Sprintf("replay diverged at step %d", w.steps))
			return nil
		}
		t = w.runq[i]
		if w.cfg.RecordDecisions {
			w.result.Decisions = append(w.result.Decisions, t.id)
		}
	}
	w.steps++
	w.mix(uint64(t.id), 0xD1)
	if w.cfg.Progress != nil && w.steps&(progressEvery-1) == 0 {
		w.publish()
	}
	return t
}

// pull is a switch slot: one iter.Pull coroutine used as the runtime's
// coro is meant, a place where exactly one goroutine is parked. A switch
// into a slot parks the caller there and runs the goroutine that was
// parked there, so control goes straight from one simulated thread to the
// next (one coroutine switch per hand-off, where going through the
// scheduler loop's goroutine took two). iter.Pull insists that next and
// yield alternate on a slot; needYield says which one is due. The
// goroutine parked in a slot is not, after a few switches, the one the
// slot was made for: every parked goroutine (a thread's, an idle
// coroutine's, Run's) records the slot it is parked in. (iter.Pull's stop
// is not kept: the teardown runs every coroutine to its return.)
type pull struct {
	next      func() (struct{}, bool)
	yield     func(struct{}) bool // set when the slot's own goroutine starts
	needYield bool
}

func (s *pull) enter() {
	if s.needYield {
		s.needYield = false
		s.yield(struct{}{})
		return
	}
	s.needYield = true
	s.next()
}

// switchTo parks the calling goroutine (whose slot record is self) and
// runs next, or Run's goroutine when next is nil. It returns when another
// goroutine switches back into the slot the caller was parked in. It is
// enter written out: one frame fewer between a resumed thread and its
// code, whose stack lines are cold after a switch among many threads.
func (w *World) switchTo(self **pull, next *thread) {
	var s *pull
	if next == nil {
		s, w.mainAt = w.mainAt, nil
		w.current = nil
	} else {
		s, next.at = next.at, nil
		w.current = next
		if w.cpu != nil {
			w.cpu.charge(w, next)
		}
	}
	*self = s
	w.switches++
	if s.needYield {
		s.needYield = false
		s.yield(struct{}{})
		return
	}
	s.needYield = true
	s.next()
}

// mix folds two words into the trace hash.
func (w *World) mix(a, b uint64) {
	h := (w.hash ^ a) * 0x100000001b3
	w.hash = (h ^ b) * 0x100000001b3
}

// ---- threads

type killed struct{}

func (w *World) spawn(name string, body Runner) *thread {
	t := w.threadSlab.new()
	t.id, t.name, t.runIdx, t.prioIdx = int32(len(w.threads)), name, -1, -1
	t.held = t.heldBuf[:0]
	t.parent, t.spawnAt = -1, w.now
	if w.current != nil {
		t.parent = w.current.id
		if w.onSpawn != nil {
			w.onSpawn(t.parent, t.id)
		}
	}
	w.threads = append(w.threads, t)
	if w.stackFor == nil || w.stackFor(bodyName(body)) {
		w.spawnStack()
	} else {
		w.spawnAt = append(w.spawnAt, int32(len(w.spawnPCs))) // no stack: an empty record
	}
	c := w.coroutine()
	c.t, c.body = t, body
	t.co, t.at = c, c.at
	c.at = nil
	w.strategy.spawned(w, t)
	w.makeRunnable(t)
	w.record(t, opSpawn, 0, name)
	return t
}

// coro is a coroutine that runs simulated threads one after another: when
// a thread returns, its coroutine waits in World.idle for the next spawn,
// keeping its grown stack (a new coroutine per thread cost an allocation
// set and stack growth each time). Which coroutine runs a thread never
// shows in a run: decisions and trace hashes are the same. A coro is one
// cache line (a compile error otherwise), carved from World.coroSlab: a
// switch reads its slot (home) and nothing else of it.
type coro struct {
	home pull  // the slot made with this coroutine
	at   *pull // where it is parked while idle (nil while it runs a thread)
	t    *thread
	body Runner
	done bool // its goroutine has returned (teardown)
}

var _ [0]struct{} = [unsafe.Sizeof(coro{}) % 64]struct{}{}

// coroutine returns an idle coroutine or starts one.
func (w *World) coroutine() *coro {
	if n := len(w.idle); n > 0 {
		c := w.idle[n-1]
		w.idle = w.idle[:n-1]
		return c
	}
	c := w.coroSlab.new()
	c.at = &c.home
	c.home.next, _ = iter.Pull(func(yield func(struct{}) bool) {
		c.home.yield = yield
		defer func() { c.done = true }()
		for !w.exiting {
			if t := c.t; w.killing {
				// A thread never started, or assigned while the run was
				// ending: it never runs (as a stopped coroutine did not).
				t.state = tDone
				w.removeRunnable(t)
			} else {
				w.runThread(t, c.body)
			}
			c.t, c.body = nil, nil
			w.idle = append(w.idle, c)
			// Idle: run what comes next; resumed with a new thread (c.t)
			// or for the teardown.
			var next *thread
			if !w.killing {
				next = w.schedule()
			}
			w.switchTo(&c.at, next)
		}
	})
	w.coros = append(w.coros, c)
	return c
}

// runThread runs a thread's function; finish sees how it ended.
func (w *World) runThread(t *thread, body Runner) {
	defer w.finish(t)
	body.Run()
}

func (w *World) finish(t *thread) {
	v := recover()
	t.state = tDone
	w.removeRunnable(t)
	if _, ok := v.(killed); !ok && !w.killing {
		t.exited, t.exitAt, t.panicked = true, w.now, v != nil
	}
	if v == nil {
		return
	}
	if _, ok := v.(killed); ok || w.killing {
		return
	}
	if !w.ended {
		w.end(OutcomePanic, fmt.Sprint(v))
		w.result.Panic = &PanicReport{Thread: t.name, Value: v, Stack: string(debug.Stack())}
	}
}

func (w *World) makeRunnable(t *thread) {
	if t.runIdx >= 0 || t.state == tDone {
		return
	}
	t.state = tRunnable
	t.waitOn = waitReason{}
	t.runIdx = len(w.runq)
	w.runq = append(w.runq, t)
	w.strategy.runnable(t)
}

func (w *World) removeRunnable(t *thread) {
	i := t.runIdx
	if i < 0 {
		return
	}
	last := w.runq[len(w.runq)-1]
	w.runq[i] = last
	last.runIdx = i
	w.runq = w.runq[:len(w.runq)-1]
	t.runIdx = -1
	w.strategy.blocked(t)
}

// self returns the calling simulated thread.
func (w *World) self() *thread {
	t := w.current
	if t == nil {
		panic("sim: env call outside a simulated thread")
	}
	return t
}

// point is a scheduling point: the caller stays runnable and the strategy
// may run another thread first.
//
// The decision is made here, on the calling thread: when the strategy picks
// the caller again, it continues without a coroutine switch; otherwise the
// picked thread is handed to the scheduler loop, which resumes it without
// picking again. The decisions are exactly those the loop would make.
func (w *World) point() {
	t := w.self()
	if w.killing {
		panic(killed{})
	}
	if w.ended || w.mainDone || w.overBudget() {
		w.park(t, w.schedule())
		return
	}
	next := w.pick()
	if next == t {
		if w.cpu != nil {
			w.cpu.charge(w, t)
		}
		return
	}
	if next != nil && w.overBudget() { // the pick took the last step of the budget
		next = nil
	}
	// park(t, next) written out (next is not t): next nil is a replay
	// divergence or the budget ending the run.
	w.switchTo(&t.at, next)
	if w.killing {
		panic(killed{})
	}
}

// waitReason says what a blocked thread waits on; it is rendered only for
// a deadlock report, so blocking builds no string.
type waitReason struct {
	kind waitKind
	name string // the lock class
}

type waitKind uint8

const (
	waitNone waitKind = iota
	waitSleep
	waitLock
	waitRelock // a lock the thread already holds
	waitCond
)

func (r waitReason) String() string {
	switch r.kind {
	case waitSleep:
		return "sleep"
	case waitLock:
		return "lock " + r.name
	case waitRelock:
		return "lock " + r.name + " (already held by this thread)"
	case waitCond:
		return "wait on cond of " + r.name
	}
	return ""
}

// block parks the caller until another thread or a timer makes it
// runnable again.
func (w *World) block(t *thread, what waitReason) {
	if w.killing {
		panic(killed{})
	}
	t.since = w.now
	t.state = tBlocked
	t.waitOn = what
	w.removeRunnable(t)
	w.park(t, w.schedule())
}

// park hands the processor from t to next (nil: back to Run, the run is
// over) and returns when t is resumed. When next is t itself (a timer
// made it runnable again and it was picked) it just continues.
func (w *World) park(t *thread, next *thread) {
	if next == t {
		w.current = t
		if w.cpu != nil {
			w.cpu.charge(w, t)
		}
		return
	}
	w.switchTo(&t.at, next)
	if w.killing {
		panic(killed{})
	}
}

// blocked lists the threads blocked without a deadline, oldest wait first
// (ties in thread order).
func (w *World) blocked() []BlockedThread {
	var out []BlockedThread
	for _, t := range w.threads {
		if t.state == tBlocked && t.untimed {
			out = append(out, BlockedThread{Name: t.name, WaitOn: t.waitOn.String(), Since: time.Duration(t.since)})
		}
	}
	slices.SortStableFunc(out, func(a, b BlockedThread) int { return cmp.Compare(a.Since, b.Since) })
	return out
}

// killAll stops every thread that has not returned. Each stop unwinds the
// thread's stack (its env calls panic killed{}, its deferred calls run);
// a thread started while unwinding is never created, so nothing survives
// the run (a leaked coroutine would pin the whole World).
//
// Each thread is resumed in turn from Run's goroutine; it unwinds, and its
// coroutine, now idle, switches back. Then every coroutine is resumed once
// more to return: a returning coroutine wakes the goroutine parked in its
// own slot, and following those wake-ups always leads back to Run's
// goroutine (each slot holds one goroutine and Run's has none of its own),
// so a few rounds end them all.
func (w *World) killAll() {
	w.killing = true
	for i := 0; i < len(w.threads); i++ {
		if t := w.threads[i]; t.state != tDone && t.at != nil {
			w.current = t
			s := t.at
			t.at = nil
			w.mainAt = s
			s.enter()
			w.current = nil
		}
	}
	w.exiting = true
	for _, c := range w.coros {
		if !c.done && c.at != nil {
			s := c.at
			c.at = nil
			w.mainAt = s
			s.enter()
		}
	}
	for _, c := range w.coros {
		if !c.done {
			panic("sim: a coroutine survived the teardown")
		}
	}
	w.coros, w.idle = nil, nil
	w.runq = nil
	w.timers = timerQueue{}
}

// ---- timers

// addTimer wakes t at now+d unless t is woken otherwise first; with c, the
// wake-up is a WaitFor timing out on c.
func (w *World) addTimer(t *thread, d time.Duration, c *cond) {
	w.timerSeq++
	t.timerGen++
	w.timers.push(timerEntry{at: w.now + int64(d), seq: w.timerSeq, t: t, gen: t.timerGen, c: c})
}

// advance moves the clock to the earliest live deadline and fires every
// timer due then. It reports false when no deadline is pending.
func (w *World) advance() bool {
	for w.timers.len() > 0 {
		e := w.timers.peek()
		if e.gen != e.t.timerGen || e.t.state == tDone {
			w.timers.pop()
			continue
		}
		if e.at > w.now {
			w.now = e.at
			w.mix(uint64(w.now), 0xA7)
		}
		w.fireDue()
		return true
	}
	return false
}

func (w *World) fireDue() {
	for w.timers.len() > 0 && w.timers.peek().at <= w.now {
		e := w.timers.pop()
		if e.gen != e.t.timerGen || e.t.state == tDone {
			continue
		}
		e.t.timerGen++
		if e.c != nil {
			e.c.remove(e.t)
			e.t.timedOut = true
		}
		w.makeRunnable(e.t)
	}
}

// ---- env.Env

// Now returns the virtual time. It is a scheduling point when called from
// a simulated thread.
func (w *World) Now() time.Time {
	if w.current != nil {
		w.point()
	}
	return Epoch.Add(time.Duration(w.now))
}

// Go starts a simulated thread.
func (w *World) Go(name string, fn func()) { w.GoRunner(name, funcBody(fn)) }

// Runner is a thread's body given as a value: a caller that keeps a record
// per thread anyway passes it to GoRunner and allocates no closure.
type Runner interface{ Run() }

// funcBody is Go's function as a Runner (a func value is pointer-shaped:
// the conversion allocates nothing).
type funcBody func()

func (f funcBody) Run() { f() }

// GoRunner is Go for a Runner: the thread runs r.Run().
func (w *World) GoRunner(name string, r Runner) {
	if w.killing {
		return // the run is over: nothing new starts
	}
	if w.current == nil {
		w.spawn(name, r)
		return
	}
	w.point()
	w.spawn(name, r)
}

// Sleep blocks the caller for d of virtual time.
func (w *World) Sleep(d time.Duration) {
	t := w.self()
	w.record(t, opSleep, 0, "")
	if d <= 0 {
		w.point()
		return
	}
	w.addTimer(t, d, nil)
	t.untimed = false
	w.block(t, waitReason{kind: waitSleep})
}

// Yield is a scheduling point.
func (w *World) Yield() { w.point() }

// NewMutex returns a simulated mutex of the given lock class.
func (w *World) NewMutex(name string) env.Mutex {
	w.nextObj++
	m := w.mutexSlab.new()
	m.w, m.id, m.name = w, w.nextObj, name
	if w.locks != nil {
		m.class = w.locks.classOf(name)
	}
	return m
}

// NewCond returns a simulated condition variable bound to m.
func (w *World) NewCond(m env.Mutex) env.Cond {
	w.nextObj++
	c := w.condSlab.new()
	c.w, c.id, c.m = w, w.nextObj, m.(*mutex)
	return c
}

// ThreadID returns the id of the running simulated thread (-1 outside).
// Ids are unique within a run, unlike names.
func (w *World) ThreadID() int32 {
	if w.current == nil {
		return -1
	}
	return w.current.id
}
