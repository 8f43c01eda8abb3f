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

// pct is Probabilistic Concurrency Testing: random distinct priorities,
// always run the highest, and at d-1 random steps drop the running
// thread's priority below every initial one. For n threads and k steps a
// bug of depth d is hit with probability at least 1/(n·k^(d-1)).
type pct struct {
	r       *rand.Rand
	depth   int
	changes []int64 // sorted steps at which a priority change happens
	next    int
}

func newPCT(cfg Config, r *rand.Rand) *pct {
	d, k := cfg.PCTDepth, cfg.PCTSteps
	if d <= 0 {
		d = 3
	}
	if k <= 0 {
		k = 20000
	}
	p := &pct{r: r, depth: d}
	for range d - 1 {
		p.changes = append(p.changes, 1+r.Int64N(int64(k)))
	}
	slices.Sort(p.changes)
	return p
}

func (p *pct) spawned(w *World, t *thread) {
	t.prio = int64(p.depth) + p.r.Int64N(1<<40)
}

func (p *pct) highest(runq []*thread) int {
	best := 0
	for i, t := range runq {
		b := runq[best]
		if t.prio > b.prio || (t.prio == b.prio && t.id < b.id) {
			best = i
		}
	}
	return best
}

func (p *pct) pick(w *World, runq []*thread) int {
	i := p.highest(runq)
	for p.next < len(p.changes) && p.changes[p.next] <= w.steps {
		runq[i].prio = int64(p.depth - 1 - p.next)
		p.next++
		i = p.highest(runq)
	}
	return i
}

// replay follows a recorded decision list.
type replay struct {
	decisions []int32
	i         int
}

func (r *replay) spawned(*World, *thread) {}

func (r *replay) pick(w *World, runq []*thread) int {
	if r.i >= len(r.decisions) {
		return -1
	}
	id := r.decisions[r.i]
	r.i++
	for j, t := range runq {
		if t.id == id {
			return j
		}
	}
	return -1
}
