package oracle

import (
	"fmt"
	"strings"
	"time"

	"github.com/ckptsim/ckptsim/internal/digraph"
)

// The simulated world's checks: deadlock and lock-order. They judge from
// what the simulator reports about the threads it ran, handed over as
// plain values after the run: whether the whole world deadlocked, the
// threads each waiting for a lock the next one holds at the end of the
// run, and the lock-order graph's edges.

// Blocked is a thread blocked at the end of a run, as the simulator saw it
// (sim.Result.Blocked, sim.Result.WaitCycle).
type Blocked struct {
	Name   string
	WaitOn string        // what it waits on ("lock coord.lock", "wait on cond of exec.pool")
	Since  time.Duration // virtual time it blocked at
}

// LockEdge says that lock class To was acquired while From was held
// (an edge of the simulator's lock-order graph, sim.LockGraph.Edges).
type LockEdge struct {
	From, To         string
	FromSite, ToSite string // file:line of the two Lock calls, first time seen
	Thread           string
}

// WorldDeadlock reports a whole-world deadlock: nothing runnable, no
// deadline, threads alive (reason as the simulator described it).
func WorldDeadlock(f *Findings, at time.Duration, reason string) {
	f.Add(Deadlock, at, "world", "%s", reason)
}

// WaitCycle reports a lock cycle that was hit while the rest of the world
// ran on: at the end of the run, threads each waiting for a lock the next
// one holds (cycle, in order; empty: none). The harness's monitor sleeps in
// a loop, so a deadline is always pending and such a partial deadlock never
// ends the run as a deadlock of the whole world.
func WaitCycle(f *Findings, at time.Duration, cycle []Blocked) {
	if len(cycle) == 0 {
		return
	}
	var parts []string
	for _, b := range cycle {
		parts = append(parts, fmt.Sprintf("%s (%s since %v)", b.Name, b.WaitOn, b.Since))
	}
	f.Add(Deadlock, at, "world", "lock cycle hit: %s -> %s, each waiting for a lock the next holds, until the end of the run",
		strings.Join(parts, " -> "), cycle[0].Name)
}

// LockOrderCycles reports one ordering cycle through each strongly connected set
// of lock classes of the run's lock-order graph (edges), found by
// depth-first search in sorted order (deterministic): a potential deadlock
// whether or not this run hit it.
func LockOrderCycles(f *Findings, at time.Duration, edges []LockEdge) {
	for _, c := range lockCycles(edges) {
		f.Add(LockOrder, at, "lock-order graph", "%s", lockCycleString(c))
	}
}

// lockCycles returns one cycle through each strongly connected set of lock
// classes, as sim.LockGraph.Cycles finds them (both through
// internal/digraph).
func lockCycles(edges []LockEdge) [][]LockEdge {
	byPair := map[digraph.Edge]LockEdge{}
	pairs := make([]digraph.Edge, 0, len(edges))
	for _, e := range edges {
		p := digraph.Edge{From: e.From, To: e.To}
		byPair[p] = e
		pairs = append(pairs, p)
	}
	var out [][]LockEdge
	for _, path := range digraph.Cycles(pairs) {
		c := make([]LockEdge, len(path))
		for i, p := range path {
			c[i] = byPair[p]
		}
		out = append(out, c)
	}
	return out
}

func lockCycleString(c []LockEdge) string {
	var b strings.Builder
	b.WriteString("lock-order cycle:\n")
	for _, e := range c {
		fmt.Fprintf(&b, "  %s (%s) then %s (%s) by %s\n", e.From, e.FromSite, e.To, e.ToSite, e.Thread)
	}
	return b.String()
}
