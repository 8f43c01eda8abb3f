package workloads

import (
	"reflect"
	"strings"

	"github.com/ckptsim/ckptsim/core/exec"
	"github.com/ckptsim/ckptsim/core/sched"
	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/workloads/oracle"
)

// The thread checks (timer-threads, dispatch-bound, worker-died) count
// threads by role, and the role comes from each thread's spawn record (the
// stack of the code that called Go, sim.ThreadInfo.Spawner), never from the
// name core gives the thread: a thread is the scheduler's when an executor
// of core/exec spawned it (its innermost frame: a Timer's or a Pool's
// method) on behalf of core/sched (the first frame outside core/exec). A
// thread an executor spawns from its own thread (a pool replacing a
// worker) has no owner on its stack and inherits its parent's. Package
// paths are read from the types, so a move or rename of either package
// keeps the rule.
var (
	execPkg  = reflect.TypeFor[exec.Timer]().PkgPath() + "."
	schedPkg = reflect.TypeFor[sched.Lease]().PkgPath() + "."
)

// executor kinds a spawn record names.
const (
	kindTimer = "timer"
	kindPool  = "pool"
)

// spawnedBy returns which executor of core/exec spawned a thread ("timer",
// "pool" or "") and the first frame on its spawn stack outside core/exec
// ("" when the stack holds none but the executor's own and the
// coroutine's).
func spawnedBy(spawner []string) (kind, owner string) {
	if len(spawner) == 0 {
		return "", ""
	}
	switch {
	case strings.HasPrefix(spawner[0], execPkg+"(*Timer)."):
		kind = kindTimer
	case strings.HasPrefix(spawner[0], execPkg+"(*Pool)."):
		kind = kindPool
	}
	for _, f := range spawner {
		if strings.HasPrefix(f, execPkg) || strings.HasPrefix(f, "iter.") {
			continue
		}
		return kind, f
	}
	return kind, ""
}

// schedRoles assigns each thread of the table its scheduler role under a
// design, from the spawn records.
func schedRoles(design sched.Design, ts []sim.ThreadInfo) []string {
	owners := make(map[int32]string, len(ts))
	roles := make([]string, len(ts))
	for i, t := range ts {
		kind, owner := spawnedBy(t.Spawner)
		if owner == "" {
			owner = owners[t.Parent] // spawned by an executor's own thread: its parent's owner
		}
		owners[t.ID] = owner
		if !strings.HasPrefix(owner, schedPkg) {
			continue
		}
		roles[i] = roleOf(design, kind)
	}
	return roles
}

// roleOf maps the executor that spawned a scheduler thread to its role
// under a design: the shared designs' timer threads, their dispatch pool,
// the leader-follower's one pool of timer threads that run bodies. The
// per-pipeline design's timer threads (one set per lease, replaced on a
// reset) have no bounded role.
func roleOf(design sched.Design, kind string) string {
	switch {
	case design == sched.Shared && kind == kindPool:
		return oracle.RoleDispatch
	case (design == sched.Shared || design == sched.SharedInline) && kind == kindTimer:
		return oracle.RoleTimer
	case design == sched.LeaderFollower && kind == kindTimer:
		return oracle.RoleDispatch
	}
	return ""
}

// spawnedByExecutor picks the threads whose spawn stack the roles need:
// those running a function of core/exec (an executor's worker or timer
// thread). The others (tasks, the harness's threads) get none: a stack
// walk costs every spawn (failovers seeds 0-39 took 9.1 CPU-s with every
// stack recorded, 7.6 with none).
func spawnedByExecutor(body string) bool { return strings.HasPrefix(body, execPkg) }
