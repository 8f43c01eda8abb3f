package simfs

import (
	"errors"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/ckptsim/ckptsim/core/savepoint"
)

var _ savepoint.FS = (*FS)(nil)

// MkdirAll creates dir and its missing parents, one "mkdir" step each.
func (f *FS) MkdirAll(dir string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.check(); err != nil {
		return err
	}
	d, sofar := f.root, ""
	for _, c := range split(dir) {
		sofar += "/" + c
		next := d.children[c]
		if next == nil {
			if err := f.step("mkdir", sofar); err != nil {
				return err
			}
			next = newDir()
			d.children[c] = next
			d.durableChildren = maps.Clone(d.children)
		}
		if !next.dir {
			return &fs.PathError{Op: "mkdir", Path: sofar, Err: errors.New("not a directory")}
		}
		d = next
	}
	return nil
}

// WriteFile creates or truncates name and writes data ("write"), then
// syncs it ("fsync"). The directory entry is not synced.
func (f *FS) WriteFile(name string, data []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.check(); err != nil {
		return err
	}
	d, base, err := f.parent("write", name)
	if err != nil {
		return err
	}
	n := d.children[base]
	if n != nil && n.dir {
		return &fs.PathError{Op: "write", Path: name, Err: errors.New("is a directory")}
	}
	if err := f.step("write", name); err != nil {
		return err
	}
	if n == nil {
		n = &node{}
		d.children[base] = n
	}
	n.data, n.dirty = slices.Clone(data), true
	if err := f.step("fsync", name); err != nil {
		return err
	}
	n.durable, n.dirty = n.data, false
	return nil
}

// Rename moves oldname to newname in one "rename" step (path: newname).
func (f *FS) Rename(oldname, newname string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.check(); err != nil {
		return err
	}
	od, obase, err := f.parent("rename", oldname)
	if err != nil {
		return err
	}
	nd, nbase, err := f.parent("rename", newname)
	if err != nil {
		return err
	}
	n := od.children[obase]
	if n == nil {
		return &fs.PathError{Op: "rename", Path: oldname, Err: fs.ErrNotExist}
	}
	if t := nd.children[nbase]; t != nil && t.dir && len(t.children) > 0 {
		return &fs.PathError{Op: "rename", Path: newname, Err: errors.New("directory not empty")}
	}
	if err := f.step("rename", newname); err != nil {
		return err
	}
	delete(od.children, obase)
	nd.children[nbase] = n
	return nil
}

// Remove deletes a file or an empty directory in one "remove" step.
func (f *FS) Remove(name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.check(); err != nil {
		return err
	}
	return f.remove(name)
}

func (f *FS) remove(name string) error {
	d, base, err := f.parent("remove", name)
	if err != nil {
		return err
	}
	n := d.children[base]
	if n == nil {
		return &fs.PathError{Op: "remove", Path: name, Err: fs.ErrNotExist}
	}
	if n.dir && len(n.children) > 0 {
		return &fs.PathError{Op: "remove", Path: name, Err: errors.New("directory not empty")}
	}
	if err := f.step("remove", name); err != nil {
		return err
	}
	delete(d.children, base)
	return nil
}

// RemoveAll deletes p and everything below it, children first, one
// "remove" step per entry. A missing p is not an error.
func (f *FS) RemoveAll(p string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.check(); err != nil {
		return err
	}
	n, err := f.lookup("removeall", p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return f.removeAll(p, n)
}

func (f *FS) removeAll(p string, n *node) error {
	if n.dir {
		for _, name := range slices.Sorted(maps.Keys(n.children)) {
			if err := f.removeAll(path.Join(p, name), n.children[name]); err != nil {
				return err
			}
		}
	}
	return f.remove(p)
}

// ReadDir lists dir's current entries sorted by name.
func (f *FS) ReadDir(dir string) ([]fs.DirEntry, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.checkRead("readdir", dir); err != nil {
		return nil, err
	}
	d, err := f.lookup("readdir", dir)
	if err != nil {
		return nil, err
	}
	if !d.dir {
		return nil, &fs.PathError{Op: "readdir", Path: dir, Err: errors.New("not a directory")}
	}
	var out []fs.DirEntry
	for _, name := range slices.Sorted(maps.Keys(d.children)) {
		out = append(out, fs.FileInfoToDirEntry(fileInfo{name, d.children[name]}))
	}
	return out, nil
}

// ReadFile returns a copy of name's current content.
func (f *FS) ReadFile(name string) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.checkRead("read", name); err != nil {
		return nil, err
	}
	n, err := f.lookup("read", name)
	if err != nil {
		return nil, err
	}
	if n.dir {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errors.New("is a directory")}
	}
	return slices.Clone(n.data), nil
}

// Stat describes name.
func (f *FS) Stat(name string) (fs.FileInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.checkRead("stat", name); err != nil {
		return nil, err
	}
	n, err := f.lookup("stat", name)
	if err != nil {
		return nil, err
	}
	return fileInfo{path.Base("/" + strings.Trim(name, "/")), n}, nil
}

// SyncDir makes dir's current listing durable in one "syncdir" step.
func (f *FS) SyncDir(dir string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.check(); err != nil {
		return err
	}
	d, err := f.lookup("syncdir", dir)
	if err != nil {
		return err
	}
	if !d.dir {
		return &fs.PathError{Op: "syncdir", Path: dir, Err: errors.New("not a directory")}
	}
	if err := f.step("syncdir", dir); err != nil {
		return err
	}
	d.durableChildren = maps.Clone(d.children)
	return nil
}

// Flip XORs one byte of name's content with mask, durably, as silent
// corruption on the medium would. It is not a step.
func (f *FS) Flip(name string, offset int, mask byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	n, err := f.lookup("flip", name)
	if err != nil {
		return err
	}
	if n.dir || offset < 0 || offset >= len(n.data) {
		return &fs.PathError{Op: "flip", Path: name, Err: fs.ErrInvalid}
	}
	n.data = slices.Clone(n.data)
	n.data[offset] ^= mask
	if !n.dirty {
		n.durable = n.data
	}
	return nil
}

// Truncate cuts name's content to its first size bytes, durably, as a
// medium that loses a file's tail would. It is not a step.
func (f *FS) Truncate(name string, size int) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	n, err := f.lookup("truncate", name)
	if err != nil {
		return err
	}
	if n.dir || size < 0 || size > len(n.data) {
		return &fs.PathError{Op: "truncate", Path: name, Err: fs.ErrInvalid}
	}
	n.data = slices.Clone(n.data[:size])
	if !n.dirty {
		n.durable = n.data
	}
	return nil
}
