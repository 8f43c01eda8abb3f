package savepoint

import (
	"errors"
	"fmt"
	"io/fs"
)

// FS is the file system the stores write through. Paths are slash-separated.
// Errors for missing paths wrap fs.ErrNotExist. Implementations must be safe
// for concurrent use.
//
// Durability contract (what the stores rely on and what sim/simfs models):
// a file's content is durable once WriteFile returns; a directory entry
// (created by WriteFile, moved by Rename, deleted by Remove or RemoveAll) is
// durable only after SyncDir on its directory, except that the directories
// MkdirAll creates are durable when it returns.
type FS interface {
	// MkdirAll creates dir and any missing parents, making each new entry
	// durable. It is not an error if dir exists.
	MkdirAll(dir string) error
	// WriteFile creates or truncates name, writes data and syncs the file.
	WriteFile(name string, data []byte) error
	// Rename atomically moves oldname to newname, replacing newname.
	Rename(oldname, newname string) error
	// Remove deletes a file or an empty directory.
	Remove(name string) error
	// RemoveAll deletes path and everything below it; a missing path is
	// not an error.
	RemoveAll(path string) error
	// ReadDir lists dir sorted by name.
	ReadDir(dir string) ([]fs.DirEntry, error)
	// ReadFile returns the content of name.
	ReadFile(name string) ([]byte, error)
	// Stat describes name.
	Stat(name string) (fs.FileInfo, error)
	// SyncDir makes dir's entries durable.
	SyncDir(dir string) error
}

// exists reports whether name exists; errors other than not-exist are
// returned.
func exists(fsys FS, name string) (bool, error) {
	_, err := fsys.Stat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// readFile reads name; a missing file is a FileError for check wrapping
// missing (ErrNotFound, ErrIncomplete), any other failure one for "read".
func readFile(fsys FS, name, check string, missing error) ([]byte, error) {
	data, err := fsys.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &FileError{Path: name, Check: check, Err: fmt.Errorf("%w: %v", missing, err)}
	}
	if err != nil {
		return nil, &FileError{Path: name, Check: "read", Err: err}
	}
	return data, nil
}

// readFailed reports an error that says nothing about a file's bytes: the
// file system failed to read it (readFile's "read" check). The file may
// be intact, so a reader that skips what it cannot verify must not skip
// it: it would take an older checkpoint or savepoint for the newest.
func readFailed(err error) bool {
	var fe *FileError
	return errors.As(err, &fe) && fe.Check == "read"
}
