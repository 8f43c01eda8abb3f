package sim

import (
	"math/rand/v2"
	"slices"
)

// StrategyKind selects how the next thread is chosen.
type StrategyKind int

// The strategies.
const (
	StrategyRandom StrategyKind = iota
	StrategyPCT
	StrategyReplay
)

func (k StrategyKind) String() string {
	return [...]string{"random", "pct", "replay"}[k]
}

// ParseStrategy maps "random", "pct" or "replay" to a kind.
func ParseStrategy(s string) (StrategyKind, bool) {
	switch s {
	case "random":
		return StrategyRandom, true
	case "pct":
		return StrategyPCT, true
	case "replay":
		return StrategyReplay, true
	}
	return 0, false
}

type strategy interface {
	pick(w *World, runq []*thread) int // index into runq, -1 on divergence
	spawned(w *World, t *thread)
	// runnable and blocked follow the run queue: t joined it, t left it.
	runnable(t *thread)
	blocked(t *thread)
}

func newStrategy(cfg Config, r *rand.Rand) strategy {
	switch cfg.Strategy {
	case StrategyPCT:
		return newPCT(cfg, r)
	case StrategyReplay:
		return &replay{decisions: cfg.Replay}
	}
	return randomWalk{}
}

// randomWalk picks uniformly among runnable threads.
type randomWalk struct{}

func (randomWalk) pick(w *World, runq []*thread) int { return w.sched.IntN(len(runq)) }
func (randomWalk) spawned(*World, *thread)           {}
func (randomWalk) runnable(*thread)                  {}
func (randomWalk) blocked(*thread)                   {}

// pct is Probabilistic Concurrency Testing: random distinct priorities,
// always run the highest, and at d-1 random steps drop the running
// thread's priority below every initial one. For n threads and k steps a
// bug of depth d is hit with probability at least 1/(n·k^(d-1)).
//
// The runnable threads are kept in a heap, highest priority (then lowest
// id) on top, so a pick costs no scan of the run queue. The order is
// total (ids are unique), so the top is the thread a scan finds.
type pct struct {
	r       *rand.Rand
	depth   int
	changes []int64 // sorted steps at which a priority change happens
	next    int
	q       prioHeap
}

// pctHorizonBits bounds the log-uniform change points of a PCT run that
// has neither Config.PCTSteps nor a measured horizon (a World built with
// New and no PCTSteps): up to 2^24 (16.7 M) steps.
const pctHorizonBits = 24

func newPCT(cfg Config, r *rand.Rand) *pct {
	d, k := cfg.PCTDepth, cfg.PCTSteps
	if d <= 0 {
		d = 3
	}
	p := &pct{r: r, depth: d}
	for range d - 1 {
		if k > 0 {
			p.changes = append(p.changes, 1+r.Int64N(int64(k)))
			continue
		}
		// No horizon: a change point's step is drawn log-uniformly over
		// 1..2^pctHorizonBits (a power of two uniformly, then a step below
		// it). A run of n steps gets each change point inside it with
		// probability about log2(n)/pctHorizonBits only: on a short run
		// most fall after its end, so Run measures the horizon instead.
		bits := 1 + r.IntN(pctHorizonBits)
		p.changes = append(p.changes, 1+r.Int64N(int64(1)<<bits))
	}
	slices.Sort(p.changes)
	return p
}

// HorizonRun says how the horizon of a PCT run is measured: when cfg is
// PCT without PCTSteps it returns the configuration of the measuring run,
// cfg under the random walk (same seed, budgets and buggify; no trace, no
// recorded decisions, no progress), and true; otherwise cfg and false.
// The PCT run then takes that run's step count as PCTSteps (WithHorizon).
// The measuring run depends on the seed alone, so the PCT run's trace
// still depends only on the configuration and the program.
func HorizonRun(cfg Config) (Config, bool) {
	if cfg.Strategy != StrategyPCT || cfg.PCTSteps > 0 {
		return cfg, false
	}
	m := cfg
	m.Strategy, m.Replay = StrategyRandom, nil
	m.Trace, m.RecordDecisions, m.Progress = false, false, nil
	return m, true
}

// WithHorizon returns cfg with PCTSteps set from a measuring run's step
// count (at least 1).
func WithHorizon(cfg Config, steps int64) Config {
	cfg.PCTSteps = int(max(steps, 1))
	return cfg
}

// Run builds a World for cfg, runs the program that program builds on it
// and returns both. Under PCT without PCTSteps it first runs the program on
// a second World under the random walk with the same seed (HorizonRun) and
// gives PCT that run's step count as its horizon k, so that the d-1 change
// points are spread over a run of about the PCT run's own length, as
// PCT's bound needs, whatever that length: a PCT seed costs two runs.
// program is called once per World and must build its state afresh.
func Run(cfg Config, program func(w *World) func()) (*World, Result) {
	if m, ok := HorizonRun(cfg); ok {
		mw := New(m)
		cfg = WithHorizon(cfg, mw.Run(program(mw)).Steps)
	}
	w := New(cfg)
	return w, w.Run(program(w))
}

func (p *pct) spawned(w *World, t *thread) {
	t.prio = int64(p.depth) + p.r.Int64N(1<<40)
}

func (p *pct) runnable(t *thread) { p.q.push(t) }
func (p *pct) blocked(t *thread)  { p.q.remove(t) }

func (p *pct) pick(w *World, runq []*thread) int {
	top := p.q[0]
	for p.next < len(p.changes) && p.changes[p.next] <= w.steps {
		top.prio = int64(p.depth - 1 - p.next)
		p.next++
		p.q.down(0)
		top = p.q[0]
	}
	return top.runIdx
}

// prioHeap is a max-heap of threads by (prio, -id); thread.prioIdx is a
// thread's index in it (-1: absent).
type prioHeap []*thread

func (h prioHeap) above(i, j int) bool {
	a, b := h[i], h[j]
	return a.prio > b.prio || a.prio == b.prio && a.id < b.id
}

func (h prioHeap) swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].prioIdx, h[j].prioIdx = i, j
}

func (h *prioHeap) push(t *thread) {
	t.prioIdx = len(*h)
	*h = append(*h, t)
	h.up(t.prioIdx)
}

func (h *prioHeap) remove(t *thread) {
	i := t.prioIdx
	if i < 0 {
		return
	}
	old := *h
	n := len(old) - 1
	if i != n {
		old.swap(i, n)
	}
	old[n] = nil
	*h = old[:n]
	t.prioIdx = -1
	if i != n {
		h.down(i)
		h.up(i)
	}
}

func (h prioHeap) up(j int) {
	for j > 0 {
		i := (j - 1) / 2
		if !h.above(j, i) {
			return
		}
		h.swap(i, j)
		j = i
	}
}

func (h prioHeap) down(i int) {
	for {
		j := 2*i + 1
		if j >= len(h) {
			return
		}
		if j2 := j + 1; j2 < len(h) && h.above(j2, j) {
			j = j2
		}
		if !h.above(j, i) {
			return
		}
		h.swap(i, j)
		i = j
	}
}

// replay follows a recorded decision list.
type replay struct {
	decisions []int32
	i         int
}

func (r *replay) spawned(*World, *thread) {}
func (r *replay) runnable(*thread)        {}
func (r *replay) blocked(*thread)         {}

// pick finds the recorded thread by id (its index in World.threads), not
// by a scan of the run queue; -1 if it is not runnable.
func (r *replay) pick(w *World, runq []*thread) int {
	if r.i >= len(r.decisions) {
		return -1
	}
	id := r.decisions[r.i]
	r.i++
	if id < 0 || int(id) >= len(w.threads) {
		return -1
	}
	return w.threads[id].runIdx
}
