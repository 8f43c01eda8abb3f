package campaign

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
)

// ErrAbandoned is what WriteFile returns once AbandonWrites was called.
var ErrAbandoned = errors.New("writes abandoned: the process is exiting")

// temps are the temporary files of the WriteFile calls in progress.
var temps = struct {
	sync.Mutex
	names     map[string]bool
	abandoned bool
}{names: map[string]bool{}}

// beforeRename, when set, runs in WriteFile with the temporary file
// written, fsynced and closed, before it is renamed over path: a test
// hook (testhook.go).
var beforeRename func(tmp, path string)

// WriteFile writes data to path durably and atomically: through a
// temporary file in the same folder that is fsynced, renamed over path,
// and the folder fsynced so that the rename itself survives a crash. A
// reader sees the old file or the new one, never half of either. The
// temporary file is removed on every return, and by AbandonWrites should
// the process exit in the middle.
func WriteFile(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := createTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if errors.Is(err, ErrAbandoned) {
		return &os.PathError{Op: "write", Path: path, Err: err}
	}
	if err != nil {
		return err
	}
	defer dropTemp(f.Name()) // the remove is a no-op after the rename
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if beforeRename != nil {
		beforeRename(f.Name(), path)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		if le := (*os.LinkError)(nil); errors.As(err, &le) {
			return &os.PathError{Op: "write", Path: path, Err: le.Err} // the temporary name means nothing to a reader
		}
		return err
	}
	return SyncDir(dir)
}

// createTemp creates a temporary file in dir and records it, unless the
// writes were abandoned.
func createTemp(dir, pattern string) (*os.File, error) {
	temps.Lock()
	defer temps.Unlock()
	if temps.abandoned {
		return nil, ErrAbandoned
	}
	f, err := os.CreateTemp(dir, pattern)
	if err == nil {
		temps.names[f.Name()] = true
	}
	return f, err
}

// dropTemp forgets a temporary file and removes it.
func dropTemp(name string) {
	temps.Lock()
	defer temps.Unlock()
	if temps.names[name] {
		delete(temps.names, name)
		os.Remove(name)
	}
}

// AbandonWrites removes the temporary files of the WriteFile calls in
// progress, without waiting for them, and makes every later call fail
// with ErrAbandoned: for a process about to exit at once (simrun's second
// interrupt), which would otherwise leave those files behind. A call cut
// short this way leaves the file it was replacing as it was.
func AbandonWrites() {
	temps.Lock()
	defer temps.Unlock()
	temps.abandoned = true
	for name := range temps.names {
		os.Remove(name)
		delete(temps.names, name)
	}
}

// SyncDir fsyncs a folder, making the names created or renamed in it
// durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
