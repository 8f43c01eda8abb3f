// Package savepoint stores savepoints as versioned, crash-safe bundles kept
// apart from checkpoints, and stores checkpoints beside them.
//
// It follows SeaTunnel's savepoint storage redesign (issue #11961, PR
// #11962): directory isolation, a versioned commit marker with a SHA-256
// manifest, and readers chosen by format version.
//
// # On-disk layout
//
//	<ns>/savepoint/<job>/<savepointID>/_metadata.ser          commit marker and manifest
//	<ns>/savepoint/<job>/<savepointID>/<pipeline>-<checkpoint>.ser   one payload per pipeline
//	<ns>/savepoint/<job>/.staging/<savepointID>-attempt-<n>/  an attempt in flight
//	<ns>/checkpoint/<job>/<pipeline>/<checkpointID>.ser       completed checkpoints
//
// Ids are decimal. Nothing under checkpoint/ ever refers to savepoint/ or
// the other way round: checkpoint rotation (Checkpoints.Rotate, run by every
// Checkpoints.Store) and job-terminal cleanup (Checkpoints.DeleteJob) only
// ever touch <ns>/checkpoint, so they cannot delete a savepoint. Savepoints
// are kept until Store.Delete or Store.DeleteAll.
//
// # Guarantees
//
// A savepoint is committed by the atomic rename of _metadata.ser.tmp to
// _metadata.ser inside the bundle directory, after every payload has been
// written and synced, moved into the bundle, and the bundle directory synced.
// A crash at any point leaves the set of committed savepoints either as it
// was or with the new one added, never a partial bundle (sim/simfs proves
// this at every step of a save). Commit refuses a bundle unless exactly the
// expected pipelines wrote, once each.
//
// Read verifies everything: the marker's checksum, its format version, that
// its ids match the directory, and each payload's presence, length, SHA-256,
// decoding and ids. List runs the same checks and skips (and logs) staging
// directories, directories without a marker and bundles that fail any check,
// so whatever List returns, Read can read. Every error about a stored file
// is a *FileError naming the file and the check; sentinel errors (ErrChecksum,
// ErrIncomplete, ErrNewerFormat, ErrMigrationNeeded, ...) classify it.
//
// Restore starts a pipeline from the newest committed savepoint of its job
// and falls back to the pipeline's newest checkpoint only when the job has
// no savepoint.
//
// # Formats
//
// The marker holds the format version (field 1) and, as its last field
// (15), the SHA-256 of every byte before it; both are frozen for all
// versions, so any engine can check the checksum and then the version. The
// checksum covers the whole marker, not only the manifest entries as in the
// upstream design, so no single flipped byte of a marker goes unnoticed.
// This engine writes FormatVersion and reads MinFormatVersion..FormatVersion:
// older markers fail with ErrMigrationNeeded, newer with ErrNewerFormat, both
// naming the file and the versions.
//
// Payloads are engine-wire-v1: explicit, never-reused field numbers; enums
// by name; the runtime-only CompletedCheckpoint.Restored left out; unknown
// fields skipped, so a newer writer may add fields. Checkpoint files are the
// same payload behind a magic prefix and format version, with a trailing
// SHA-256; a file without the magic is the frozen legacy v0 layout and is
// read by DecodeLegacy (testdata/golden pins both).
//
// # The wire layer and the standard-library rule
//
// The field-numbered layer is the protobuf wire format. core depends on the
// standard library only, so instead of importing
// google.golang.org/protobuf/encoding/protowire, wire.go implements the few
// primitives needed (tags, varints, length-delimited fields, skipping fixed
// fields) with encoding/binary's AppendUvarint and Uvarint, and the codecs
// see it only through the fieldSink interface and eachField. The package's
// tests prove the format against the library: every message the codecs
// write is parsed with protowire.ConsumeTag/ConsumeFieldValue, field by
// field and recursively, and re-encoded with protowire to the same bytes.
//
// # Durability and the file system
//
// Stores reach files only through FS. OSFS fsyncs written files and the
// directories whose entries must survive a crash; sim/simfs implements FS in
// memory with a crash model for the simulator. See FS for the contract.
//
// # Concurrency
//
// Store and Checkpoints hold no state beyond their configuration and may be
// shared. A Writer is shared by the coordinators of one job; its lock comes
// from env ("savepoint.writer") so the simulator can schedule around it. At
// most one Writer per (job, savepoint id) may be open at a time.
package savepoint
