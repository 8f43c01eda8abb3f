package savepoint

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"testing"
)

// The decoders' checks behind an intact checksum: a committed file whose
// SHA-256 (or a manifest whose envelope checksum) matches was written
// whole, so only a writer bug makes one of these, and no simulation does
// (results/coverage/defensive.txt). Each is an error wrapping ErrCorrupt.

// TestManifestValidateBehindItsChecksum: a manifest sealed with a good
// envelope checksum around fields a v1 reader cannot rely on.
func TestManifestValidateBehindItsChecksum(t *testing.T) {
	sum := sha256Hex([]byte("x"))
	entry := func(p int32, id int64) ManifestEntry {
		return ManifestEntry{PipelineID: p, CheckpointID: id, File: PayloadFile(p, id), Length: 1, SHA256: sum, PayloadFormat: PayloadFormatV1}
	}
	good := Manifest{FormatVersion: FormatVersion, SavepointID: 7, JobID: 1, Producer: "t", Entries: []ManifestEntry{entry(1, 7), entry(2, 7)}}
	if _, err := ParseManifest(good.marshal()); err != nil {
		t.Fatalf("the good manifest: %v", err)
	}
	cases := map[string]func(m *Manifest){
		"savepoint id 0":      func(m *Manifest) { m.SavepointID = 0 },
		"no entries":          func(m *Manifest) { m.Entries = nil },
		"a pipeline twice":    func(m *Manifest) { m.Entries[1].PipelineID = 1; m.Entries[1].File = PayloadFile(1, 7) },
		"a file of other ids": func(m *Manifest) { m.Entries[0].File = "../x" },
		"a negative length":   func(m *Manifest) { m.Entries[0].Length = -1 },
		"a bad sha-256":       func(m *Manifest) { m.Entries[0].SHA256 = "ABC" },
		"a v2 payload format": func(m *Manifest) { m.Entries[0].PayloadFormat = "engine-wire-v2" },
	}
	for name, mutate := range cases {
		m := good
		m.Entries = append([]ManifestEntry(nil), good.Entries...)
		mutate(&m)
		if _, err := ParseManifest(m.marshal()); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: err = %v, want ErrCorrupt", name, err)
		}
	}
	// An entry of the wrong wire type, and an unknown field inside an
	// entry, behind a good envelope checksum.
	var w wireBuf
	w.Varint(mfVersion, FormatVersion)
	putInt64(&w, mfSavepointID, 7)
	w.Varint(mfEntry, 1)
	s := sha256.Sum256(w.b)
	w.Bytes(mfChecksum, s[:])
	if _, err := ParseManifest(w.b); !errors.Is(err, ErrCorrupt) {
		t.Errorf("an entry as a varint: err = %v, want ErrCorrupt", err)
	}
	w = wireBuf{}
	w.Varint(mfVersion, FormatVersion)
	putInt64(&w, mfSavepointID, 7)
	e := entry(1, 7)
	w.Message(mfEntry, func(s fieldSink) {
		putInt32(s, mePipelineID, e.PipelineID)
		putInt64(s, meCheckpointID, e.CheckpointID)
		putString(s, meFile, e.File)
		putInt64(s, meLength, e.Length)
		putString(s, meSHA256, e.SHA256)
		putString(s, mePayloadFormat, e.PayloadFormat)
		s.Varint(90, 1)
	})
	w.Varint(90, 1)
	s = sha256.Sum256(w.b)
	w.Bytes(mfChecksum, s[:])
	if _, err := ParseManifest(w.b); err != nil {
		t.Errorf("unknown fields in a manifest and an entry: %v, want them skipped", err)
	}
}

// TestCheckpointFileBehindItsChecksum: a checkpoint file whose SHA-256
// matches but whose version varint or payload is malformed.
func TestCheckpointFileBehindItsChecksum(t *testing.T) {
	valid := EncodeCheckpointFile(goldenCheckpoint())
	body := valid[:len(valid)-sha256.Size]
	_, n := binary.Uvarint(body[len(checkpointMagic):])
	seal := func(b []byte) []byte {
		s := sha256.Sum256(b)
		return append(b, s[:]...)
	}
	for name, b := range map[string][]byte{
		"a version that is no varint":    seal(append([]byte(checkpointMagic), 0x80)),
		"a payload that does not decode": seal(append(append([]byte(nil), body[:len(checkpointMagic)+n]...), 0x0a)),
	} {
		if _, err := DecodeCheckpointFile(b); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: err = %v, want ErrCorrupt", name, err)
		}
	}
}

// TestEntryPayloadBehindItsChecksum: a payload that passed its manifest
// entry's length and SHA-256, decoded through a reader the manifest names
// badly, failing to decode, or carrying other ids than its entry.
func TestEntryPayloadBehindItsChecksum(t *testing.T) {
	c := goldenCheckpoint()
	data := EncodePayload(c)
	m := &Manifest{FormatVersion: FormatVersion, JobID: c.JobID}
	e := ManifestEntry{PipelineID: c.PipelineID, CheckpointID: c.CheckpointID, PayloadFormat: PayloadFormatV1}
	if _, err := decodeEntryPayload(m, e, data); err != nil {
		t.Fatalf("the good payload: %v", err)
	}
	other := *m
	other.FormatVersion = FormatVersion + 1
	badFormat, otherIDs := e, e
	badFormat.PayloadFormat = "engine-wire-v9"
	otherIDs.CheckpointID++
	for name, call := range map[string]func() error{
		"an unsupported version": func() error { _, err := decodeEntryPayload(&other, e, data); return err },
		"an unknown format":      func() error { _, err := decodeEntryPayload(m, badFormat, data); return err },
		"a payload that does not decode": func() error {
			_, err := decodeEntryPayload(m, e, data[:len(data)-1])
			return err
		},
		"other ids": func() error { _, err := decodeEntryPayload(m, otherIDs, data); return err },
	} {
		if err := call(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
