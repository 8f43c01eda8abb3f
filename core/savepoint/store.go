package savepoint

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"

	"github.com/ckptsim/ckptsim/core/env"
)

// Layout names (see the package doc).
const (
	SavepointDir  = "savepoint"
	CheckpointDir = "checkpoint"
	StagingDir    = ".staging"
	MetadataFile  = "_metadata.ser"
	tmpSuffix     = ".tmp"
)

// Logf receives one line per skipped bundle or file and per failed
// best-effort cleanup. A nil Logf discards them.
type Logf func(format string, args ...any)

func (l Logf) printf(format string, args ...any) {
	if l != nil {
		l(format, args...)
	}
}

// Options configure a Store.
type Options struct {
	Logf     Logf
	Producer string // engine version recorded in manifests; "" records "unknown"
	// SkipUnreadable makes List leave out a bundle the file system failed
	// to read, as it leaves out a corrupt one, instead of failing: upstream
	// HdfsStorage.listCompletedSavepoints's (variant savepoint-list, F040).
	SkipUnreadable bool
}

// Store keeps savepoint bundles under <ns>/savepoint. It holds no cache: every
// call reads the file system, so several Stores over one FS agree. Its
// methods are safe for concurrent use; at most one Writer per (job,
// savepoint id) may be open at a time.
type Store struct {
	fs       FS
	root     string
	env      env.Env
	logf     Logf
	producer string
	skip     bool // Options.SkipUnreadable

	mu       env.Mutex // guards attempts; nothing is taken while holding it
	attempts uint64    // attempt names handed out by this Store
}

// NewStore returns a Store over fsys rooted at namespace ns. e supplies the
// writers' locks and the trigger timestamp.
func NewStore(fsys FS, ns string, e env.Env, o Options) *Store {
	producer := o.Producer
	if producer == "" {
		producer = "unknown"
	}
	return &Store{fs: fsys, root: path.Join(ns, SavepointDir), env: e, logf: o.Logf,
		producer: producer, skip: o.SkipUnreadable, mu: e.NewMutex("savepoint.store")}
}

func (s *Store) jobDir(job int64) string { return path.Join(s.root, strconv.FormatInt(job, 10)) }

func (s *Store) bundleDir(job, id int64) string {
	return path.Join(s.jobDir(job), strconv.FormatInt(id, 10))
}

// Bundle is a fully verified savepoint.
type Bundle struct {
	Manifest
	Checkpoints []*CompletedCheckpoint // one per entry, in entry order
}

// Pipeline returns the checkpoint of pipeline p, or nil.
func (b *Bundle) Pipeline(p int32) *CompletedCheckpoint {
	for _, c := range b.Checkpoints {
		if c.PipelineID == p {
			return c
		}
	}
	return nil
}

// Read loads and fully verifies savepoint id of job: the marker must exist
// and pass its checksum and version window, its ids must match the
// directory, and every payload must exist with the recorded length and
// SHA-256, decode, and carry the ids its entry names. Errors are *FileError.
func (s *Store) Read(job, id int64) (*Bundle, error) {
	dir := s.bundleDir(job, id)
	marker := path.Join(dir, MetadataFile)
	m, err := s.readManifest(marker)
	if err != nil {
		return nil, err
	}
	if m.SavepointID != id || m.JobID != job {
		return nil, &FileError{Path: marker, Check: "bundle ids", Err: fmt.Errorf(
			"%w: manifest says job %d savepoint %d, directory says job %d savepoint %d",
			ErrCorrupt, m.JobID, m.SavepointID, job, id)}
	}
	b := &Bundle{Manifest: *m}
	for _, e := range m.Entries {
		c, err := s.readPayload(path.Join(dir, e.File), m, e)
		if err != nil {
			return nil, err
		}
		b.Checkpoints = append(b.Checkpoints, c)
	}
	return b, nil
}

func (s *Store) readManifest(marker string) (*Manifest, error) {
	data, err := readFile(s.fs, marker, "commit marker", ErrNotFound)
	if err != nil {
		return nil, err
	}
	m, err := ParseManifest(data)
	if err != nil {
		return nil, atPath(marker, err)
	}
	return m, nil
}

// readPayload reads one payload and checks it against its manifest entry.
func (s *Store) readPayload(file string, m *Manifest, e ManifestEntry) (*CompletedCheckpoint, error) {
	data, err := readFile(s.fs, file, "payload present", ErrIncomplete)
	if err != nil {
		return nil, err
	}
	if int64(len(data)) != e.Length {
		return nil, &FileError{Path: file, Check: "length", Err: fmt.Errorf(
			"%w: %d bytes, manifest says %d", ErrCorrupt, len(data), e.Length)}
	}
	if got := sha256Hex(data); got != e.SHA256 {
		return nil, &FileError{Path: file, Check: "sha-256", Err: fmt.Errorf(
			"%w: %s, manifest says %s", ErrChecksum, got, e.SHA256)}
	}
	c, err := decodeEntryPayload(m, e, data)
	if err != nil {
		return nil, atPath(file, err)
	}
	return c, nil
}

// decodeEntryPayload decodes through the manifest's version reader and
// cross-checks the ids.
func decodeEntryPayload(m *Manifest, e ManifestEntry, data []byte) (*CompletedCheckpoint, error) {
	r, err := formats.lookup(m.FormatVersion)
	if err != nil {
		return nil, failed("format version", err)
	}
	decode := r.payloads[e.PayloadFormat]
	if decode == nil {
		return nil, failed("payload format", fmt.Errorf("%w: %q", ErrCorrupt, e.PayloadFormat))
	}
	c, err := decode(data)
	if err != nil {
		return nil, failed("decode", err)
	}
	if c.JobID != m.JobID || c.PipelineID != e.PipelineID || c.CheckpointID != e.CheckpointID {
		return nil, failed("payload ids", fmt.Errorf("%w: payload is job %d pipeline %d checkpoint %d",
			ErrCorrupt, c.JobID, c.PipelineID, c.CheckpointID))
	}
	return c, nil
}

// List returns the manifests of job's committed, fully verified savepoints,
// newest first (by trigger time, then id). It skips the staging directory,
// directories without a marker, and bundles that fail any check of Read,
// logging each skip with its reason. A bundle with a file the file system
// failed to read (an I/O error, readFailed) is not skipped: it may be
// committed and intact, and a listing without it would make an older
// savepoint the newest (Restore would resume from it); List fails with
// the read error instead (Options.SkipUnreadable: skipped). A job with no
// savepoints gives an empty list.
func (s *Store) List(job int64) ([]*Manifest, error) {
	entries, err := s.fs.ReadDir(s.jobDir(job))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("savepoint: list job %d: %w", job, err)
	}
	var out []*Manifest
	for _, de := range entries {
		m, err := s.listOne(job, de)
		if err != nil {
			return nil, fmt.Errorf("savepoint: list job %d: %w", job, err)
		}
		if m != nil {
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b *Manifest) int {
		return cmp.Or(cmp.Compare(b.TriggerTimestampMs, a.TriggerTimestampMs), cmp.Compare(b.SavepointID, a.SavepointID))
	})
	return out, nil
}

// listOne returns the verified manifest of one job directory entry, or nil
// after logging why it was skipped, or the error of a read that failed.
func (s *Store) listOne(job int64, de fs.DirEntry) (*Manifest, error) {
	where := path.Join(s.jobDir(job), de.Name())
	if de.Name() == StagingDir {
		s.logf.printf("savepoint: list: skip %s: staging area", where)
		return nil, nil
	}
	id, err := strconv.ParseInt(de.Name(), 10, 64)
	if err != nil || !de.IsDir() || strconv.FormatInt(id, 10) != de.Name() {
		s.logf.printf("savepoint: list: skip %s: not a bundle directory", where)
		return nil, nil
	}
	b, err := s.Read(job, id)
	if readFailed(err) && !s.skip {
		return nil, err
	}
	if err != nil {
		s.logf.printf("savepoint: list: skip %s: %v", where, err)
		return nil, nil
	}
	return &b.Manifest, nil
}

// Delete removes savepoint id of job: the marker first, so that a crash
// part-way leaves an uncommitted directory rather than a damaged bundle,
// then the directory. Deleting a missing savepoint is not an error.
func (s *Store) Delete(job, id int64) error {
	dir := s.bundleDir(job, id)
	if err := s.fs.Remove(path.Join(dir, MetadataFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		env.Hit(s.env, env.ProbeSavepointMarkerRemoveFails)
		return fmt.Errorf("savepoint: delete %s: %w", dir, err)
	}
	if err := s.fs.SyncDir(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		env.Hit(s.env, env.ProbeSavepointDeleteSyncFails)
		return fmt.Errorf("savepoint: delete %s: %w", dir, err)
	}
	if err := s.fs.RemoveAll(dir); err != nil {
		return fmt.Errorf("savepoint: delete %s: %w", dir, err)
	}
	return s.syncIfExists(s.jobDir(job))
}

// DeleteAll removes every savepoint of job, committed or staging.
func (s *Store) DeleteAll(job int64) error {
	entries, err := s.fs.ReadDir(s.jobDir(job))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		env.Hit(s.env, env.ProbeSavepointDeleteAllListFails)
		return fmt.Errorf("savepoint: delete all of job %d: %w", job, err)
	}
	for _, de := range entries {
		if id, err := strconv.ParseInt(de.Name(), 10, 64); err == nil {
			if err := s.Delete(job, id); err != nil {
				return err
			}
		}
	}
	if err := s.fs.RemoveAll(s.jobDir(job)); err != nil {
		return fmt.Errorf("savepoint: delete all of job %d: %w", job, err)
	}
	return s.syncIfExists(s.root)
}

func (s *Store) syncIfExists(dir string) error {
	if err := s.fs.SyncDir(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		env.Hit(s.env, env.ProbeSavepointParentSyncFails)
		return fmt.Errorf("savepoint: sync %s: %w", dir, err)
	}
	return nil
}
