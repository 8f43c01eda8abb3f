package campaign

import (
	"errors"
	"os"
	"path/filepath"
)

// WriteFile writes data to path durably and atomically: through a
// temporary file in the same folder that is fsynced, renamed over path,
// and the folder fsynced so that the rename itself survives a crash. A
// reader sees the old file or the new one, never half of either.
func WriteFile(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // a no-op after the rename
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
	if err := os.Rename(f.Name(), path); err != nil {
		if le := (*os.LinkError)(nil); errors.As(err, &le) {
			return &os.PathError{Op: "write", Path: path, Err: le.Err} // the temporary name means nothing to a reader
		}
		return err
	}
	return SyncDir(dir)
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
