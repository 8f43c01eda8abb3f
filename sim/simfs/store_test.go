package simfs_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/core/env"
	"github.com/ckptsim/ckptsim/core/savepoint"
	"github.com/ckptsim/ckptsim/sim/simfs"
)

// These tests drive the real savepoint store over the simulated FS.

const (
	ns  = "/ns"
	job = int64(7)
)

var pipelines = []int32{1, 2, 3}

// clock is env.Wall with a fixed Now, so trigger timestamps (and so the
// bytes written) do not depend on the wall clock.
type clock struct {
	env.Wall
	ms int64
}

func (c *clock) Now() time.Time { return time.UnixMilli(c.ms) }

func state(p int32, id int64, typ savepoint.CheckpointType) *savepoint.CompletedCheckpoint {
	return &savepoint.CompletedCheckpoint{JobID: job, PipelineID: p, CheckpointID: id, Type: typ,
		TriggerTimestampMs: id, CompletedTimestampMs: id + 1,
		ActionStates: []savepoint.ActionState{{Key: "source", Parallelism: 1, Coordinator: []byte{byte(p)},
			Subtasks: []savepoint.SubtaskState{{Index: 0, State: [][]byte{fmt.Appendf(nil, "offset-%d-%d", p, id)}}}}},
	}
}

// save runs a whole save of savepoint id and stops at the first error.
func save(s *savepoint.Store, id int64) error {
	w, err := s.Begin(job, id, pipelines)
	if err != nil {
		return err
	}
	for _, p := range pipelines {
		if err := w.WritePipeline(state(p, id*10+int64(p), savepoint.TypeSavepoint)); err != nil {
			return err
		}
	}
	return w.Commit()
}

func listed(t *testing.T, s *savepoint.Store) []int64 {
	t.Helper()
	ms, err := s.List(job)
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	var ids []int64
	for _, m := range ms {
		ids = append(ids, m.SavepointID)
	}
	slices.Sort(ids)
	return ids
}

// world is an FS with one committed savepoint (id 1) and a store over it.
func world(t *testing.T, rng *rand.Rand) (*simfs.FS, *savepoint.Store) {
	t.Helper()
	f := simfs.New(rng)
	s := savepoint.NewStore(f, ns, &clock{ms: 1_000}, savepoint.Options{})
	if err := save(s, 1); err != nil {
		t.Fatal(err)
	}
	return f, s
}

// stepsOfSave counts the FS steps of one save of savepoint 2.
func stepsOfSave(t *testing.T) int {
	f, s := world(t, nil)
	before := f.Steps()
	if err := save(s, 2); err != nil {
		t.Fatal(err)
	}
	return f.Steps() - before
}

// TestCrashAtEveryStepOfASave crashes a three-pipeline save at every step,
// under the lose-everything model and under seeded adversarial models.
// After restart List shows exactly {1} or {1, 2}; a listed bundle is fully
// readable; and a later save succeeds.
func TestCrashAtEveryStepOfASave(t *testing.T) {
	n := stepsOfSave(t)
	if n < 15 {
		t.Fatalf("a three-pipeline save took only %d steps", n)
	}
	outcomes := map[string]int{}
	seeds := []int64{-1} // -1: the lose-everything model
	for seed := range int64(12) {
		seeds = append(seeds, seed)
	}
	for _, seed := range seeds {
		for k := 0; k <= n; k++ {
			outcomes[crashOnce(t, seed, k, n)]++
		}
	}
	t.Logf("%d steps per save; outcomes over %d seeds: %v", n, len(seeds), outcomes)
	if outcomes["[1]"] == 0 || outcomes["[1 2]"] == 0 {
		t.Errorf("expected both outcomes across crash points, got %v", outcomes)
	}
}

func crashOnce(t *testing.T, seed int64, k, n int) string {
	var rng *rand.Rand
	if seed >= 0 {
		rng = rand.New(rand.NewPCG(uint64(seed), uint64(k)))
	}
	f, s := world(t, rng)
	f.CrashAt(k)
	err := save(s, 2)
	if err != nil && !errors.Is(err, simfs.ErrCrashed) {
		t.Fatalf("seed %d step %d/%d: save = %v, want success or a crash", seed, k, n, err)
	}
	if k == n && err != nil {
		t.Fatalf("seed %d: save without a crash: %v", seed, err)
	}
	f.SetCrashHook(nil)
	f.Crash() // if the save returned, a crash right after it
	f.Restart()
	checkNoPartialBundle(t, f, s, fmt.Sprintf("seed %d step %d", seed, k))
	got := listed(t, s)
	after := fmt.Sprint(got)
	switch {
	case after == "[1]" && err == nil:
		t.Fatalf("seed %d step %d: a save that returned success did not survive a crash", seed, k)
	case after == "[1]":
		if err := save(s, 2); err != nil { // retry the same id
			t.Fatalf("seed %d step %d: retrying savepoint 2: %v", seed, k, err)
		}
	case after == "[1 2]":
		if err := save(s, 3); err != nil {
			t.Fatalf("seed %d step %d: next save: %v", seed, k, err)
		}
	default:
		t.Fatalf("seed %d step %d: after crash List = %v; want [1] or [1 2]", seed, k, got)
	}
	if final := listed(t, s); !slices.Contains(final, 2) {
		t.Fatalf("seed %d step %d: later save not listed: %v", seed, k, final)
	}
	return after
}

// checkNoPartialBundle fails if any bundle directory holds a commit marker
// but cannot be read in full: List would hide it, but it is a torn commit.
func checkNoPartialBundle(t *testing.T, f *simfs.FS, s *savepoint.Store, where string) {
	t.Helper()
	dirs, _ := f.ReadDir(ns + "/savepoint/7")
	for _, d := range dirs {
		var id int64
		if _, err := fmt.Sscan(d.Name(), &id); err != nil || d.Name() == ".staging" {
			continue
		}
		if _, err := f.Stat(ns + "/savepoint/7/" + d.Name() + "/" + savepoint.MetadataFile); err != nil {
			continue
		}
		if _, err := s.Read(job, id); err != nil {
			t.Fatalf("%s: partial bundle: %v", where, err)
		}
	}
}

// TestCrashAtEveryStepOfADelete: a delete interrupted anywhere leaves the
// bundle either whole or gone, and a retried delete finishes.
func TestCrashAtEveryStepOfADelete(t *testing.T) {
	for seed := range uint64(8) {
		for k := 0; ; k++ {
			f, s := world(t, rand.New(rand.NewPCG(seed, uint64(k))))
			if err := save(s, 2); err != nil {
				t.Fatal(err)
			}
			f.CrashAt(k)
			err := s.Delete(job, 1)
			f.SetCrashHook(nil)
			f.Crash()
			f.Restart()
			if got := fmt.Sprint(listed(t, s)); got != "[1 2]" && got != "[2]" {
				t.Fatalf("seed %d step %d: List = %s", seed, k, got)
			}
			if err := s.Delete(job, 1); err != nil {
				t.Fatalf("seed %d step %d: retried delete: %v", seed, k, err)
			}
			if got := fmt.Sprint(listed(t, s)); got != "[2]" {
				t.Fatalf("seed %d step %d: after retried delete List = %s", seed, k, got)
			}
			if err == nil {
				break // k is past the last step of Delete
			}
		}
	}
}

// TestFailedCommitThenAbortLeavesNoTrace: an I/O error in the middle of a
// commit leaves the bundle invisible; Abort cleans up; a retry succeeds.
func TestFailedCommitThenAbortLeavesNoTrace(t *testing.T) {
	f, s := world(t, nil)
	w, err := s.Begin(job, 2, pipelines)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pipelines {
		if err := w.WritePipeline(state(p, 20+int64(p), savepoint.TypeSavepoint)); err != nil {
			t.Fatal(err)
		}
	}
	boom := errors.New("injected EIO")
	f.SetFailHook(func(op, path string) error {
		if op == "write" && path == ns+"/savepoint/7/2/_metadata.ser.tmp" {
			return boom
		}
		return nil
	})
	if err := w.Commit(); !errors.Is(err, boom) {
		t.Fatalf("Commit = %v, want %v", err, boom)
	}
	f.SetFailHook(nil)
	if err := w.Commit(); !errors.Is(err, boom) {
		t.Errorf("retried Commit = %v, want the first failure again", err)
	}
	if got := fmt.Sprint(listed(t, s)); got != "[1]" {
		t.Errorf("after failed commit List = %s", got)
	}
	w.Abort()
	for _, dir := range []string{ns + "/savepoint/7/2", ns + "/savepoint/7/.staging"} {
		entries, _ := f.ReadDir(dir)
		if len(entries) != 0 {
			t.Errorf("Abort left %s with %d entries", dir, len(entries))
		}
	}
	if err := save(s, 2); err != nil {
		t.Fatalf("retry: %v", err)
	}
}

// TestConcurrentCoordinatorsShareAWriter: the pipelines of a job write
// through one Writer at once; duplicates race too. Exactly one write per
// pipeline wins, and the refused duplicates fail the commit.
func TestConcurrentCoordinatorsShareAWriter(t *testing.T) {
	for _, dup := range []bool{false, true} {
		f := simfs.New(nil)
		s := savepoint.NewStore(f, ns, env.Wall{}, savepoint.Options{})
		ps := []int32{1, 2, 3, 4, 5, 6, 7, 8}
		w, err := s.Begin(job, 9, ps)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]error, 2*len(ps))
		for i := range errs {
			if i >= len(ps) && !dup {
				break
			}
			wg.Go(func() { errs[i] = w.WritePipeline(state(ps[i%len(ps)], 90, savepoint.TypeSavepoint)) })
		}
		wg.Wait()
		refused := 0
		for _, err := range errs {
			if errors.Is(err, savepoint.ErrDuplicate) {
				refused++
			} else if err != nil {
				t.Fatal(err)
			}
		}
		err = w.Commit()
		switch {
		case !dup && (refused != 0 || err != nil):
			t.Errorf("no duplicates: %d refused, Commit = %v", refused, err)
		case dup && (refused != len(ps) || !errors.Is(err, savepoint.ErrDuplicate)):
			t.Errorf("duplicates: %d refused (want %d), Commit = %v", refused, len(ps), err)
		}
	}
}

// TestRetentionAndTerminalCleanupNeverDeleteSavepoints runs a thousand
// seeded rounds of checkpoint stores (rotating at max-retained 2), terminal
// cleanups, crashes and occasional savepoints, checking after every round
// that every committed savepoint is still listed and readable and that
// Restore prefers the newest one.
func TestRetentionAndTerminalCleanupNeverDeleteSavepoints(t *testing.T) {
	const seed = 20260101
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	f := simfs.New(rand.New(rand.NewPCG(seed, 1)))
	clk := &clock{ms: 1_000}
	s := savepoint.NewStore(f, ns, clk, savepoint.Options{})
	cps := savepoint.NewCheckpoints(f, ns, 2, nil)
	var committed []int64
	nextID := int64(1)
	for round := range 1000 {
		clk.ms++
		switch r := rng.IntN(100); {
		case r < 3:
			if err := save(s, nextID); err != nil {
				t.Fatalf("round %d: save: %v", round, err)
			}
			committed = append(committed, nextID)
			nextID++
		case r < 10:
			if err := cps.DeleteJob(job); err != nil {
				t.Fatalf("round %d: terminal cleanup: %v", round, err)
			}
		case r < 15:
			f.CrashAt(rng.IntN(6))
			_ = cps.Store(state(pipelines[rng.IntN(3)], int64(round), savepoint.TypeCheckpoint))
			f.SetCrashHook(nil)
			f.Crash()
			f.Restart()
			for _, p := range pipelines { // recovery: finish an interrupted rotation
				if err := cps.Rotate(job, p); err != nil {
					t.Fatalf("round %d: rotate after restart: %v", round, err)
				}
			}
		default:
			if err := cps.Store(state(pipelines[rng.IntN(3)], int64(round), savepoint.TypeCheckpoint)); err != nil {
				t.Fatalf("round %d: store checkpoint: %v", round, err)
			}
		}
		checkSavepoints(t, round, s, cps, committed)
	}
	if len(committed) < 10 {
		t.Errorf("only %d savepoints in 1000 rounds", len(committed))
	}
}

func checkSavepoints(t *testing.T, round int, s *savepoint.Store, cps *savepoint.Checkpoints, committed []int64) {
	t.Helper()
	if got := listed(t, s); !slices.Equal(got, committed) {
		t.Fatalf("round %d: savepoints %v, want %v", round, got, committed)
	}
	for _, p := range pipelines {
		if ids, _ := cps.List(job, p); len(ids) > 2 {
			t.Fatalf("round %d: pipeline %d keeps %d checkpoints past max-retained 2", round, p, len(ids))
		}
	}
	c, err := savepoint.Restore(s, cps, job, 2)
	if len(committed) > 0 {
		newest := committed[len(committed)-1]
		if err != nil || c.Type != savepoint.TypeSavepoint || c.CheckpointID != newest*10+2 {
			t.Fatalf("round %d: Restore = %+v, %v; want savepoint %d", round, c, err, newest)
		}
	}
}

// TestRottedSavepointIsRefused flips one bit of a committed bundle's
// payload on the medium (bit rot after the commit): reading it back must
// fail its SHA-256 check, and the listing (what a restore picks the newest
// savepoint from) must skip it, so a restore falls back to the older intact
// bundle and never loads the rotted bytes.
func TestRottedSavepointIsRefused(t *testing.T) {
	f := simfs.New(nil)
	s := savepoint.NewStore(f, ns, &clock{ms: 1}, savepoint.Options{})
	for _, id := range []int64{1, 2} {
		if err := save(s, id); err != nil {
			t.Fatal(err)
		}
	}
	if got := listed(t, s); !slices.Equal(got, []int64{1, 2}) {
		t.Fatalf("listed %v before the rot, want [1 2]", got)
	}
	payload := fmt.Sprintf("%s/%s/%d/%d/%s", ns, savepoint.SavepointDir, job, 2, savepoint.PayloadFile(1, 21))
	if err := f.Flip(payload, 5, 0x04); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Read(job, 2); !errors.Is(err, savepoint.ErrChecksum) {
		t.Fatalf("reading the rotted bundle: %v, want ErrChecksum", err)
	}
	if got := listed(t, s); !slices.Equal(got, []int64{1}) {
		t.Fatalf("listed %v after the rot, want [1] (the rotted bundle skipped)", got)
	}
}

// TestCheckpointDeleteSurvivesACrash: a checkpoint deleted through
// savepoint.Checkpoints stays deleted when the file system crashes after
// the delete returned. Found by the file-storage scenario: Delete removed
// the file without syncing its directory, so a storage crash brought back
// every checkpoint retention had deleted since the pipeline's last store
// (storage-retention: orphans in every pipeline at once).
func TestCheckpointDeleteSurvivesACrash(t *testing.T) {
	f := simfs.New(nil) // a crash loses every unsynced change
	c := savepoint.NewCheckpoints(f, ns, 0, nil)
	for id := int64(1); id <= 3; id++ {
		if err := c.Store(state(1, id, savepoint.TypeCheckpoint)); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Delete(job, 1, 1); err != nil {
		t.Fatal(err)
	}
	f.Crash()
	f.Restart()
	ids, err := c.List(job, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids, []int64{3, 2}) {
		t.Errorf("after a delete of 1 and a crash, pipeline 1 holds %v, want [3 2]", ids)
	}
}

// TestCheckpointDeleteSkipSyncComesBack: with SkipDeleteSync (variant
// checkpoint-delete=no-sync, upstream's unsynced HdfsStorage delete, F036)
// a checkpoint deleted before a crash is back after it.
func TestCheckpointDeleteSkipSyncComesBack(t *testing.T) {
	f := simfs.New(nil) // a crash loses every unsynced change
	c := savepoint.NewCheckpoints(f, ns, 0, nil).SkipDeleteSync()
	for id := int64(1); id <= 3; id++ {
		if err := c.Store(state(1, id, savepoint.TypeCheckpoint)); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Delete(job, 1, 1); err != nil {
		t.Fatal(err)
	}
	if ids, err := c.List(job, 1); err != nil || !slices.Equal(ids, []int64{3, 2}) {
		t.Fatalf("before the crash pipeline 1 holds %v (%v), want [3 2]", ids, err)
	}
	f.Crash()
	f.Restart()
	ids, err := c.List(job, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids, []int64{3, 2, 1}) {
		t.Errorf("after an unsynced delete of 1 and a crash, pipeline 1 holds %v, want [3 2 1] (the delete lost)", ids)
	}
}
