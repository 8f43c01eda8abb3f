package oracle

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Threads holds the scheduler's thread checks: timer-threads,
// dispatch-bound and worker-died. They judge from the simulator's own
// thread table (handed over as []Thread: every thread spawned through the
// env seam, its name, when it was spawned and when its function returned), the
// lease decorator's record of when the last body each thread ran returned,
// the harness's configuration and the time it closed the scheduler; never
// from the scheduler's or the pool's own counters.
//
// A role is the name prefix core gives a scheduler thread at spawn, followed
// by its number ("checkpoint-dispatcher-3").
type Threads struct {
	// TimerRole names the shared timer threads; TimerMax bounds how many are
	// alive at once (-1: no bound).
	TimerRole string
	TimerMax  int
	// DispatchRole names the threads that run bodies from the dispatch side
	// (the shared design's pool, the leader-follower pool); "" for designs
	// without one. DispatchMax bounds how many are alive at once.
	DispatchRole string
	DispatchMax  int
	// KeepAlive is how long a dispatch thread stays idle before the pool may
	// reap it (the scheduler's configuration).
	KeepAlive time.Duration
}

// Thread is one row of the simulator's thread table, as the harness hands
// it over after the run (sim.World.Threads, in spawn order).
type Thread struct {
	ID      int32
	Name    string        // as given to Go (a role and a number: "checkpoint-dispatcher-3")
	Spawned time.Duration // virtual time of the spawn
	Exited  bool          // its function returned (or panicked) before the run ended
	ExitAt  time.Duration // when, if Exited
}

// Role reports whether name is role followed by a thread number.
func Role(name, role string) bool {
	if role == "" || !strings.HasPrefix(name, role) {
		return false
	}
	n := name[len(role):]
	return n != "" && strings.Trim(n, "0123456789") == ""
}

// Judge checks the thread table of one run. closedAt is when the harness
// closed the scheduler (its threads may end from then on); bodyEnd maps a
// thread id to when the last lease body it ran returned.
func (th Threads) Judge(f *Findings, table []Thread, bodyEnd map[int32]time.Duration, closedAt time.Duration) {
	if th.TimerMax >= 0 {
		if n, at := peak(table, th.TimerRole); n > th.TimerMax {
			f.Add(TimerThreads, at, "scheduler", "%d %s threads alive at once (the world's thread table), want at most %d",
				n, th.TimerRole+"N", th.TimerMax)
		}
	}
	if th.DispatchRole != "" {
		if n, at := peak(table, th.DispatchRole); n > th.DispatchMax {
			f.Add(DispatchBound, at, "scheduler", "%d %s threads alive at once (the world's thread table), bound %d",
				n, th.DispatchRole+"N", th.DispatchMax)
		}
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
		if !t.Exited || t.ExitAt >= closedAt || !(Role(t.Name, th.DispatchRole) || Role(t.Name, th.TimerRole)) {
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

// peak returns the most threads of a role alive at once and when that
// count was first reached. A thread is alive from its spawn until its
// function returned (until the end of the run if it never did); at one
// virtual instant, exits count before spawns.
func peak(table []Thread, role string) (int, time.Duration) {
	type edge struct {
		at    time.Duration
		delta int
	}
	var es []edge
	for _, t := range table {
		if !Role(t.Name, role) {
			continue
		}
		es = append(es, edge{t.Spawned, +1})
		if t.Exited {
			es = append(es, edge{t.ExitAt, -1})
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
	for _, e := range es {
		n += e.delta
		if n > best {
			best, at = n, e.at
		}
	}
	return best, at
}
