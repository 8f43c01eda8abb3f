package workloads

import (
	"slices"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/core/sched"
	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/workloads/oracle"
)

// TestRolesFromSpawnRecords: a thread's role is read from the code that
// spawned it, not its name. Planted: a harness thread named like a
// dispatcher has no role; a renamed scheduler thread keeps its role; a
// worker a pool respawns from its own thread inherits its parent's owner;
// a pool the harness owns (the coordinator executor) is not the
// scheduler's.
func TestRolesFromSpawnRecords(t *testing.T) {
	timerSpawn := []string{execPkg + "(*Timer).startLocked", execPkg + "(*Timer).ScheduleRunnerAt", schedPkg + "(*Lease).ScheduleAt"}
	poolSpawn := []string{execPkg + "(*Pool).startLocked", execPkg + "(*Pool).ExecuteRunner", schedPkg + "(*shared).fire"}
	respawn := []string{execPkg + "(*Pool).startLocked", execPkg + "(*Pool).worker", "iter.Pull[...].func1"}
	harnessPool := []string{execPkg + "(*Pool).startLocked", execPkg + "(*Pool).Execute", "github.com/ckptsim/ckptsim/workloads/cluster.effectExec.Execute"}
	ts := []sim.ThreadInfo{
		{ID: 0, Name: "main", Parent: -1, Spawner: []string{"github.com/ckptsim/ckptsim/workloads.Run"}},
		{ID: 1, Name: "renamed-timer", Parent: 0, Spawner: timerSpawn},
		{ID: 2, Name: "renamed-pool", Parent: 1, Spawner: poolSpawn},
		{ID: 3, Name: "checkpoint-dispatcher-7", Parent: 0, Spawner: []string{"github.com/ckptsim/ckptsim/workloads.(*injector).start"}},
		{ID: 4, Name: "replacement", Parent: 2, Spawner: respawn},
		{ID: 5, Name: "checkpoint-dispatcher-8", Parent: 0, Spawner: harnessPool},
		{ID: 6, Name: "harness-respawn", Parent: 5, Spawner: respawn},
	}
	for _, c := range []struct {
		design sched.Design
		want   []string
	}{
		{sched.Shared, []string{"", oracle.RoleTimer, oracle.RoleDispatch, "", oracle.RoleDispatch, "", ""}},
		{sched.SharedInline, []string{"", oracle.RoleTimer, "", "", "", "", ""}},
		{sched.LeaderFollower, []string{"", oracle.RoleDispatch, "", "", "", "", ""}},
		{sched.PerPipeline, []string{"", "", "", "", "", "", ""}},
	} {
		if got := schedRoles(c.design, ts); !slices.Equal(got, c.want) {
			t.Errorf("%s: roles %q, want %q", c.design, got, c.want)
		}
	}
}

// TestRolesOfRealRuns: in a run of each design, every thread the scheduler
// spawns has the role its design gives it, and no other thread has one.
// The names core gives its threads today serve as the cross-check only.
func TestRolesOfRealRuns(t *testing.T) {
	s, err := Lookup("smoke")
	if err != nil {
		t.Fatal(err)
	}
	byRole := map[sched.Design]map[string]int{}
	onThreadTable = func(d sched.Design, table []oracle.Thread) {
		if byRole[d] == nil {
			byRole[d] = map[string]int{}
		}
		for _, th := range table {
			byRole[d][th.Role]++
			var want string
			switch {
			case strings.HasPrefix(th.Name, "checkpoint-dispatcher-"), strings.HasPrefix(th.Name, "checkpoint-scheduler-"):
				want = oracle.RoleDispatch
			case strings.HasPrefix(th.Name, "checkpoint-timer-"):
				want = oracle.RoleTimer
			}
			if th.Role != want {
				t.Errorf("%s: thread %s has role %q, want %q", d, th.Name, th.Role, want)
			}
		}
	}
	defer func() { onThreadTable = nil }()
	for _, d := range sched.Designs {
		if o := Run(s, Options{Seed: 1, Variants: map[string]string{"design": string(d)}}); o.Verdict != Pass {
			t.Fatalf("%s: %s %v", d, o.Verdict, o.Violations)
		}
	}
	want := map[sched.Design][]string{
		sched.Shared:         {oracle.RoleTimer, oracle.RoleDispatch},
		sched.SharedInline:   {oracle.RoleTimer},
		sched.LeaderFollower: {oracle.RoleDispatch},
		sched.PerPipeline:    nil,
	}
	for d, roles := range want {
		for _, r := range []string{oracle.RoleTimer, oracle.RoleDispatch} {
			if n := byRole[d][r]; slices.Contains(roles, r) != (n > 0) {
				t.Errorf("%s: %d threads with role %q", d, n, r)
			}
		}
	}
}
