package oracle

import (
	"slices"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/workloads/cluster"
)

// TestStorageFromBoundaries feeds the storage checks (max-retained 2)
// synthetic boundary observations of job 0 pipeline 0, each case a
// sequence and then a sample of what storage holds (its count for
// retention, its ids for storage-retention), and the checks it must fire
// (none for the protocol). Thread 1 stores; thread 9 is another thread.
func TestStorageFromBoundaries(t *testing.T) {
	begin := func(id int64) cluster.Obs {
		return cluster.Obs{Kind: cluster.ObsStoreBegin, ID: id, Thread: 1, Sum: uint64(id)}
	}
	stored := func(id int64) cluster.Obs { return cluster.Obs{Kind: cluster.ObsStored, ID: id, Thread: 1} }
	lost := func(id int64) cluster.Obs {
		return cluster.Obs{Kind: cluster.ObsStoreFailed, ID: id, Thread: 1, Value: "landed"}
	}
	failed := func(id int64) cluster.Obs { return cluster.Obs{Kind: cluster.ObsStoreFailed, ID: id, Thread: 1} }
	listed := cluster.Obs{Kind: cluster.ObsListed, Thread: 1}
	deleted := cluster.Obs{Kind: cluster.ObsDeleted, Thread: 1}
	next := cluster.Obs{Kind: cluster.ObsNotify, ID: 99, Thread: 1} // the storing thread's next call
	other := cluster.Obs{Kind: cluster.ObsStatusSet, Thread: 9}
	notify := func(id int64, sum uint64) cluster.Obs {
		return cluster.Obs{Kind: cluster.ObsNotify, ID: id, Thread: 9, Sum: sum}
	}
	store := func(id int64) []cluster.Obs { return []cluster.Obs{begin(id), stored(id)} }
	strand := func(ids ...int64) cluster.Obs { // a failed Storage.Delete left ids stored
		return cluster.Obs{Kind: cluster.ObsDeleted, Thread: 1, IDs: ids, Value: "failed"}
	}
	readFault := cluster.Obs{Kind: cluster.ObsFault, Thread: 1, Fault: cluster.FaultRead} // the storing thread's listing failed
	relist := func(ids ...int64) cluster.Obs { return cluster.Obs{Kind: cluster.ObsListed, Thread: 1, IDs: ids} }
	four := slices.Concat(store(1), store(2), store(3), store(4), []cluster.Obs{deleted}) // 4 = 2N: trimmed to [3 4]
	cases := []struct {
		name string
		obs  []cluster.Obs
		held []int64
		want []string
	}{
		{"trimmed at 2N", four, []int64{3, 4}, nil},
		{"orphan: the trim never deleted", four, []int64{1, 2, 3, 4}, []string{Retention, StorageRetention}},
		{"deleted early", four, []int64{4}, []string{StorageRetention}},
		{"inside the retention step nothing is judged", slices.Concat(store(1), store(2), store(3), store(4)),
			[]int64{1, 2, 3, 4}, nil},
		{"the step ends at the storing thread's next call", slices.Concat(store(1), store(2), store(3), store(4),
			[]cluster.Obs{other, listed, next}), []int64{1, 2, 3, 4}, []string{Retention, StorageRetention}},
		{"a lost reply's write is retained", slices.Concat(store(1), []cluster.Obs{begin(2), lost(2), listed, next}),
			[]int64{1, 2}, nil},
		{"a lost reply's write left behind", slices.Concat(store(1), store(2), store(3),
			[]cluster.Obs{begin(4), lost(4), listed, deleted}), []int64{1, 2, 3, 4}, []string{Retention, StorageRetention}},
		{"a lost reply's write never retained", slices.Concat(store(1), []cluster.Obs{begin(2), lost(2), next}),
			[]int64{1}, []string{StorageRetention}},
		{"a failed delete strands its ids: no orphan, no bound", slices.Concat(store(1), store(2), store(3), store(4),
			[]cluster.Obs{strand(1, 2), next}), []int64{1, 2, 3, 4}, nil},
		{"a stranded id listed is retained again and trimmed in turn", slices.Concat(store(1), store(2), store(3), store(4),
			[]cluster.Obs{strand(1, 2), next, relist(1, 2, 3, 4), {Kind: cluster.ObsDeleted, Thread: 1, IDs: []int64{1, 2}}}),
			[]int64{3, 4}, nil},
		{"a stranded id listed and never deleted is an orphan again", slices.Concat(store(1), store(2), store(3), store(4),
			[]cluster.Obs{strand(1), next, relist(1, 3, 4), store(5)[0], store(5)[1], {Kind: cluster.ObsDeleted, Thread: 1, IDs: []int64{3}}, next}),
			[]int64{1, 4, 5}, []string{StorageRetention}},
		{"a delete reported done that left the id stored is an orphan", slices.Concat(store(1), store(2), store(3), store(4),
			[]cluster.Obs{{Kind: cluster.ObsDeleted, Thread: 1, IDs: []int64{1, 2}}, next}), []int64{1, 3, 4}, []string{StorageRetention}},
		{"a lost reply whose reconcile listing failed waits for the next listing", slices.Concat(store(1), store(2), store(3),
			[]cluster.Obs{begin(4), lost(4), readFault, next}), []int64{1, 2, 3, 4}, nil},
		{"and that listing trims it", slices.Concat(store(1), store(2), store(3),
			[]cluster.Obs{begin(4), lost(4), readFault, next, relist(1, 2, 3, 4), {Kind: cluster.ObsDeleted, Thread: 1, IDs: []int64{1, 2}}}),
			[]int64{3, 4}, nil},
		{"a failed cleanup strands what the job kept", slices.Concat(store(1), store(2),
			[]cluster.Obs{next, {Kind: cluster.ObsJobDeleted, Value: "failed"}}), []int64{2}, nil},
		{"the retried cleanup keeps nothing", slices.Concat(store(1), store(2),
			[]cluster.Obs{next, {Kind: cluster.ObsJobDeleted, Value: "failed"}, {Kind: cluster.ObsJobDeleted}}), []int64{2}, []string{StorageRetention}},
		{"a stranded id retained again may still vanish (its removal unsynced, a crash)", slices.Concat(store(1), store(2), store(3), store(4),
			[]cluster.Obs{strand(2), next, relist(2, 3, 4)}), []int64{3, 4}, nil},
		{"a retained id missing that no failed delete touched still fires", slices.Concat(store(1), store(2), store(3), store(4),
			[]cluster.Obs{strand(2), next, relist(2, 3, 4), {Kind: cluster.ObsDeleted, Thread: 1, IDs: []int64{2}}, store(5)[0], store(5)[1], next}),
			[]int64{5}, []string{StorageRetention}},
		{"a listing that shows a stranded id rebuilds retention from every listed id not yet deleted", slices.Concat(store(1), store(2), store(3), store(4),
			[]cluster.Obs{{Kind: cluster.ObsDeleted, Thread: 1, IDs: []int64{1}}, strand(2), next}, store(5), []cluster.Obs{next}, store(6),
			[]cluster.Obs{relist(2, 3, 4, 5, 6), {Kind: cluster.ObsDeleted, Thread: 1, IDs: []int64{2, 3, 4}}, next}), []int64{5, 6}, nil},
		{"a failed store changes nothing", slices.Concat(store(1), []cluster.Obs{begin(2), failed(2), next}),
			[]int64{1}, nil},
		{"a store in flight is not judged", slices.Concat(store(1), []cluster.Obs{next, begin(2)}), nil, nil},
		{"intact bytes handed to a task", slices.Concat(store(1), []cluster.Obs{next, notify(1, 1)}), []int64{1}, nil},
		{"rotted bytes handed to a task", slices.Concat(store(1), []cluster.Obs{next, notify(1, 7)}), []int64{1},
			[]string{RestoreIntegrity}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var f Findings
			k := NewStorage(&f, func() time.Duration { return time.Second }, 2)
			for _, o := range c.obs {
				k.Observe(o)
			}
			k.Retention(0, 0, c.held)
			k.Judge(0, 0, c.held, 0)
			if got := IDs(f.List()); !slices.Equal(got, c.want) {
				t.Errorf("fired %v, want %v: %v", got, c.want, f.List())
			}
		})
	}
}

// TestRestoreNewest feeds restore-newest synthetic boundary observations
// of job 0 pipeline 0: thread 1 stores, thread 5 runs the restore the
// harness drove (call 1), thread 9 is a concurrent completion (and the
// executor that hands a redeployed task its state), thread 6 a redeploy
// (calls 2 and 3).
func TestRestoreNewest(t *testing.T) {
	store := func(id int64) []cluster.Obs {
		return []cluster.Obs{{Kind: cluster.ObsStoreBegin, ID: id, Thread: 1}, {Kind: cluster.ObsStored, ID: id, Thread: 1}}
	}
	lost := func(id int64) []cluster.Obs {
		return []cluster.Obs{{Kind: cluster.ObsStoreBegin, ID: id, Thread: 1}, {Kind: cluster.ObsStoreFailed, ID: id, Thread: 1, Value: "landed"}}
	}
	failed := func(id int64) []cluster.Obs {
		return []cluster.Obs{{Kind: cluster.ObsStoreBegin, ID: id, Thread: 1}, {Kind: cluster.ObsStoreFailed, ID: id, Thread: 1}}
	}
	rot := func(id int64) cluster.Obs {
		return cluster.Obs{Kind: cluster.ObsFault, Fault: cluster.FaultBitRot, ID: id, Thread: 1}
	}
	begin := cluster.Obs{Kind: cluster.ObsRestoreBegin, Call: 1, Thread: 5}
	end := cluster.Obs{Kind: cluster.ObsRestoreEnd, Call: 1, Thread: 5}
	endFailed := cluster.Obs{Kind: cluster.ObsRestoreEnd, Call: 1, Thread: 5, Value: "failed"}
	hand := func(id int64) cluster.Obs { return cluster.Obs{Kind: cluster.ObsNotify, ID: id, Thread: 5} }
	elsewhere := func(id int64) cluster.Obs { return cluster.Obs{Kind: cluster.ObsNotify, ID: id, Thread: 9} }
	rdBegin := cluster.Obs{Kind: cluster.ObsRestoreBegin, Call: 2, Thread: 6, Redeploy: true}
	rdEnd := cluster.Obs{Kind: cluster.ObsRestoreEnd, Call: 2, Thread: 6, Redeploy: true}
	rdBegin2 := cluster.Obs{Kind: cluster.ObsRestoreBegin, Call: 3, Thread: 6, Redeploy: true}
	rdEnd2 := cluster.Obs{Kind: cluster.ObsRestoreEnd, Call: 3, Thread: 6, Redeploy: true}
	handRS := func(task int, id int64) cluster.Obs {
		return cluster.Obs{Kind: cluster.ObsRestoreState, ID: id, Task: task, Thread: 9}
	}
	two := slices.Concat(store(1), store(2))
	cases := []struct {
		name string
		obs  []cluster.Obs
		fire bool
	}{
		{"the newest handed", slices.Concat(two, []cluster.Obs{begin, hand(2), end}), false},
		{"an older one handed", slices.Concat(two, []cluster.Obs{begin, hand(1), end}), true},
		{"an older one handed, the newest rotted", slices.Concat(store(1), store(2), []cluster.Obs{rot(2), begin, hand(1), end}), false},
		{"the newest rotted during the restore", slices.Concat(two, []cluster.Obs{begin, rot(2), hand(1), end}), false},
		{"an older one handed, the newest deleted", slices.Concat(two, []cluster.Obs{{Kind: cluster.ObsDeleted, IDs: []int64{2}, Thread: 1},
			begin, hand(1), end}), false},
		{"a lost reply's write landed", slices.Concat(store(1), lost(2), []cluster.Obs{begin, hand(1), end}), true},
		{"a failed store never landed", slices.Concat(store(1), failed(2), []cluster.Obs{begin, hand(1), end}), false},
		{"a write landing during the restore need not be picked", slices.Concat(store(1), []cluster.Obs{begin}, store(2),
			[]cluster.Obs{hand(1), end}), false},
		{"a concurrent completion is not the restore's", slices.Concat(two, []cluster.Obs{begin, elsewhere(1), hand(2), end}), false},
		{"a notice after the restore is not the restore's", slices.Concat(two, []cluster.Obs{begin, hand(2), end, hand(1)}), false},
		{"nothing handed", slices.Concat(two, []cluster.Obs{begin, end}), true},
		{"nothing handed, nothing stored", []cluster.Obs{begin, end}, false},
		{"nothing handed by a restore that failed", slices.Concat(two, []cluster.Obs{begin, endFailed}), false},
		{"nothing handed to a finished pipeline", slices.Concat(two, []cluster.Obs{{Kind: cluster.ObsSourcesFinished, Thread: 9}, begin, end}), false},
		{"nothing handed after the job's cleanup", slices.Concat(two, []cluster.Obs{{Kind: cluster.ObsJobDeleted, Thread: 9}, begin, end}), false},
		// A redeploy (Restore(false)): no re-commit during the call; each
		// task is handed its state by RestoreState afterwards, on another
		// thread (the executor's).
		{"a redeploy hands nothing during its call", slices.Concat(two, []cluster.Obs{rdBegin, rdEnd}), false},
		{"a redeploy hands the newest", slices.Concat(two, []cluster.Obs{rdBegin, rdEnd, handRS(0, 2), handRS(1, 2)}), false},
		{"a redeploy hands a newer one", slices.Concat(two, []cluster.Obs{rdBegin, rdEnd}, store(3), []cluster.Obs{handRS(0, 3)}), false},
		{"a redeploy hands one task an older one", slices.Concat(two, []cluster.Obs{rdBegin, rdEnd, handRS(0, 2), handRS(1, 1)}), true},
		{"a redeploy hands none", slices.Concat(two, []cluster.Obs{rdBegin, rdEnd, handRS(0, 0)}), true},
		{"a redeploy hands none, nothing stored", []cluster.Obs{rdBegin, rdEnd, handRS(0, 0)}, false},
		{"a redeploy hands an older one, the newest rotted", slices.Concat(two, []cluster.Obs{rot(2), rdBegin, rdEnd, handRS(0, 1)}), false},
		{"a redeploy hands an older one, a lost reply's write landed", slices.Concat(store(1), lost(2), []cluster.Obs{rdBegin, rdEnd, handRS(0, 1)}), true},
		{"a write landing after the redeploy began need not be handed", slices.Concat(store(1), []cluster.Obs{rdBegin, rdEnd}, store(2),
			[]cluster.Obs{handRS(0, 1)}), false},
		{"the latest redeploy is the judge", slices.Concat(store(1), []cluster.Obs{rdBegin, rdEnd}, store(2),
			[]cluster.Obs{rdBegin2, rdEnd2, handRS(0, 1)}), true},
		{"a redeploy of a finished pipeline", slices.Concat(two, []cluster.Obs{{Kind: cluster.ObsSourcesFinished, Thread: 9}, rdBegin, rdEnd, handRS(0, 0)}), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var f Findings
			k := NewStorage(&f, func() time.Duration { return time.Second }, 3)
			for _, o := range c.obs {
				k.Observe(o)
			}
			if got := slices.Contains(IDs(f.List()), RestoreNewest); got != c.fire {
				t.Errorf("restore-newest fired %v, want %v: %v", got, c.fire, f.List())
			}
		})
	}
}
