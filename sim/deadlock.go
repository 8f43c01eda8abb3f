package sim

import (
	"fmt"
	"runtime"
	"slices"
	"strings"

	"github.com/ckptsim/ckptsim/internal/digraph"
)

// DeadlockReport describes a world in which nothing can run.
type DeadlockReport struct {
	Threads []ThreadState
	// Cycle lists the threads of a wait cycle, each waiting for a lock
	// the next one holds (empty when the threads wait on conditions).
	Cycle []string
}

// ThreadState is one blocked thread in a report.
type ThreadState struct {
	Name    string
	WaitsOn string
	Holds   []string
	Owner   string // owner of the lock it waits for, if any
}

func (r *DeadlockReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "deadlock: %d blocked threads\n", len(r.Threads))
	for _, t := range r.Threads {
		fmt.Fprintf(&b, "  %s waits on %s", t.Name, t.WaitsOn)
		if t.Owner != "" {
			fmt.Fprintf(&b, " (held by %s)", t.Owner)
		}
		if len(t.Holds) > 0 {
			fmt.Fprintf(&b, "; holds %s", strings.Join(t.Holds, ", "))
		}
		b.WriteString("\n")
	}
	if len(r.Cycle) > 0 {
		fmt.Fprintf(&b, "  wait cycle: %s -> %s\n", strings.Join(r.Cycle, " -> "), r.Cycle[0])
	}
	return b.String()
}

func (w *World) deadlock() {
	r := &DeadlockReport{}
	for _, t := range w.threads {
		if t.state != tBlocked {
			continue
		}
		s := ThreadState{Name: t.name, WaitsOn: t.waitOn.String()}
		for _, m := range t.held {
			s.Holds = append(s.Holds, m.name)
		}
		if t.wantMu != nil && t.wantMu.owner != nil {
			s.Owner = t.wantMu.owner.name
		}
		r.Threads = append(r.Threads, s)
	}
	r.Cycle = w.waitCycle()
	w.end(OutcomeDeadlock, r.String())
	w.result.Deadlock = r
}

// waitCycle follows "waits for a lock held by" edges from each thread.
func (w *World) waitCycle() []string {
	var names []string
	for _, t := range w.waitCycleThreads() {
		names = append(names, t.name)
	}
	return names
}

// waitCycleThreads returns the threads of a wait cycle among the threads
// blocked on a lock, each waiting for a lock the next one holds (nil when
// there is none).
func (w *World) waitCycleThreads() []*thread {
	for _, start := range w.threads {
		if start.wantMu == nil || start.state != tBlocked {
			continue
		}
		seen := map[*thread]int{}
		var path []*thread
		for t := start; t != nil && t.wantMu != nil && t.state == tBlocked; t = t.wantMu.owner {
			if i, ok := seen[t]; ok {
				return path[i:]
			}
			seen[t] = len(path)
			path = append(path, t)
		}
	}
	return nil
}

// LockEdge says that lock class To was acquired while From was held.
type LockEdge struct {
	From, To         string
	FromSite, ToSite string // file:line of the two Lock calls, first time seen
	Thread           string
	Count            int
}

// LockGraph is the lock-order graph over lock classes. It can be merged
// across runs so that a campaign reports an ordering cycle that no single
// run completed.
//
// Finding the file and line of a Lock call (runtime.Callers) cost about
// half of a campaign's CPU when done on every acquisition, so a run records
// the site of a class's acquisitions only while the class is still gaining
// edges: until siteQuiet acquisitions in a row added no edge from or to it.
// A new edge is exact on its To side (its site is taken then) and, when
// the held lock's acquisition was not recorded, names the class's last
// recorded site with "(approx.)".
type LockGraph struct {
	edges map[[2]string]*LockEdge
	// The run's fast path, by class id (not merged).
	ids    map[string]int32
	names  []string
	byID   map[[2]int32]*LockEdge
	quiet  []int32   // acquisitions since the class's last new edge
	lastPC []uintptr // the class's last recorded acquisition site
}

// siteQuiet is how many acquisitions in a row without a new edge end the
// recording of a class's sites.
const siteQuiet = 256

// NewLockGraph returns an empty graph.
func NewLockGraph() *LockGraph {
	return &LockGraph{edges: map[[2]string]*LockEdge{}, ids: map[string]int32{}, byID: map[[2]int32]*LockEdge{}}
}

// classOf returns the id of a lock class, made on first use.
func (g *LockGraph) classOf(name string) int32 {
	id, ok := g.ids[name]
	if !ok {
		id = int32(len(g.names))
		g.ids[name] = id
		g.names = append(g.names, name)
		g.quiet = append(g.quiet, 0)
		g.lastPC = append(g.lastPC, 0)
	}
	return id
}

// recording reports whether an acquisition of the class records its site.
func (g *LockGraph) recording(class int32) bool {
	if g.quiet[class] < siteQuiet {
		g.quiet[class]++
		return true
	}
	return false
}

func (g *LockGraph) acquired(t *thread, m *mutex) {
	for _, h := range t.held {
		if h.class == m.class {
			continue // same class: nesting of sibling instances
		}
		k := [2]int32{h.class, m.class}
		if e, ok := g.byID[k]; ok {
			e.Count++
			continue
		}
		if m.site == 0 {
			var pcs [1]uintptr
			runtime.Callers(4, pcs[:]) // the caller of Lock or TryLock
			m.site = pcs[0]
			g.lastPC[m.class] = m.site
		}
		from := site(h.site)
		if h.site == 0 {
			from = site(g.lastPC[h.class]) + " (approx.)"
		}
		g.quiet[h.class], g.quiet[m.class] = 0, 0
		e := &LockEdge{From: h.name, To: m.name, FromSite: from, ToSite: site(m.site), Thread: t.name, Count: 1}
		g.byID[k] = e
		g.edges[[2]string{h.name, m.name}] = e
	}
}

func site(pc uintptr) string {
	if pc == 0 {
		return "?"
	}
	f, _ := runtime.CallersFrames([]uintptr{pc}).Next()
	return fmt.Sprintf("%s:%d", f.File, f.Line)
}

// Merge adds o's edges to g.
func (g *LockGraph) Merge(o *LockGraph) {
	if o == nil {
		return
	}
	for k, e := range o.edges {
		if x, ok := g.edges[k]; ok {
			x.Count += e.Count
			continue
		}
		c := *e
		g.edges[k] = &c
	}
}

// Edges returns the edges sorted by (From, To).
func (g *LockGraph) Edges() []LockEdge {
	var out []LockEdge
	for _, e := range g.edges {
		out = append(out, *e)
	}
	slices.SortFunc(out, func(a, b LockEdge) int {
		return strings.Compare(a.From+"\x00"+a.To, b.From+"\x00"+b.To)
	})
	return out
}

// LockCycle is a cycle of lock-order edges.
type LockCycle []LockEdge

func (c LockCycle) String() string {
	var b strings.Builder
	b.WriteString("lock-order cycle:\n")
	for _, e := range c {
		fmt.Fprintf(&b, "  %s (%s) then %s (%s) by %s\n", e.From, e.FromSite, e.To, e.ToSite, e.Thread)
	}
	return b.String()
}

// Cycles returns one cycle through each strongly connected set of lock
// classes, found by depth-first search in sorted order (deterministic;
// internal/digraph, which the lock-order check uses too).
func (g *LockGraph) Cycles() []LockCycle {
	var edges []digraph.Edge
	for k := range g.edges {
		edges = append(edges, digraph.Edge{From: k[0], To: k[1]})
	}
	var out []LockCycle
	for _, path := range digraph.Cycles(edges) {
		c := make(LockCycle, len(path))
		for i, e := range path {
			c[i] = *g.edges[[2]string{e.From, e.To}]
		}
		out = append(out, c)
	}
	return out
}
