package oracle

import (
	"slices"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/sim/cluster"
)

// script feeds boundary observations at virtual times to the generation
// checks and returns the ids of the checks that fired.
type step struct {
	at time.Duration
	o  cluster.Obs
}

func runScript(steps []step) ([]Finding, *Generations) {
	var fs Findings
	var now time.Duration
	g := NewGenerations(&fs, func() time.Duration { return now }, time.Second)
	for _, s := range steps {
		now = s.at
		g.Observe(s.o)
	}
	return fs.List(), g
}

const ms = time.Millisecond

func obs(k cluster.ObsKind, thread int32, f func(*cluster.Obs)) cluster.Obs {
	o := cluster.Obs{Kind: k, Thread: thread}
	if f != nil {
		f(&o)
	}
	return o
}

func alloc(id int64) cluster.Obs {
	return obs(cluster.ObsAllocate, 5, func(o *cluster.Obs) { o.ID = id })
}
func stored(id int64) cluster.Obs {
	return obs(cluster.ObsStored, 6, func(o *cluster.Obs) { o.ID = id })
}
func failedWrite(th int32) cluster.Obs {
	return obs(cluster.ObsStatusSet, th, func(o *cluster.Obs) { o.Value = "FAILED" })
}
func notify(th int32) cluster.Obs { return obs(cluster.ObsFailure, th, nil) }
func restore(call int64, th int32) []cluster.Obs {
	return []cluster.Obs{obs(cluster.ObsRestoreBegin, th, func(o *cluster.Obs) { o.Call = call }),
		obs(cluster.ObsStatusSet, th, func(o *cluster.Obs) { o.Value = "RUNNING" }),
		obs(cluster.ObsRestoreEnd, th, func(o *cluster.Obs) { o.Call = call })}
}

func at(t time.Duration, os ...cluster.Obs) []step {
	var out []step
	for _, o := range os {
		out = append(out, step{t, o})
	}
	return out
}

func ids(fs []Finding) []string { return IDs(fs) }

func TestGenerationChecks(t *testing.T) {
	cases := []struct {
		name  string
		steps []step
		want  []string
	}{
		{"an expiry of the current generation is justified", slices.Concat(
			at(0, alloc(1)), at(1100*ms, failedWrite(9), notify(9))), nil},
		{"a failure before the timeout elapsed is not", slices.Concat(
			at(0, alloc(1)), at(500*ms, failedWrite(9), notify(9))), []string{GenerationJustified}},
		{"a stale expiry failing the restored generation is not (H1)", slices.Concat(
			at(0, alloc(1)), at(300*ms, restore(1, 2)...), at(1100*ms, failedWrite(9), notify(9))), []string{GenerationJustified}},
		{"a failure that began before the restore is the old generation's", slices.Concat(
			at(0, alloc(1)), at(1000*ms, failedWrite(9)), at(1001*ms, restore(1, 2)...), at(1002*ms, notify(9))), nil},
		{"a storage fault of the generation's checkpoint justifies it", slices.Concat(
			at(0, alloc(1)), at(100*ms, obs(cluster.ObsFault, 6, func(o *cluster.Obs) { o.Fault = cluster.FaultStorage; o.ID = 1 })),
			at(101*ms, failedWrite(9), notify(9))), nil},
		{"a storage fault of an earlier generation's checkpoint does not (H9)", slices.Concat(
			at(0, alloc(1)), at(50*ms, restore(1, 2)...),
			at(100*ms, obs(cluster.ObsFault, 6, func(o *cluster.Obs) { o.Fault = cluster.FaultStorage; o.ID = 1 })),
			at(101*ms, failedWrite(9), notify(9))), []string{GenerationJustified}},
		{"two notifications in one generation", slices.Concat(
			at(0, alloc(1)), at(1100*ms, failedWrite(9), notify(9)), at(1200*ms, failedWrite(8), notify(8))),
			[]string{OneFailurePerGeneration}},
		{"a step-down window justifies a failure inside it", slices.Concat(
			at(0, obs(cluster.ObsFault, 3, func(o *cluster.Obs) { o.Pipeline, o.Job, o.Fault = -1, -1, cluster.FaultStepDown })),
			at(10*ms, failedWrite(9), notify(9))), nil},
		{"a checkpoint stored within the timeout justifies nothing", slices.Concat(
			at(0, alloc(1)), at(100*ms, stored(1)), at(1100*ms, failedWrite(9), notify(9))), []string{GenerationJustified}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs, _ := runScript(c.steps)
			if got := ids(fs); !slices.Equal(got, c.want) {
				t.Fatalf("fired %v, want %v: %v", got, c.want, fs)
			}
		})
	}
}
