package savepoint

import (
	"errors"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const job = int64(1001)

func newTestStore(t *testing.T) (*Store, string, *logRecorder) {
	t.Helper()
	ns := filepath.ToSlash(t.TempDir())
	log := &logRecorder{}
	return NewStore(OSFS{}, ns, testEnv, Options{Logf: log.logf, Producer: "test"}), ns, log
}

// save writes a savepoint of pipelines 1..n and commits it.
func save(t *testing.T, s *Store, id int64, pipelines ...int32) {
	t.Helper()
	w, err := s.Begin(job, id, pipelines)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pipelines {
		if err := w.WritePipeline(sampleCheckpoint(job, p, id*10+int64(p), TypeSavepoint)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
}

func ids(ms []*Manifest) []int64 {
	var out []int64
	for _, m := range ms {
		out = append(out, m.SavepointID)
	}
	return out
}

func TestSaveListRead(t *testing.T) {
	s, ns, _ := newTestStore(t)
	save(t, s, 100, 1, 2, 3)
	list, err := s.List(job)
	if err != nil || !slices.Equal(ids(list), []int64{100}) {
		t.Fatalf("List = %v, %v", ids(list), err)
	}
	b, err := s.Read(job, 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []int32{1, 2, 3} {
		if diff := cmp.Diff(sampleCheckpoint(job, p, 1000+int64(p), TypeSavepoint), b.Pipeline(p), stateOpts); diff != "" {
			t.Errorf("pipeline %d (-want +got):\n%s", p, diff)
		}
	}
	if b.Producer != "test" || b.FormatVersion != FormatVersion || b.Pipeline(4) != nil {
		t.Errorf("manifest %+v", b.Manifest)
	}
	staging, _ := os.ReadDir(filepath.Join(ns, SavepointDir, "1001", StagingDir))
	if len(staging) != 0 {
		t.Errorf("commit left staging entries %v", staging)
	}
}

func TestListIsNewestFirst(t *testing.T) {
	clock := &clockEnv{now: time.UnixMilli(1_000)}
	s := NewStore(OSFS{}, filepath.ToSlash(t.TempDir()), clock, Options{})
	// Trigger time orders first, then the id breaks ties.
	for _, step := range []struct{ id, atMs int64 }{{300, 1_000}, {100, 3_000}, {200, 2_000}, {250, 2_000}} {
		clock.now = time.UnixMilli(step.atMs)
		save(t, s, step.id, 1)
	}
	list, err := s.List(job)
	if got := ids(list); err != nil || !slices.Equal(got, []int64{100, 250, 200, 300}) {
		t.Errorf("List = %v, %v; want [100 250 200 300]", got, err)
	}
	if list[0].TriggerTimestampMs != 3_000 {
		t.Errorf("trigger timestamp = %d, want the env's Now", list[0].TriggerTimestampMs)
	}
	if other, err := s.List(job + 1); err != nil || len(other) != 0 {
		t.Errorf("List of a job without savepoints = %v, %v", other, err)
	}
}

func TestCommitRefusesIncompleteBundles(t *testing.T) {
	s, _, _ := newTestStore(t)
	sp := func(p int32) *CompletedCheckpoint { return sampleCheckpoint(job, p, 5, TypeSavepoint) }
	cases := []struct {
		name   string
		writes []*CompletedCheckpoint
		write  error // from the offending WritePipeline
		commit error
	}{
		{"missing pipeline", []*CompletedCheckpoint{sp(1), sp(2)}, nil, ErrIncomplete},
		{"unexpected pipeline", []*CompletedCheckpoint{sp(1), sp(2), sp(3), sp(4)}, ErrUnexpected, ErrUnexpected},
		{"duplicate pipeline", []*CompletedCheckpoint{sp(1), sp(2), sp(2), sp(3)}, ErrDuplicate, ErrDuplicate},
		{"checkpoint type", []*CompletedCheckpoint{sp(1), sp(2), sampleCheckpoint(job, 3, 5, TypeCheckpoint)}, ErrWrongType, ErrWrongType},
		{"other job", []*CompletedCheckpoint{sp(1), sp(2), sampleCheckpoint(job+1, 3, 5, TypeSavepoint)}, ErrUnexpected, ErrUnexpected},
	}
	for i, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			id := int64(10 + i)
			w, err := s.Begin(job, id, []int32{1, 2, 3})
			if err != nil {
				t.Fatal(err)
			}
			var writeErr error
			for _, c := range tt.writes {
				if err := w.WritePipeline(c); err != nil {
					writeErr = err
				}
			}
			if !errors.Is(writeErr, tt.write) || (tt.write == nil) != (writeErr == nil) {
				t.Errorf("write error = %v, want %v", writeErr, tt.write)
			}
			if err := w.Commit(); !errors.Is(err, tt.commit) {
				t.Errorf("Commit = %v, want %v", err, tt.commit)
			}
			if list, _ := s.List(job); slices.Contains(ids(list), id) {
				t.Errorf("refused savepoint %d is listed", id)
			}
			w.Abort()
		})
	}
}

func TestBeginValidates(t *testing.T) {
	s, _, _ := newTestStore(t)
	for _, bad := range []struct {
		id       int64
		expected []int32
	}{{0, []int32{1}}, {5, nil}, {5, []int32{1, 1}}} {
		if _, err := s.Begin(job, bad.id, bad.expected); err == nil {
			t.Errorf("Begin(%d, %v) succeeded", bad.id, bad.expected)
		}
	}
}

func TestWriterLifecycle(t *testing.T) {
	s, ns, _ := newTestStore(t)
	save(t, s, 7, 1)
	w, _ := s.Begin(job, 7, []int32{1})
	_ = w.WritePipeline(sampleCheckpoint(job, 1, 1, TypeSavepoint))
	if err := w.Commit(); !errors.Is(err, ErrExists) {
		t.Errorf("second commit of id 7 = %v, want ErrExists", err)
	}
	w.Abort()

	w, _ = s.Begin(job, 8, []int32{1})
	_ = w.WritePipeline(sampleCheckpoint(job, 1, 1, TypeSavepoint))
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Errorf("repeated Commit = %v, want nil", err)
	}
	w.Abort() // no-op after commit
	if _, err := s.Read(job, 8); err != nil {
		t.Errorf("Abort after Commit damaged the bundle: %v", err)
	}

	w, _ = s.Begin(job, 9, []int32{1})
	_ = w.WritePipeline(sampleCheckpoint(job, 1, 1, TypeSavepoint))
	w.Abort()
	if err := w.Commit(); !errors.Is(err, ErrClosed) {
		t.Errorf("Commit after Abort = %v, want ErrClosed", err)
	}
	if err := w.WritePipeline(sampleCheckpoint(job, 1, 1, TypeSavepoint)); !errors.Is(err, ErrClosed) {
		t.Errorf("WritePipeline after Abort = %v, want ErrClosed", err)
	}
	staging, _ := os.ReadDir(filepath.Join(ns, SavepointDir, "1001", StagingDir))
	if len(staging) != 0 {
		t.Errorf("Abort left staging entries %v", staging)
	}
}

func TestDeleteAndDeleteAll(t *testing.T) {
	s, ns, _ := newTestStore(t)
	save(t, s, 1, 1)
	save(t, s, 2, 1)
	if _, err := s.Begin(job, 3, []int32{1}); err != nil { // left open: staging
		t.Fatal(err)
	}
	if err := s.Delete(job, 1); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(job, 1); err != nil {
		t.Errorf("deleting a missing savepoint: %v", err)
	}
	if list, _ := s.List(job); !slices.Equal(ids(list), []int64{2}) {
		t.Errorf("after Delete: %v", ids(list))
	}
	if _, err := s.Read(job, 1); !errors.Is(err, ErrNotFound) {
		t.Errorf("Read of deleted = %v", err)
	}
	if err := s.DeleteAll(job); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(ns, SavepointDir, "1001")); !os.IsNotExist(err) {
		t.Errorf("DeleteAll left the job directory: %v", err)
	}
}

// TestCommitClearsAnEarlierAttempt: a commit at an id whose bundle
// directory an earlier, uncommitted attempt left behind removes it first;
// when that removal fails the commit fails with its error and publishes
// nothing, and a later attempt at the id clears it and commits. A commit
// at an id already committed is refused with ErrExists. Every savepoint
// attempt of the simulation has an id of its own, so no simulated commit
// finds either (results/coverage/defensive.txt).
func TestCommitClearsAnEarlierAttempt(t *testing.T) {
	ns := filepath.ToSlash(t.TempDir())
	fsys := &removeFailFS{FS: OSFS{}}
	s := NewStore(fsys, ns, testEnv, Options{Producer: "test"})
	leftover := filepath.Join(ns, SavepointDir, "1001", "7", PayloadFile(1, 99))
	mustOS(t, os.MkdirAll(filepath.Dir(leftover), 0o755))
	mustOS(t, os.WriteFile(leftover, []byte("an earlier attempt"), 0o644))
	w, err := s.Begin(job, 7, []int32{1})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WritePipeline(sampleCheckpoint(job, 1, 71, TypeSavepoint)); err != nil {
		t.Fatal(err)
	}
	fsys.fail = true
	if err := w.Commit(); !errors.Is(err, errIO) || !strings.Contains(err.Error(), "clear uncommitted attempt") {
		t.Errorf("Commit over a leftover it cannot remove = %v, want the removal's error", err)
	}
	fsys.fail = false
	if err := w.Commit(); !errors.Is(err, errIO) {
		t.Errorf("Commit again = %v, want the same error (a failed commit is not retried)", err)
	}
	if list, _ := s.List(job); len(list) != 0 {
		t.Errorf("a failed commit published %v", ids(list))
	}
	w.Abort()
	save(t, s, 7, 1)
	if _, err := os.Stat(leftover); !os.IsNotExist(err) {
		t.Errorf("the earlier attempt's file survived the commit: %v", err)
	}
	if b, err := s.Read(job, 7); err != nil || b.Pipeline(1).CheckpointID != 71 {
		t.Errorf("Read after the commit = %v, %v", b, err)
	}
	w, _ = s.Begin(job, 7, []int32{1})
	_ = w.WritePipeline(sampleCheckpoint(job, 1, 72, TypeSavepoint))
	var fe *FileError
	if err := w.Commit(); !errors.Is(err, ErrExists) || !errors.As(err, &fe) || path.Base(fe.Path) != MetadataFile {
		t.Errorf("Commit at a committed id = %v, want ErrExists on its marker", err)
	}
	w.Abort()
}

func TestListSkipsWhatIsNotACommittedBundle(t *testing.T) {
	s, ns, log := newTestStore(t)
	save(t, s, 50, 1, 2)
	if _, err := s.Begin(job, 60, []int32{1}); err != nil { // staging only
		t.Fatal(err)
	}
	jobDir := filepath.Join(ns, SavepointDir, "1001")
	mustOS(t, os.MkdirAll(filepath.Join(jobDir, "70"), 0o755))                  // no marker
	mustOS(t, os.WriteFile(filepath.Join(jobDir, "stray"), []byte("x"), 0o644)) // not a bundle
	mustOS(t, os.CopyFS(filepath.Join(jobDir, "80"), os.DirFS(filepath.Join(jobDir, "50"))))
	save(t, s, 90, 1)
	mustOS(t, os.Remove(filepath.Join(jobDir, "90", PayloadFile(1, 901)))) // payload missing

	list, err := s.List(job)
	if err != nil || !slices.Equal(ids(list), []int64{50}) {
		t.Fatalf("List = %v, %v; want [50]", ids(list), err)
	}
	reasons := map[string]string{
		StagingDir: "staging area", "70": "commit marker", "stray": "not a bundle directory",
		"80": "bundle ids", "90": "payload present",
	}
	for name, reason := range reasons {
		if !logged(log, "/1001/"+name+":", reason) {
			t.Errorf("no log line for skipping %s with reason %q; log:\n%s", name, reason, strings.Join(log.lines, "\n"))
		}
	}
}

func logged(log *logRecorder, parts ...string) bool {
	return slices.ContainsFunc(log.lines, func(l string) bool {
		for _, p := range parts {
			if !strings.Contains(l, p) {
				return false
			}
		}
		return true
	})
}

func mustOS(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestEveryByteFlipIsDetected flips each byte of each file of a committed
// three-pipeline bundle (two masks each): Read must fail with a FileError
// naming that file, List must skip the bundle and log why, and restoring the
// byte must make the bundle whole again.
func TestEveryByteFlipIsDetected(t *testing.T) {
	s, ns, log := newTestStore(t)
	save(t, s, 42, 1, 2, 3)
	dir := path.Join(ns, SavepointDir, "1001", "42")
	entries, _ := os.ReadDir(dir)
	flips := 0
	for _, e := range entries {
		file := path.Join(dir, e.Name())
		orig, _ := os.ReadFile(file)
		for i := range orig {
			for _, mask := range []byte{0x01, 0x80} {
				damaged := slices.Clone(orig)
				damaged[i] ^= mask
				mustOS(t, os.WriteFile(file, damaged, 0o644))
				checkDamaged(t, s, log, file, i)
				flips++
			}
		}
		mustOS(t, os.WriteFile(file, orig, 0o644))
	}
	if _, err := s.Read(job, 42); err != nil {
		t.Fatalf("restored bundle: %v", err)
	}
	if len(entries) != 4 || flips < 1000 {
		t.Errorf("flipped %d bytes over %d files; expected a marker and three payloads", flips, len(entries))
	}
}

func checkDamaged(t *testing.T, s *Store, log *logRecorder, file string, offset int) {
	t.Helper()
	_, err := s.Read(job, 42)
	var fe *FileError
	if !errors.As(err, &fe) || fe.Path != file || fe.Check == "" {
		t.Fatalf("byte %d of %s: Read = %v, want a FileError naming the file", offset, file, err)
	}
	log.lines = nil
	if list, err := s.List(job); err != nil || len(list) != 0 {
		t.Fatalf("byte %d of %s: List = %v, %v; want the bundle skipped", offset, file, ids(list), err)
	}
	if !logged(log, "skip", file, fe.Check) {
		t.Fatalf("byte %d of %s: no skip logged with the reason; log: %v", offset, file, log.lines)
	}
}

func TestOSFSMkdirAllRefusesAFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	mustOS(t, os.WriteFile(file, nil, 0o644))
	if err := (OSFS{}).MkdirAll(filepath.ToSlash(file)); err == nil {
		t.Error("MkdirAll over a file succeeded")
	}
	if err := (OSFS{}).MkdirAll(filepath.ToSlash(filepath.Join(dir, "a", "b"))); err != nil {
		t.Error(err)
	}
}
