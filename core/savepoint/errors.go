package savepoint

import "errors"

// Sentinel errors. Errors returned by this package wrap one of them (test
// with errors.Is); errors about a stored file are a *FileError that names
// the file and the check that failed.
var (
	// ErrNotFound: no such savepoint, checkpoint or pipeline.
	ErrNotFound = errors.New("not found")
	// ErrCorrupt: a file is malformed, has the wrong length, or its ids do
	// not match where it was found.
	ErrCorrupt = errors.New("corrupt")
	// ErrChecksum: a SHA-256 check failed.
	ErrChecksum = errors.New("checksum mismatch")
	// ErrIncomplete: a bundle lacks a pipeline it must have (at commit:
	// an expected pipeline never wrote; at read: a payload file is missing).
	ErrIncomplete = errors.New("incomplete")
	// ErrUnexpected: a pipeline wrote that the savepoint did not expect.
	ErrUnexpected = errors.New("unexpected pipeline")
	// ErrDuplicate: a pipeline wrote twice into one savepoint.
	ErrDuplicate = errors.New("duplicate pipeline")
	// ErrExists: a committed savepoint with that id already exists.
	ErrExists = errors.New("already committed")
	// ErrClosed: the writer was aborted (or failed for good).
	ErrClosed = errors.New("writer closed")
	// ErrWrongType: a checkpoint of the wrong type for the operation (a
	// SAVEPOINT handed to checkpoint storage, or a non-savepoint handed
	// to a savepoint writer).
	ErrWrongType = errors.New("wrong checkpoint type")
	// ErrNewerFormat: a file was written by a newer engine, in a format
	// version above the supported window.
	ErrNewerFormat = errors.New("written by a newer engine")
	// ErrMigrationNeeded: a file is in a format version below the supported
	// window; it must be migrated before this engine can read it.
	ErrMigrationNeeded = errors.New("migration needed")
)

// FileError reports a failed check on one stored file.
type FileError struct {
	Path  string // the file (or directory) the check was made on
	Check string // what was checked: "sha-256", "length", "format version", ...
	Err   error  // wraps a sentinel above
}

func (e *FileError) Error() string {
	return "savepoint: " + e.Path + ": " + e.Check + ": " + e.Err.Error()
}

func (e *FileError) Unwrap() error { return e.Err }

// failed returns a *FileError for check whose path is filled in later by
// atPath; parsers use it because they do not know the file's name.
func failed(check string, err error) error {
	return &FileError{Check: check, Err: err}
}

// atPath names path in err, an error of a parser: every error the parsers
// return (DecodeCheckpointFile, ParseManifest, decodeEntryPayload) is a
// *FileError from failed, without a path, which gets this one. err is
// returned as it is.
func atPath(path string, err error) error {
	var fe *FileError
	if errors.As(err, &fe) && fe.Path == "" {
		fe.Path = path
	}
	return err
}
