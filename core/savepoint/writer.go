package savepoint

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"

	"github.com/ckptsim/ckptsim/core/env"
)

// Writer stages one attempt at a savepoint of a job and publishes it with
// Commit. The pipeline coordinators of the job share it: its methods are
// safe for concurrent use. mu guards every field below it and is held across
// the file operations of one call, so calls run one at a time; no other lock
// is taken while it is held.
type Writer struct {
	store    *Store
	job, id  int64
	trigger  int64  // trigger timestamp, ms
	staging  string // <ns>/savepoint/<job>/.staging/<attempt>
	expected []int32

	mu      env.Mutex
	entries map[int32]ManifestEntry
	err     error // first refusal; sticky, Commit returns it
	state   writerState
}

type writerState int

const (
	writerOpen writerState = iota
	writerCommitted
	writerAborted
)

// Begin opens a writer for savepoint id of job that expects exactly the
// pipelines in expected. It creates a fresh staging directory for the
// attempt. The trigger timestamp recorded in the manifest is the env's Now.
func (s *Store) Begin(job, id int64, expected []int32) (*Writer, error) {
	if id <= 0 || len(expected) == 0 {
		return nil, fmt.Errorf("savepoint: begin job %d savepoint %d: need a positive id and at least one pipeline", job, id)
	}
	exp := slices.Clone(expected)
	slices.Sort(exp)
	if len(slices.Compact(slices.Clone(exp))) != len(exp) {
		return nil, fmt.Errorf("savepoint: begin job %d savepoint %d: %w in expected set %v", job, id, ErrDuplicate, expected)
	}
	staging, err := s.newStaging(job, id)
	if err != nil {
		return nil, err
	}
	return &Writer{store: s, job: job, id: id, trigger: s.env.Now().UnixMilli(), staging: staging,
		expected: exp, mu: s.env.NewMutex("savepoint.writer"), entries: map[int32]ManifestEntry{}}, nil
}

// newStaging creates <job>/.staging/<id>-attempt-<n> for the first n not in
// use.
func (s *Store) newStaging(job, id int64) (string, error) {
	for {
		s.mu.Lock()
		s.attempts++
		n := s.attempts
		s.mu.Unlock()
		dir := path.Join(s.jobDir(job), StagingDir, fmt.Sprintf("%d-attempt-%d", id, n))
		taken, err := exists(s.fs, dir)
		if err != nil {
			return "", fmt.Errorf("savepoint: begin: %w", err)
		}
		if !taken {
			if err := s.fs.MkdirAll(dir); err != nil {
				return "", fmt.Errorf("savepoint: begin: %w", err)
			}
			return dir, nil
		}
	}
}

// WritePipeline stages the savepoint state of one pipeline: the payload is
// written to <file>.tmp, synced and renamed into the staging directory. A
// pipeline outside the expected set, a second write for a pipeline, or a
// checkpoint of another job or type is refused, and the refusal is sticky:
// Commit then fails with it, because writers that disagree about a bundle
// mean it cannot be trusted.
func (w *Writer) WritePipeline(c *CompletedCheckpoint) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.state != writerOpen {
		return fmt.Errorf("savepoint: job %d savepoint %d: write pipeline %d: %w", w.job, w.id, c.PipelineID, ErrClosed)
	}
	if err := w.admit(c); err != nil {
		w.err = firstErr(w.err, err)
		return err
	}
	e, err := w.stage(c)
	if err != nil {
		return err
	}
	w.entries[c.PipelineID] = e
	return nil
}

func firstErr(first, next error) error {
	if first != nil {
		return first
	}
	return next
}

// admit checks that c belongs in this bundle.
func (w *Writer) admit(c *CompletedCheckpoint) error {
	where := fmt.Sprintf("savepoint: job %d savepoint %d: pipeline %d", w.job, w.id, c.PipelineID)
	switch {
	case c.JobID != w.job:
		return fmt.Errorf("%s: %w: checkpoint belongs to job %d", where, ErrUnexpected, c.JobID)
	case c.Type != TypeSavepoint:
		return fmt.Errorf("%s: %w: %s", where, ErrWrongType, c.Type)
	case !slices.Contains(w.expected, c.PipelineID):
		return fmt.Errorf("%s: %w: expected %v", where, ErrUnexpected, w.expected)
	}
	if _, dup := w.entries[c.PipelineID]; dup {
		return fmt.Errorf("%s: %w", where, ErrDuplicate)
	}
	return nil
}

// stage writes c's payload into the staging directory.
func (w *Writer) stage(c *CompletedCheckpoint) (ManifestEntry, error) {
	data := EncodePayload(c)
	e := ManifestEntry{PipelineID: c.PipelineID, CheckpointID: c.CheckpointID,
		File: PayloadFile(c.PipelineID, c.CheckpointID), Length: int64(len(data)),
		SHA256: sha256Hex(data), PayloadFormat: PayloadFormatV1}
	file := path.Join(w.staging, e.File)
	if err := w.store.fs.WriteFile(file+tmpSuffix, data); err != nil {
		return e, fmt.Errorf("savepoint: stage %s: %w", file, err)
	}
	if err := w.store.fs.Rename(file+tmpSuffix, file); err != nil {
		return e, fmt.Errorf("savepoint: stage %s: %w", file, err)
	}
	return e, nil
}

// Commit publishes the bundle once every expected pipeline has written.
// The commit point is the rename of <bundle>/_metadata.ser.tmp to
// _metadata.ser; before it nothing is visible to List or Read, after it the
// whole bundle is. Commit after a successful Commit is a no-op; after Abort
// it returns ErrClosed. A Commit that fails before the commit point leaves
// nothing visible; it cannot be retried (it returns the same error again),
// so the caller aborts and begins a new attempt.
func (w *Writer) Commit() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.state == writerCommitted:
		return nil
	case w.state == writerAborted:
		return fmt.Errorf("savepoint: commit job %d savepoint %d: %w", w.job, w.id, ErrClosed)
	case w.err != nil:
		return w.err
	}
	if err := w.checkComplete(); err != nil {
		return err
	}
	if err := w.publish(w.manifest()); err != nil {
		if w.state == writerOpen {
			w.err = err // staged files may have moved: only Abort is left
		}
		return err
	}
	w.removeStaging()
	return nil
}

// checkComplete reports the expected pipelines that have not written.
func (w *Writer) checkComplete() error {
	var missing []int32
	for _, p := range w.expected {
		if _, ok := w.entries[p]; !ok {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("savepoint: commit job %d savepoint %d: %w: pipelines %v never wrote",
			w.job, w.id, ErrIncomplete, missing)
	}
	return nil
}

func (w *Writer) manifest() *Manifest {
	m := &Manifest{FormatVersion: FormatVersion, SavepointID: w.id, JobID: w.job,
		Producer: w.store.producer, TriggerTimestampMs: w.trigger}
	for _, p := range w.expected {
		m.Entries = append(m.Entries, w.entries[p])
	}
	return m
}

// publish moves the staged payloads into the bundle directory, makes them
// durable, then writes and renames the marker (the commit point) and syncs.
func (w *Writer) publish(m *Manifest) error {
	fsys, dir := w.store.fs, w.store.bundleDir(w.job, w.id)
	marker := path.Join(dir, MetadataFile)
	if err := w.clearUncommitted(dir, marker); err != nil {
		return err
	}
	steps := []func() error{func() error { return fsys.MkdirAll(dir) }}
	for _, e := range m.Entries {
		steps = append(steps, func() error { return fsys.Rename(path.Join(w.staging, e.File), path.Join(dir, e.File)) })
	}
	steps = append(steps,
		func() error { return fsys.SyncDir(dir) },
		func() error { return fsys.WriteFile(marker+tmpSuffix, m.marshal()) },
		func() error { return fsys.Rename(marker+tmpSuffix, marker) })
	for _, step := range steps {
		if err := step(); err != nil {
			return fmt.Errorf("savepoint: commit %s: %w", dir, err)
		}
	}
	w.state = writerCommitted // the commit point has passed
	if err := fsys.SyncDir(dir); err != nil {
		return fmt.Errorf("savepoint: commit %s: marker renamed but not synced: %w", dir, err)
	}
	return nil
}

// clearUncommitted refuses to overwrite a committed bundle and removes what
// an earlier, uncommitted attempt at the same id left behind.
func (w *Writer) clearUncommitted(dir, marker string) error {
	committed, err := exists(w.store.fs, marker)
	if err != nil {
		return fmt.Errorf("savepoint: commit %s: %w", dir, err)
	}
	if committed {
		return &FileError{Path: marker, Check: "commit marker absent", Err: ErrExists}
	}
	if err := w.store.fs.RemoveAll(dir); err != nil {
		return fmt.Errorf("savepoint: commit %s: clear uncommitted attempt: %w", dir, err)
	}
	return nil
}

// Abort discards the attempt: the staging directory and, unless the bundle
// was committed, whatever a failed Commit moved into the bundle directory.
// Cleanup is best effort (failures are logged). Abort after Commit is a
// no-op.
func (w *Writer) Abort() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.state != writerOpen {
		return
	}
	w.state = writerAborted
	w.removeStaging()
	dir := w.store.bundleDir(w.job, w.id)
	if committed, err := exists(w.store.fs, path.Join(dir, MetadataFile)); err == nil && !committed {
		w.removeLogged(dir)
	}
}

func (w *Writer) removeStaging() { w.removeLogged(w.staging) }

func (w *Writer) removeLogged(dir string) {
	if err := w.store.fs.RemoveAll(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		w.store.logf.printf("savepoint: cleanup %s: %v", dir, err)
	}
}

// ID returns the savepoint id the writer writes.
func (w *Writer) ID() int64 { return w.id }
