package cluster_test

import (
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/core/coord"
	"github.com/ckptsim/ckptsim/core/sched"
	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/workloads/cluster"
)

// seen is one boundary observation of the redeployed pipeline, with its
// virtual time.
type seen struct {
	at time.Duration
	o  cluster.Obs
}

// redeployRun runs one job of four pipelines of three tasks, redeploys
// pipeline 3 at 35 s (failing: the task that fails between its reports,
// -1: none) and returns pipeline 3's observations.
func redeployRun(t *testing.T, seed uint64, failing int) []seen {
	t.Helper()
	w := sim.New(sim.Config{Seed: seed, MaxTime: time.Hour})
	var obs []seen
	r := w.Run(func() {
		c, err := cluster.New(w, cluster.Config{
			Jobs: 1, Pipelines: 4, Tasks: 3,
			Coord: coord.Config{Interval: 5 * time.Second, Timeout: 5 * time.Second, MaxRetained: 2},
			Sched: sched.Config{Cores: 2},
			Workload: cluster.Workload{
				AckLatency:      cluster.Dist{Kind: "uniform", Min: 10 * time.Millisecond, Max: 2 * time.Second},
				DispatchLatency: cluster.Dist{Kind: "uniform", Max: time.Millisecond},
				RestartDelay:    cluster.Dist{Min: time.Second},
			},
		})
		if err != nil {
			panic(err)
		}
		c.OnBoundary(func(o cluster.Obs) {
			if o.Job == 0 && o.Pipeline == 3 {
				obs = append(obs, seen{w.Elapsed(), o})
			}
		})
		c.Start()
		w.Sleep(35 * time.Second)
		if err := c.RedeployPipeline(0, 3, failing); err != nil {
			t.Errorf("seed %d: redeploy: %v", seed, err)
		}
		w.Sleep(30 * time.Second)
	})
	if r.Outcome != sim.OutcomeDone {
		t.Fatalf("seed %d: %v %s", seed, r.Outcome, r.Reason)
	}
	return obs
}

// TestRedeployHandsTheNewestAndRestarts: a redeploy restores the pipeline
// with Restore(false) and nothing else: each task reports WAITING_RESTORE
// before READY_START, exactly one report is the last READY_START and it
// is the last sent, every task is handed (Transport.RestoreState) a
// checkpoint no older than the newest stored before the redeploy, and the
// pipeline triggers again (IDCounter.Next) within an interval of the last
// READY_START, not before it. Reports of different tasks interleave on
// some seed. With a task failing between its reports, the attempt sends
// no report after the failure (that task's READY_START never), and the
// pipeline is redeployed once more, in full.
func TestRedeployHandsTheNewestAndRestarts(t *testing.T) {
	const tasks, interval = 3, 5 * time.Second
	interleaved := false
	for _, failing := range []int{-1, 1} {
		for seed := range uint64(6) {
			obs := redeployRun(t, seed, failing)
			var begins []int // indexes of the redeploy's ObsRestoreBegin
			newest := int64(0)
			for i, s := range obs {
				switch {
				case s.o.Kind == cluster.ObsRestoreBegin:
					if !s.o.Redeploy {
						t.Fatalf("seed %d: a restore that is not the redeploy's: %v", seed, s.o)
					}
					begins = append(begins, i)
				case s.o.Kind == cluster.ObsStored && len(begins) == 0:
					newest = s.o.ID
				}
			}
			want := 1
			if failing >= 0 {
				want = 2
			}
			if len(begins) != want || newest == 0 {
				t.Fatalf("seed %d failing %d: %d redeploy restores (want %d), newest stored before %d", seed, failing, len(begins), want, newest)
			}
			for a, b := range begins {
				end := len(obs)
				if a+1 < len(begins) {
					end = begins[a+1]
				}
				var reports []cluster.Obs
				handed := map[int]int64{}
				lastAt, allocAt := time.Duration(-1), time.Duration(-1)
				for _, s := range obs[b:end] {
					switch s.o.Kind {
					case cluster.ObsTaskReport:
						reports = append(reports, s.o)
						if s.o.Value == cluster.ReportLastReadyStart {
							lastAt = s.at
						}
					case cluster.ObsRestoreState:
						handed[s.o.Task] = s.o.ID
					case cluster.ObsAllocate:
						if allocAt < 0 {
							allocAt = s.at
						}
					}
				}
				waiting, ready := map[int]bool{}, map[int]bool{}
				for i, r := range reports {
					switch r.Value {
					case cluster.ReportWaitingRestore:
						if ready[r.Task] || waiting[r.Task] {
							t.Fatalf("seed %d attempt %d: task %d reports WAITING_RESTORE twice or after READY_START", seed, a, r.Task)
						}
						waiting[r.Task] = true
						if len(ready) > 0 {
							interleaved = true
						}
					case cluster.ReportReadyStart, cluster.ReportLastReadyStart:
						if !waiting[r.Task] || ready[r.Task] {
							t.Fatalf("seed %d attempt %d: task %d reports READY_START twice or before WAITING_RESTORE", seed, a, r.Task)
						}
						ready[r.Task] = true
						if (r.Value == cluster.ReportLastReadyStart) != (len(ready) == tasks) || r.Value == cluster.ReportLastReadyStart && i != len(reports)-1 {
							t.Fatalf("seed %d attempt %d: report %d of %d (%s) marks the last READY_START wrongly", seed, a, i, len(reports), r.Value)
						}
					}
				}
				for task := range tasks {
					if id, ok := handed[task]; waiting[task] && (!ok || id < newest) {
						t.Errorf("seed %d attempt %d: task %d handed checkpoint %d (handed: %v), newest stored before the redeploy %d", seed, a, task, id, ok, newest)
					}
				}
				failed := failing >= 0 && a == 0
				if failed {
					if ready[failing] || lastAt >= 0 || allocAt >= 0 {
						t.Errorf("seed %d: the attempt whose task %d failed sent its READY_START (%v), a last READY_START (%v) or triggered (%v)",
							seed, failing, ready[failing], lastAt, allocAt)
					}
					continue
				}
				if len(waiting) != tasks || len(ready) != tasks {
					t.Fatalf("seed %d attempt %d: %d WAITING_RESTORE, %d READY_START of %d tasks", seed, a, len(waiting), len(ready), tasks)
				}
				if allocAt < lastAt || allocAt > lastAt+interval+time.Second {
					t.Errorf("seed %d attempt %d: first trigger at %v, the last READY_START at %v (interval %v)", seed, a, allocAt, lastAt, interval)
				}
			}
		}
	}
	if !interleaved {
		t.Error("no seed interleaved one task's WAITING_RESTORE after another's READY_START")
	}
}
