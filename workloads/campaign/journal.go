package campaign

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// SyncEvery bounds how long an appended record may wait for its fsync.
const SyncEvery = 2 * time.Second

// Journal is an append-only file of JSON lines, one per finished seed.
// Each Append is one write of a whole line, so a killed process leaves
// every appended record in the file; an fsync follows every record within
// SyncEvery (a timer armed by the first record after a sync, and Sync and
// Close), so a machine crash loses at most that much. Safe for concurrent
// use.
type Journal struct {
	mu      sync.Mutex
	f       *os.File
	path    string
	dirty   bool
	timer   *time.Timer // armed while an appended record waits for its fsync
	syncErr error       // the first failed timed fsync, reported by Sync and Close
}

// OpenJournal opens path for appending, creating it (and its folder). A
// torn last line, left by a process killed in the middle of a write, is
// cut off first.
func OpenJournal(path string) (*Journal, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := cutTorn(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := SyncDir(filepath.Dir(path)); err != nil {
		f.Close()
		return nil, err
	}
	return &Journal{f: f, path: path}, nil
}

// cutTorn truncates f after its last newline and seeks to the end.
func cutTorn(f *os.File) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	size := st.Size()
	keep := int64(0)
	buf := make([]byte, 64<<10)
	for end := size; end > 0 && keep == 0; {
		start := max(end-int64(len(buf)), 0)
		n, err := f.ReadAt(buf[:end-start], start)
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			keep = start + int64(i) + 1
		}
		end = start
	}
	if keep < size {
		if err := f.Truncate(keep); err != nil {
			return err
		}
	}
	_, err = f.Seek(keep, io.SeekStart)
	return err
}

// Append writes v as one JSON line.
func (j *Journal) Append(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	j.mu.Lock()
	defer j.mu.Unlock()
	if _, err := j.f.Write(b); err != nil {
		return fmt.Errorf("%s: %w", j.path, err)
	}
	if !j.dirty && j.timer == nil {
		j.timer = time.AfterFunc(SyncEvery, j.timedSync)
	}
	j.dirty = true
	return nil
}

func (j *Journal) timedSync() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.timer = nil
	if err := j.syncLocked(); err != nil && j.syncErr == nil {
		j.syncErr = err
	}
}

// Sync fsyncs what was appended.
func (j *Journal) Sync() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.syncLocked()
}

func (j *Journal) syncLocked() error {
	if !j.dirty {
		return j.syncErr
	}
	j.dirty = false
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("%s: %w", j.path, err)
	}
	return j.syncErr
}

// Close fsyncs and closes the journal.
func (j *Journal) Close() error {
	j.mu.Lock()
	if j.timer != nil {
		j.timer.Stop()
		j.timer = nil
	}
	err := j.syncLocked()
	if cerr := j.f.Close(); err == nil {
		err = cerr
	}
	j.mu.Unlock()
	return err
}

// ReadJournal calls fn with each complete line of path in order, with its
// line number; a torn last line (no newline) is skipped. A missing file
// has no lines.
func ReadJournal(path string, fn func(line int, b []byte) error) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	for n := 1; ; n++ {
		b, err := r.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			return nil // b, if any, is a torn line
		}
		if err != nil {
			return err
		}
		if err := fn(n, b[:len(b)-1]); err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
	}
}
