package watermark

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

func mustEqual[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if !equalish(got, want) {
		t.Fatalf("%s = %+v, want %+v", what, got, want)
	}
}

func equalish(a, b any) bool {
	switch a := a.(type) {
	case []Watermark:
		return slices.Equal(a, b.([]Watermark))
	case []Stall:
		return slices.Equal(a, b.([]Stall))
	}
	return a == b
}

func TestHappyPath(t *testing.T) {
	cp, is, _ := setup(p0)
	is.Issue(p0, 99).Done()
	is.Issue(p0, 199).Done()
	mustEqual(t, "drain", cp.Drain(), DrainStats{Applied: 2})
	mustEqual(t, "marks", take(t, cp), []Watermark{wm(p0, 200)})
	mustEqual(t, "pending", cp.Pending(p0), 0)
}

func TestTakeWatermarksIsEmptyUntilNewProgress(t *testing.T) {
	cp, is, _ := setup(p0)
	is.Issue(p0, 9).Done()
	cp.Drain()
	mustEqual(t, "first", take(t, cp), []Watermark{wm(p0, 10)})
	mustEqual(t, "again", take(t, cp), []Watermark(nil))
	cp.Drain()
	mustEqual(t, "after empty drain", take(t, cp), []Watermark(nil))
	is.Issue(p0, 19).Done()
	cp.Drain()
	mustEqual(t, "progress", take(t, cp), []Watermark{wm(p0, 20)})
}

func TestOutOfOrderAcksAcrossPartitions(t *testing.T) {
	cp, is, _ := setup(p0, p1)
	a0, a1, b0 := is.Issue(p0, 9), is.Issue(p0, 19), is.Issue(p1, 99)
	a1.Done()
	b0.Done()
	cp.Drain()
	mustEqual(t, "marks", take(t, cp), []Watermark{wm(p1, 100)})
	mustEqual(t, "pending p0", cp.Pending(p0), 2)
	a0.Done()
	cp.Drain()
	mustEqual(t, "marks", take(t, cp), []Watermark{wm(p0, 20)})
}

func TestFailedBatchStallsPartitionAndReports(t *testing.T) {
	cp, is, e := setup(p0, p1)
	is.Issue(p0, 9).Done()
	bad := is.Issue(p0, 19)
	bad.Add(1)
	bad.Fail()
	bad.Done() // worst status wins
	is.Issue(p0, 29).Done()
	e.advance(time.Second)
	cp.Drain()
	stalledAt := e.now
	mustEqual(t, "marks", take(t, cp), []Watermark{wm(p0, 10)})
	want := []Stall{{Partition: p0, Batch: BatchID{p0, 1, 1}, LastOffset: 19, Failed: true, Since: stalledAt}}
	mustEqual(t, "stalled", cp.StalledPartitions(), want)

	// Nothing past the failure ever commits, and the stall keeps its start.
	e.advance(time.Minute)
	is.Issue(p0, 39).Done()
	cp.Drain()
	mustEqual(t, "marks after stall", take(t, cp), []Watermark(nil))
	mustEqual(t, "stalled later", cp.StalledPartitions(), want)
	mustEqual(t, "pending", cp.Pending(p0), 3)

	// A new epoch clears the stall.
	cp.BeginEpoch([]Partition{p0}, 2)
	mustEqual(t, "stalled in new epoch", cp.StalledPartitions(), []Stall(nil))
}

func TestFailureBehindPendingStallsOnlyWhenReached(t *testing.T) {
	cp, is, e := setup(p0)
	first := is.Issue(p0, 9)
	is.Issue(p0, 19).Fail()
	cp.Drain()
	take(t, cp)
	got := cp.StalledPartitions()
	if len(got) != 1 || got[0].Failed || got[0].Batch.Seq != 0 {
		t.Fatalf("before the head resolves: %+v, want the unresolved head 0", got)
	}
	e.advance(time.Second)
	first.Done()
	cp.Drain()
	mustEqual(t, "marks", take(t, cp), []Watermark{wm(p0, 10)})
	got = cp.StalledPartitions()
	if len(got) != 1 || !got[0].Failed || got[0].Batch.Seq != 1 || !got[0].Since.Equal(e.now) {
		t.Fatalf("after: %+v, want failed batch 1 since %v", got, e.now)
	}
}

func TestLeakedAckShowsAsAgeingUnresolvedHead(t *testing.T) {
	cp, is, e := setup(p0, p1)
	is.Issue(p0, 9) // never resolved
	is.Issue(p0, 19).Done()
	is.Issue(p1, 9).Done()
	cp.Drain()
	registered := e.now
	e.advance(time.Hour)
	mustEqual(t, "marks", take(t, cp), []Watermark{wm(p1, 10)})
	want := []Stall{{Partition: p0, Batch: BatchID{p0, 1, 0}, LastOffset: 9, Since: registered}}
	mustEqual(t, "stalled", cp.StalledPartitions(), want)
}

func TestDoubleResolutionIsCountedNotApplied(t *testing.T) {
	cp, is, _ := setup(p0)
	a := is.Issue(p0, 9)
	b := is.Issue(p0, 19)
	a.Done()
	a.Done()
	a.Fail()
	a.Add(2)
	cp.Drain()
	mustEqual(t, "marks", take(t, cp), []Watermark{wm(p0, 10)})
	st := cp.Stats()
	mustEqual(t, "double", st.DoubleResolved, 2)
	mustEqual(t, "add after", st.AddAfterResolve, 1)
	mustEqual(t, "applied", st.Applied, 1)
	b.Done()
	mustEqual(t, "drain", cp.Drain(), DrainStats{Applied: 1})
}

func TestSharedAckResolvesOnLastHolder(t *testing.T) {
	cp, is, _ := setup(p0)
	a := is.Issue(p0, 9)
	a.Add(2)
	a.Done()
	a.Done()
	mustEqual(t, "before last", cp.Drain(), DrainStats{})
	a.Done()
	mustEqual(t, "after last", cp.Drain(), DrainStats{Applied: 1})
	mustEqual(t, "marks", take(t, cp), []Watermark{wm(p0, 10)})
}

func TestStaleEpochAcksAreDiscardedAndSequencesRestart(t *testing.T) {
	cp, is, _ := setup(p0)
	old := is.Issue(p0, 9)
	cp.BeginEpoch([]Partition{p0}, 2)
	old.Done()
	// Both the registration and the resolution are stale.
	mustEqual(t, "drain", cp.Drain(), DrainStats{Stale: 2})
	mustEqual(t, "marks", take(t, cp), []Watermark(nil))

	a := is.Issue(p0, 49)
	mustEqual(t, "batch", a.Batch(), BatchID{p0, 2, 0})
	a.Done()
	mustEqual(t, "drain", cp.Drain(), DrainStats{Applied: 1})
	epoch, marks := cp.TakeWatermarks()
	mustEqual(t, "epoch", epoch, Epoch(2))
	mustEqual(t, "marks", marks, []Watermark{wm(p0, 50)})
}

func TestRevokeMidFlightDiscardsLaterAcks(t *testing.T) {
	cp, is, _ := setup(p0, p1)
	inFlight := is.Issue(p1, 9)
	cp.Drain() // registration lands first
	cp.Revoke([]Partition{p1})
	inFlight.Done()
	is.Issue(p1, 19).Done() // the lane is still issuing
	mustEqual(t, "drain", cp.Drain(), DrainStats{Stale: 3})
	mustEqual(t, "marks", take(t, cp), []Watermark(nil))
	mustEqual(t, "pending", cp.Pending(p1), 0)
	mustEqual(t, "stalled", cp.StalledPartitions(), []Stall(nil))
}

func TestExtendEpochAddsWithoutDisturbingInflight(t *testing.T) {
	cp, is, _ := setup(p0)
	a := is.Issue(p0, 9)
	cp.Drain()
	if err := cp.ExtendEpoch([]Partition{p1}); err != nil {
		t.Fatal(err)
	}
	a.Done()
	is.Issue(p1, 99).Done()
	mustEqual(t, "drain", cp.Drain(), DrainStats{Applied: 2})
	mustEqual(t, "marks", take(t, cp), []Watermark{wm(p0, 10), wm(p1, 100)})
}

func TestExtendEpochRefusesReadmission(t *testing.T) {
	cp, _, _ := setup(p0, p1)
	cp.Revoke([]Partition{p1})
	for _, ps := range [][]Partition{{p0}, {p2, p1}} {
		if err := cp.ExtendEpoch(ps); !errors.Is(err, ErrReadmitted) {
			t.Fatalf("ExtendEpoch(%v) = %v, want ErrReadmitted", ps, err)
		}
	}
	// The refused call changed nothing: p2 is still free to add.
	if cp.Pending(p2) != 0 || cp.ExtendEpoch([]Partition{p2}) != nil {
		t.Fatal("refused extension admitted p2")
	}
	if err := New(newFakeEnv(), Options{}).ExtendEpoch([]Partition{p0}); !errors.Is(err, ErrNoEpoch) {
		t.Fatalf("ExtendEpoch before BeginEpoch = %v, want ErrNoEpoch", err)
	}
}

func TestRegistrationAndAckInSameDrain(t *testing.T) {
	cp, is, _ := setup(p0)
	is.Issue(p0, 9).Done()
	mustEqual(t, "drain", cp.Drain(), DrainStats{Applied: 1})
	mustEqual(t, "marks", take(t, cp), []Watermark{wm(p0, 10)})
}

// A batch issued and resolved after Drain took the registrations but before
// it took the resolutions is found by the second pass.
func TestRegistrationRacingDrainIsFoundBySecondPass(t *testing.T) {
	e := &hookEnv{fakeEnv: *newFakeEnv()}
	cp := New(e, Options{})
	cp.BeginEpoch([]Partition{p0}, 1)
	is := cp.NewIssuer()
	locks := 0
	var hook func()
	hook = func() {
		locks++
		if locks == 2 { // Drain is about to take the resolutions
			is.Issue(p0, 9).Done()
			return
		}
		e.onLock = hook
	}
	e.onLock = hook
	mustEqual(t, "drain", cp.Drain(), DrainStats{Applied: 1})
	mustEqual(t, "marks", take(t, cp), []Watermark{wm(p0, 10)})
}

func TestResolutionWithoutRegistrationIsUnknown(t *testing.T) {
	cp, _, _ := setup(p0)
	cp.in.pushResolution(resolution{id: BatchID{p0, 1, 0}})
	mustEqual(t, "drain", cp.Drain(), DrainStats{Unknown: 1})
}

func TestCrossThreadIssueAndResolve(t *testing.T) {
	e := wallEnv{}
	cp := New(e, Options{})
	cp.BeginEpoch([]Partition{p0, p1}, 1)
	const n = 200
	threads := newJoin(e)
	for _, p := range []Partition{p0, p1} {
		is, h := cp.NewIssuer(), newHandoff(e)
		threads.goRun("issuer", func() {
			for i := int64(0); i < n; i++ {
				h.put(is.Issue(p, (i+1)*10-1))
			}
			h.close()
		})
		threads.goRun("sink", func() {
			for a, ok := h.get(); ok; a, ok = h.get() {
				a.Add(1)
				a.Done()
				a.Done()
			}
		})
	}
	var got []Watermark
	collect := func() {
		cp.Drain()
		_, marks := cp.TakeWatermarks()
		got = append(got, marks...)
	}
	for !threads.finished() {
		collect()
		e.Yield()
	}
	collect()
	mustEqual(t, "stats", cp.Stats().DrainStats, DrainStats{Applied: 2 * n})
	last := map[Partition]int64{}
	for _, w := range got {
		if w.Offset <= last[w.Partition] {
			t.Fatalf("watermark of %d went from %d to %d", w.Partition, last[w.Partition], w.Offset)
		}
		last[w.Partition] = w.Offset
	}
	mustEqual(t, "final p0", last[p0], int64(n*10))
	mustEqual(t, "final p1", last[p1], int64(n*10))
	mustEqual(t, "max pending", cp.MaxPending(), 0)
}

func TestPendingCountsFeedBackpressure(t *testing.T) {
	cp, is, _ := setup(p0, p1)
	var held []*Ack
	for i := range int64(5) {
		held = append(held, is.Issue(p0, i))
	}
	is.Issue(p1, 9).Done()
	cp.Drain()
	mustEqual(t, "pending p0", cp.Pending(p0), 5)
	mustEqual(t, "pending p1", cp.Pending(p1), 1)
	mustEqual(t, "max", cp.MaxPending(), 5)
	for _, a := range held {
		a.Done()
	}
	cp.Drain()
	take(t, cp)
	mustEqual(t, "max after take", cp.MaxPending(), 0)
	mustEqual(t, "untracked", cp.Pending(p2), 0)
}

func TestPendingCeilingGatesPollsUntilRetired(t *testing.T) {
	cp := New(newFakeEnv(), Options{PendingCeiling: 2})
	cp.BeginEpoch([]Partition{p0}, 1)
	is := cp.NewIssuer()
	a := is.Issue(p0, 9)
	if is.AtCeiling(p0) {
		t.Fatal("gated at 1 of 2")
	}
	is.Issue(p0, 19).Done()
	if !is.AtCeiling(p0) {
		t.Fatal("not gated at 2 of 2")
	}
	a.Done()
	cp.Drain()
	if !is.AtCeiling(p0) {
		t.Fatal("reopened before TakeWatermarks retired the batches")
	}
	take(t, cp)
	if is.AtCeiling(p0) {
		t.Fatal("still gated after retirement")
	}
	// A stall freezes retirement; a new epoch brings a fresh gate.
	is.Issue(p0, 29).Fail()
	is.Issue(p0, 39).Done()
	cp.Drain()
	take(t, cp)
	if !is.AtCeiling(p0) {
		t.Fatal("stalled partition not gated")
	}
	cp.BeginEpoch([]Partition{p0}, 2)
	if is.AtCeiling(p0) || is.AtCeiling(p1) {
		t.Fatal("gated in a fresh epoch or for an untracked partition")
	}
}

func TestQuarantineAdvancesPastFailedBatches(t *testing.T) {
	var dead []Quarantined
	cp := New(newFakeEnv(), Options{DeadLetter: func(q Quarantined) { dead = append(dead, q) }})
	cp.BeginEpoch([]Partition{p0, p1}, 3)
	is := cp.NewIssuer()
	is.Issue(p1, 5).Fail()
	is.Issue(p0, 9).Done()
	is.Issue(p0, 19).Fail()
	pending := is.Issue(p0, 29)
	is.Issue(p0, 39).Fail()
	cp.Drain()
	mustEqual(t, "marks", take(t, cp), []Watermark{wm(p0, 20), wm(p1, 6)})
	mustEqual(t, "stalled", cp.StalledPartitions(), []Stall{
		{Partition: p0, Batch: BatchID{p0, 3, 2}, LastOffset: 29, Since: t0},
	})
	pending.Done()
	cp.Drain()
	mustEqual(t, "marks", take(t, cp), []Watermark{wm(p0, 40)})
	want := []Quarantined{{BatchID{p0, 3, 1}, 19}, {BatchID{p1, 3, 0}, 5}, {BatchID{p0, 3, 3}, 39}}
	if !slices.Equal(dead, want) {
		t.Fatalf("dead letters %+v, want %+v", dead, want)
	}
	mustEqual(t, "quarantined", cp.Stats().Quarantined, 3)
	mustEqual(t, "stalled after", cp.StalledPartitions(), []Stall(nil))
}

func TestEpochRegressionPanics(t *testing.T) {
	for _, next := range []Epoch{5, 4} {
		cp := New(newFakeEnv(), Options{})
		cp.BeginEpoch([]Partition{p0}, 5)
		func() {
			defer func() {
				msg, _ := recover().(string)
				if !strings.Contains(msg, "strictly increasing") {
					t.Fatalf("BeginEpoch(5 -> %d) recovered %q, want a strictly-increasing panic", next, msg)
				}
			}()
			cp.BeginEpoch([]Partition{p0}, next)
		}()
	}
}

func TestRegistrationGapPanics(t *testing.T) {
	defer func() {
		if msg, _ := recover().(string); !strings.Contains(msg, "registration gap") {
			t.Fatalf("recovered %q, want a registration-gap panic", msg)
		}
	}()
	var tr tracker
	tr.register(0, 9, t0)
	tr.register(2, 29, t0)
}
