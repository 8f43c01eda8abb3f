package oracle

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Threads holds the scheduler's thread checks: timer-threads,
// dispatch-bound and worker-died. They judge from the simulator's own
// thread table (handed over as []Thread: every thread spawned through the
// env seam, when it was spawned and when its function returned, and the
// role the harness read from its spawn record), the lease decorator's
// record of when the last body each thread ran returned, the harness's
// configuration and the time it closed the scheduler; never from the
// scheduler's or the pool's own counters, and never from the names core
// gives its threads (a name appears in messages only).
type Threads struct {
	// TimerMax bounds how many RoleTimer threads are alive at once (-1: no
	// bound); DispatchMax how many RoleDispatch threads (the shared
	// design's pool, the leader-follower pool).
	TimerMax    int
	DispatchMax int
	// KeepAlive is how long a dispatch thread stays idle before the pool may
	// reap it (the scheduler's configuration).
	KeepAlive time.Duration
}

// The roles of scheduler threads: the harness assigns them from each
// thread's spawn record (which executor spawned it, and whose executor it
// is), never from its name.
const (
	RoleTimer    = "timer"    // a shared timer thread of the scheduler
	RoleDispatch = "dispatch" // a thread that runs bodies from the dispatch side
)

// Thread is one row of the simulator's thread table, as the harness hands
// it over after the run (sim.World.Threads, in spawn order).
type Thread struct {
	ID      int32
	Name    string        // as given to Go: for messages only
	Role    string        // RoleTimer, RoleDispatch, or "" (not a bounded scheduler thread)
	Spawned time.Duration // virtual time of the spawn
	Exited  bool          // its function returned (or panicked) before the run ended
	ExitAt  time.Duration // when, if Exited
}

// Judge checks the thread table of one run. closedAt is when the harness
// closed the scheduler (its threads may end from then on); bodyEnd maps a
// thread id to when the last lease body it ran returned.
func (th Threads) Judge(f *Findings, table []Thread, bodyEnd map[int32]time.Duration, closedAt time.Duration) {
	if th.TimerMax >= 0 {
		if n, at, names := peak(table, RoleTimer); n > th.TimerMax {
			f.Add(TimerThreads, at, "scheduler", "%d timer threads alive at once (the world's thread table, roles from spawn records: %s), want at most %d",
				n, names, th.TimerMax)
		}
	}
	if n, at, names := peak(table, RoleDispatch); n > th.DispatchMax {
		f.Add(DispatchBound, at, "scheduler", "%d dispatch threads alive at once (the world's thread table, roles from spawn records: %s), bound %d",
			n, names, th.DispatchMax)
	}
	th.died(f, table, bodyEnd, closedAt)
}

// died: a scheduler thread that ended while the scheduler was open must
// have been reaped idle: it ran nothing for at least KeepAlive before it
// ended (since it was spawned, or since the last body it ran returned). A
// thread that ends sooner after its work ended a body's failure, or was
// reaped with work still to come.
func (th Threads) died(f *Findings, table []Thread, bodyEnd map[int32]time.Duration, closedAt time.Duration) {
	var dead []string
	var first time.Duration
	for _, t := range table {
		if !t.Exited || t.ExitAt >= closedAt || t.Role == "" {
			continue
		}
		idleSince := t.Spawned
		if e, ok := bodyEnd[t.ID]; ok {
			idleSince = max(idleSince, e)
		}
		if t.ExitAt-idleSince >= th.KeepAlive {
			continue // reaped after its keep-alive
		}
		if len(dead) == 0 {
			first = t.ExitAt
		}
		if len(dead) < 5 {
			dead = append(dead, fmt.Sprintf("%s ended at %v, %v after its last work", t.Name, t.ExitAt, t.ExitAt-idleSince))
		} else if len(dead) == 5 {
			dead = append(dead, "...")
		}
	}
	if n := len(dead); n > 0 {
		f.Add(WorkerDied, first, "dispatch pool", "scheduler threads ended while the scheduler was open, within the %v keep-alive of their last work (a failing body must leave its worker alive): %s",
			th.KeepAlive, strings.Join(dead, "; "))
	}
}

// peak returns the most threads of a role alive at once, when that count
// was first reached, and the names of those alive then (up to five). A
// thread is alive from its spawn until its function returned (until the
// end of the run if it never did); at one virtual instant, exits count
// before spawns.
func peak(table []Thread, role string) (int, time.Duration, string) {
	type edge struct {
		at    time.Duration
		delta int
		name  string
	}
	var es []edge
	for _, t := range table {
		if t.Role != role {
			continue
		}
		es = append(es, edge{t.Spawned, +1, t.Name})
		if t.Exited {
			es = append(es, edge{t.ExitAt, -1, t.Name})
		}
	}
	slices.SortStableFunc(es, func(a, b edge) int {
		if c := cmp.Compare(a.at, b.at); c != 0 {
			return c
		}
		return cmp.Compare(a.delta, b.delta)
	})
	n, best := 0, 0
	var at time.Duration
	alive := map[string]int{}
	var names string
	for _, e := range es {
		n += e.delta
		alive[e.name] += e.delta
		if n > best {
			best, at = n, e.at
			var live []string
			for _, k := range slices.Sorted(maps.Keys(alive)) {
				if alive[k] > 0 {
					live = append(live, k)
				}
			}
			if len(live) > 5 {
				live = append(live[:5], "...")
			}
			names = strings.Join(live, ", ")
		}
	}
	return best, at, names
}
