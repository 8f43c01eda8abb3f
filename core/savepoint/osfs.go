package savepoint

import (
	"io/fs"
	"os"
	"path/filepath"
)

// OSFS is the FS of the operating system. It syncs files on WriteFile and
// directories on SyncDir and on every directory MkdirAll creates.
type OSFS struct{}

var _ FS = OSFS{}

func native(name string) string { return filepath.FromSlash(name) }

// MkdirAll creates the missing directories top-down, syncing the parent of
// each one it creates.
func (fsys OSFS) MkdirAll(dir string) error {
	dir = filepath.Clean(native(dir))
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		return nil
	}
	parent := filepath.Dir(dir)
	if parent != dir {
		if err := fsys.MkdirAll(filepath.ToSlash(parent)); err != nil {
			return err
		}
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		if fi, serr := os.Stat(dir); serr != nil || !fi.IsDir() {
			return err // not created, and not a directory raced into place
		}
	}
	return syncDir(parent)
}

// WriteFile writes data to name and fsyncs it before closing.
func (OSFS) WriteFile(name string, data []byte) error {
	f, err := os.OpenFile(native(name), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return werr
}

// Rename calls os.Rename.
func (OSFS) Rename(oldname, newname string) error {
	return os.Rename(native(oldname), native(newname))
}

// Remove calls os.Remove.
func (OSFS) Remove(name string) error { return os.Remove(native(name)) }

// RemoveAll calls os.RemoveAll.
func (OSFS) RemoveAll(path string) error { return os.RemoveAll(native(path)) }

// ReadDir calls os.ReadDir.
func (OSFS) ReadDir(dir string) ([]fs.DirEntry, error) { return os.ReadDir(native(dir)) }

// ReadFile calls os.ReadFile.
func (OSFS) ReadFile(name string) ([]byte, error) { return os.ReadFile(native(name)) }

// Stat calls os.Stat.
func (OSFS) Stat(name string) (fs.FileInfo, error) { return os.Stat(native(name)) }

// SyncDir fsyncs the directory dir.
func (OSFS) SyncDir(dir string) error { return syncDir(native(dir)) }

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	serr := d.Sync()
	if cerr := d.Close(); serr == nil {
		serr = cerr
	}
	return serr
}
