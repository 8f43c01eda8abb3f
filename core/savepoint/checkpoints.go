package savepoint

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/ckptsim/ckptsim/core/env"
)

// checkpointMagic starts every versioned checkpoint file. A file without it
// is legacy v0 (a PipelineState), which cannot start with these bytes
// because its first byte is a field tag.
var checkpointMagic = []byte{0x89, 'C', 'K', 'P'}

// EncodeCheckpointFile returns the checkpoint file encoding of c: magic,
// uvarint format version, engine-wire-v1 payload, then the SHA-256 of all
// preceding bytes.
func EncodeCheckpointFile(c *CompletedCheckpoint) []byte {
	b := append(slices.Clone(checkpointMagic), binary.AppendUvarint(nil, FormatVersion)...)
	b = append(b, EncodePayload(c)...)
	sum := sha256.Sum256(b)
	return append(b, sum[:]...)
}

// DecodeCheckpointFile decodes a checkpoint file, versioned or legacy v0.
// Errors are *FileError without a path.
func DecodeCheckpointFile(data []byte) (*CompletedCheckpoint, error) {
	if !bytes.HasPrefix(data, checkpointMagic) {
		c, err := DecodeLegacy(data)
		if err != nil {
			return nil, failed("legacy v0 decode", err)
		}
		return c, nil
	}
	if len(data) < len(checkpointMagic)+sha256.Size {
		return nil, failed("length", fmt.Errorf("%w: %d bytes", ErrCorrupt, len(data)))
	}
	body, sum := data[:len(data)-sha256.Size], data[len(data)-sha256.Size:]
	if got := sha256.Sum256(body); !bytes.Equal(got[:], sum) {
		return nil, failed("sha-256", fmt.Errorf("%w: %x, recorded %x", ErrChecksum, got, sum))
	}
	version, n := binary.Uvarint(body[len(checkpointMagic):])
	if n <= 0 {
		return nil, failed("format version", fmt.Errorf("%w: bad varint", ErrCorrupt))
	}
	r, err := formats.lookup(version)
	if err != nil {
		return nil, failed("format version", err)
	}
	c, err := r.payloads[r.checkpointFormat](body[len(checkpointMagic)+n:])
	if err != nil {
		return nil, failed("decode", err)
	}
	return c, nil
}

// Checkpoints keeps completed checkpoints under <ns>/checkpoint/<job>/<pipeline>/<id>.ser,
// apart from savepoints: nothing it does ever touches <ns>/savepoint. Its
// methods are safe for concurrent use as long as each (job, pipeline) has
// one writer, which is the coordinator's rule anyway.
type Checkpoints struct {
	fs          FS
	root        string
	maxRetained int
	logf        Logf
	// noDeleteSync: Delete does not sync the directory (SkipDeleteSync).
	noDeleteSync bool
	// probe: where the store reports code probes (ProbeTo); nil: nowhere.
	probe env.Env
}

// NewCheckpoints returns checkpoint storage over fsys rooted at namespace ns
// that keeps the newest maxRetained checkpoints per pipeline (all of them if
// maxRetained <= 0).
func NewCheckpoints(fsys FS, ns string, maxRetained int, logf Logf) *Checkpoints {
	return &Checkpoints{fs: fsys, root: path.Join(ns, CheckpointDir), maxRetained: maxRetained, logf: logf}
}

// SkipDeleteSync makes Delete remove a checkpoint without syncing its
// directory, as upstream's HdfsStorage.deleteCheckpoint deletes (variant
// checkpoint-delete=no-sync, F036): a storage crash may bring the
// checkpoint back. Call it before the store is used; it returns c.
func (c *Checkpoints) SkipDeleteSync() *Checkpoints {
	c.noDeleteSync = true
	return c
}

// ProbeTo makes the store report the code probes it reaches (env.Hit) to
// e, a simulator's world in a simulation; without it, it reports none.
// Call it before the store is used; it returns c.
func (c *Checkpoints) ProbeTo(e env.Env) *Checkpoints {
	c.probe = e
	return c
}

func (c *Checkpoints) pipelineDir(job int64, pipeline int32) string {
	return path.Join(c.root, strconv.FormatInt(job, 10), strconv.FormatInt(int64(pipeline), 10))
}

func (c *Checkpoints) file(job int64, pipeline int32, id int64) string {
	return path.Join(c.pipelineDir(job, pipeline), strconv.FormatInt(id, 10)+".ser")
}

// Store writes cp (tmp file, sync, rename, directory sync) and then rotates
// its pipeline down to the newest maxRetained checkpoints. Savepoints are
// refused with ErrWrongType: they belong in a Store.
func (c *Checkpoints) Store(cp *CompletedCheckpoint) error {
	if cp.Type == TypeSavepoint {
		return fmt.Errorf("savepoint: checkpoint storage: job %d pipeline %d checkpoint %d: %w: savepoints go to the savepoint store",
			cp.JobID, cp.PipelineID, cp.CheckpointID, ErrWrongType)
	}
	dir, file := c.pipelineDir(cp.JobID, cp.PipelineID), c.file(cp.JobID, cp.PipelineID, cp.CheckpointID)
	for _, step := range []func() error{
		func() error { return c.fs.MkdirAll(dir) },
		func() error { return c.fs.WriteFile(file+tmpSuffix, EncodeCheckpointFile(cp)) },
		func() error { return c.fs.Rename(file+tmpSuffix, file) },
		func() error { return c.fs.SyncDir(dir) },
	} {
		if err := step(); err != nil {
			return fmt.Errorf("savepoint: store checkpoint %s: %w", file, err)
		}
	}
	return c.Rotate(cp.JobID, cp.PipelineID)
}

// Rotate deletes all but the newest maxRetained checkpoints of a pipeline.
// A crash between a Store's rename and its rotation leaves one checkpoint
// too many until the next Store or Rotate of that pipeline.
func (c *Checkpoints) Rotate(job int64, pipeline int32) error {
	ids, err := c.List(job, pipeline)
	if err != nil || c.maxRetained <= 0 || len(ids) <= c.maxRetained {
		return err
	}
	for _, id := range ids[c.maxRetained:] {
		if err := c.Delete(job, pipeline, id); err != nil {
			return err
		}
	}
	return nil
}

// List returns the checkpoint ids stored for a pipeline, newest first.
// Files that are not <id>.ser (leftover .tmp files among them) are ignored.
func (c *Checkpoints) List(job int64, pipeline int32) ([]int64, error) {
	entries, err := c.fs.ReadDir(c.pipelineDir(job, pipeline))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("savepoint: list checkpoints of job %d pipeline %d: %w", job, pipeline, err)
	}
	var ids []int64
	for _, de := range entries {
		name, ok := strings.CutSuffix(de.Name(), ".ser")
		if id, err := strconv.ParseInt(name, 10, 64); ok && err == nil && !de.IsDir() {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	slices.Reverse(ids)
	return ids, nil
}

// Read loads one checkpoint. Errors name the file.
func (c *Checkpoints) Read(job int64, pipeline int32, id int64) (*CompletedCheckpoint, error) {
	file := c.file(job, pipeline, id)
	data, err := readFile(c.fs, file, "present", ErrNotFound)
	if err != nil {
		return nil, err
	}
	cp, err := DecodeCheckpointFile(data)
	if err != nil {
		return nil, atPath(file, err)
	}
	if cp.JobID != job || cp.PipelineID != pipeline || cp.CheckpointID != id {
		return nil, &FileError{Path: file, Check: "ids", Err: fmt.Errorf("%w: file holds job %d pipeline %d checkpoint %d",
			ErrCorrupt, cp.JobID, cp.PipelineID, cp.CheckpointID)}
	}
	return cp, nil
}

// Latest returns the newest readable checkpoint of a pipeline. Newer ones
// whose bytes fail a check (corrupt, torn, of another version) are skipped
// and logged; when checkpoints exist but none passes it fails (closed)
// with the newest one's error rather than pretending there is nothing.
// A file the file system failed to read (an I/O error, readFailed) is not
// skipped: it may be intact, and returning an older checkpoint would
// restart the pipeline from an older state than the newest stored; Latest
// fails with the read error instead, and the caller retries. With no
// checkpoints it returns ErrNotFound.
func (c *Checkpoints) Latest(job int64, pipeline int32) (*CompletedCheckpoint, error) {
	ids, err := c.List(job, pipeline)
	if err != nil {
		return nil, err
	}
	var first error
	for _, id := range ids {
		cp, err := c.Read(job, pipeline, id)
		if err == nil {
			return cp, nil
		}
		if readFailed(err) {
			return nil, err
		}
		c.logf.printf("savepoint: latest checkpoint: skip: %v", err)
		first = firstErr(first, err)
	}
	if first != nil {
		return nil, first
	}
	return nil, fmt.Errorf("savepoint: job %d pipeline %d: no checkpoint: %w", job, pipeline, ErrNotFound)
}

// Delete removes one checkpoint, durably: the removal is synced into its
// directory, so that a crash after Delete returned cannot bring the
// checkpoint back (without the sync, a storage crash resurrected every
// checkpoint retention had deleted since the pipeline's last Store). A
// missing one is not an error. After SkipDeleteSync it only removes.
func (c *Checkpoints) Delete(job int64, pipeline int32, id int64) error {
	if err := c.fs.Remove(c.file(job, pipeline, id)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("savepoint: delete checkpoint: %w", err)
	}
	if c.noDeleteSync {
		return nil
	}
	if err := c.fs.SyncDir(c.pipelineDir(job, pipeline)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("savepoint: delete checkpoint: %w", err)
	}
	return nil
}

// DeleteJob is job-terminal cleanup: it removes <ns>/checkpoint/<job> and
// everything below it. Savepoints of the job are untouched.
func (c *Checkpoints) DeleteJob(job int64) error {
	if err := c.fs.RemoveAll(path.Join(c.root, strconv.FormatInt(job, 10))); err != nil {
		return fmt.Errorf("savepoint: delete checkpoints of job %d: %w", job, err)
	}
	if err := c.fs.SyncDir(c.root); err != nil && !errors.Is(err, fs.ErrNotExist) {
		env.Hit(c.probe, env.ProbeCheckpointJobSyncFails)
		return fmt.Errorf("savepoint: delete checkpoints of job %d: %w", job, err)
	}
	return nil
}
