package savepoint

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
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

// legacyEnvelope is a legacy v0 PipelineState around the checkpoint bytes
// inner (none when inner is nil).
func legacyEnvelope(job int64, pipeline int32, id int64, inner []byte) []byte {
	var env wireBuf
	putInt64(&env, lpJobID, job)
	putInt32(&env, lpPipelineID, pipeline)
	putInt64(&env, lpCheckpointID, id)
	if inner != nil {
		env.Bytes(lpStates, inner)
	}
	return env.b
}

// legacyInner is a v0 CompletedCheckpoint with the given ids, of type
// CHECKPOINT unless body writes its own, followed by what body writes.
func legacyInner(job int64, pipeline int32, id int64, typed bool, body func(w *wireBuf)) []byte {
	var w wireBuf
	putInt64(&w, lcJobID, job)
	putInt32(&w, lcPipelineID, pipeline)
	putInt64(&w, lcCheckpointID, id)
	if typed {
		w.Varint(lcType, 0)
	}
	body(&w)
	return w.b
}

// TestLegacyRejectsMalformedCheckpoints: a legacy v0 file whose envelope
// frames whole but holds a checkpoint that does not decode, of other ids
// than the envelope, without a type or with a type ordinal out of range, or
// with a map entry (an action state) that is no message or has no value.
// Each is refused with ErrCorrupt and says what was wrong, and
// DecodeCheckpointFile reports it as the failed legacy v0 decode. v0 files
// have no checksum, but nothing writes v0 any more and the harness's
// legacy files are well formed; its bit_rot tears a legacy file inside the
// checkpoint field, so that the envelope no longer frames
// (workloads/cluster TestLegacyTearRefused), and no simulation makes one
// of these (results/coverage/defensive.txt).
func TestLegacyRejectsMalformedCheckpoints(t *testing.T) {
	none := func(*wireBuf) {}
	good := legacyEnvelope(job, 1, 5, legacyInner(job, 1, 5, true, none))
	good = protowire.AppendVarint(protowire.AppendTag(good, 9, protowire.VarintType), 1) // an unknown envelope field: skipped
	if c, err := DecodeLegacy(good); err != nil || c.JobID != job || c.PipelineID != 1 || c.CheckpointID != 5 || c.Type != TypeCheckpoint {
		t.Fatalf("the good legacy file: %+v, %v", c, err)
	}
	for name, tt := range map[string]struct {
		b    []byte
		want string
	}{
		"a checkpoint that does not frame": {legacyEnvelope(job, 1, 5, []byte{0x0a}), "bad length"},
		"ids other than the envelope's":    {legacyEnvelope(job, 1, 5, legacyInner(job, 1, 6, true, none)), "legacy envelope 1001/1/5 holds checkpoint 1001/1/6"},
		"no checkpoint":                    {legacyEnvelope(job, 1, 5, nil), "legacy checkpoint type missing"},
		"no checkpoint type":               {legacyEnvelope(job, 1, 5, legacyInner(job, 1, 5, false, none)), "legacy checkpoint type missing"},
		"a type ordinal out of range": {legacyEnvelope(job, 1, 5, legacyInner(job, 1, 5, false, func(w *wireBuf) {
			w.Varint(lcType, 99)
		})), "legacy checkpoint type ordinal 99"},
		"an action entry as a varint": {legacyEnvelope(job, 1, 5, legacyInner(job, 1, 5, true, func(w *wireBuf) {
			w.Varint(lcActionState, 1)
		})), "field 8 has wire type 0"},
		"an action entry without a value": {legacyEnvelope(job, 1, 5, legacyInner(job, 1, 5, true, func(w *wireBuf) {
			w.Message(lcActionState, func(m fieldSink) { putString(m, mapKey, "source") })
		})), "legacy map entry without value"},
	} {
		_, err := DecodeLegacy(tt.b)
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want ErrCorrupt saying %q", name, err, tt.want)
		}
		var fe *FileError
		if _, err := DecodeCheckpointFile(tt.b); !errors.As(err, &fe) || fe.Check != "legacy v0 decode" || !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: DecodeCheckpointFile err = %v, want the legacy v0 decode failed", name, err)
		}
	}
}

// TestManifestEnvelopeRefusals: a commit marker with a field after its
// checksum, torn inside a field, sealed without a format version, or with
// no checksum field (torn at a field boundary) is refused by its envelope
// check, before any field of the body is believed. A committed marker is
// written and synced before the rename that commits it, so no crash tears
// one, and savepoint_rot flips a bit of the producer name, which the
// checksum catches (results/coverage/defensive.txt).
func TestManifestEnvelopeRefusals(t *testing.T) {
	m := Manifest{FormatVersion: FormatVersion, SavepointID: 7, JobID: 1, Producer: "t", Entries: []ManifestEntry{{
		PipelineID: 1, CheckpointID: 7, File: PayloadFile(1, 7), Length: 1, SHA256: sha256Hex([]byte("x")), PayloadFormat: PayloadFormatV1}}}
	good := m.marshal()
	sumAt := len(good) - 2 - sha256.Size // the checksum field's tag
	var noVersion wireBuf
	putInt64(&noVersion, mfSavepointID, 7)
	for name, tt := range map[string]struct {
		b     []byte
		check string
		want  error
		say   string
	}{
		"a field after the checksum": {append(append([]byte(nil), good...), 0x10, 0x01), "manifest framing", ErrCorrupt, "field 2 follows the checksum"},
		"torn inside the checksum":   {good[:len(good)-1], "manifest framing", ErrCorrupt, "bad length"},
		"torn before the checksum":   {good[:sumAt], "manifest checksum", ErrChecksum, "checksum field missing"},
		"no format version":          {sealManifest(noVersion.b), "format version", ErrCorrupt, "no varint format version"},
	} {
		_, err := ParseManifest(tt.b)
		var fe *FileError
		if !errors.As(err, &fe) || fe.Check != tt.check || !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.say) {
			t.Errorf("%s: err = %v, want %v on the %s saying %q", name, err, tt.want, tt.check, tt.say)
		}
	}
}

// TestPayloadBehindItsChecksumNamesTheFile: a bundle whose payload matches
// the length and SHA-256 its manifest entry records but does not decode is
// refused by Read with a *FileError naming the payload file and the decode
// check (Store.readPayload). The manifest records the SHA-256 of what the
// writer wrote, so only a writer bug makes one.
func TestPayloadBehindItsChecksumNamesTheFile(t *testing.T) {
	s, ns, _ := newTestStore(t)
	junk := []byte{0x0a} // a bytes field without its length
	m := Manifest{FormatVersion: FormatVersion, SavepointID: 4, JobID: job, Producer: "t", Entries: []ManifestEntry{{
		PipelineID: 1, CheckpointID: 40, File: PayloadFile(1, 40), Length: int64(len(junk)), SHA256: sha256Hex(junk), PayloadFormat: PayloadFormatV1}}}
	marker := installBundle(t, ns, job, 4, m.marshal())
	payload := path.Join(path.Dir(marker), PayloadFile(1, 40))
	mustOS(t, os.WriteFile(filepath.FromSlash(payload), junk, 0o644))
	var fe *FileError
	if _, err := s.Read(job, 4); !errors.As(err, &fe) || fe.Path != payload || fe.Check != "decode" || !errors.Is(err, ErrCorrupt) {
		t.Errorf("Read = %v, want a decode FileError on %s wrapping ErrCorrupt", err, payload)
	}
}

// TestCheckpointFileOfOtherIDs: a checkpoint file that passes its checksum
// but holds another checkpoint's ids (a file copied under another name) is
// refused by Read with a *FileError naming the file and the ids check, and
// Latest skips it for the older one. The store writes every checkpoint
// under its own ids and no simulated fault moves a file.
func TestCheckpointFileOfOtherIDs(t *testing.T) {
	ns := filepath.ToSlash(t.TempDir())
	cp, log := newTestCheckpoints(t, ns, 0)
	if err := cp.Store(sampleCheckpoint(job, 1, 1, TypeCheckpoint)); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(ns, CheckpointDir, "1001", "1")
	b, err := os.ReadFile(filepath.Join(dir, "1.ser"))
	mustOS(t, err)
	mustOS(t, os.WriteFile(filepath.Join(dir, "2.ser"), b, 0o644))
	copied := filepath.ToSlash(filepath.Join(dir, "2.ser"))
	var fe *FileError
	if _, err := cp.Read(job, 1, 2); !errors.As(err, &fe) || fe.Path != copied || fe.Check != "ids" || !errors.Is(err, ErrCorrupt) ||
		!strings.Contains(err.Error(), "file holds job 1001 pipeline 1 checkpoint 1") {
		t.Errorf("Read = %v, want an ids FileError on %s", err, copied)
	}
	if c, err := cp.Latest(job, 1); err != nil || c.CheckpointID != 1 || !logged(log, "skip", "2.ser") {
		t.Errorf("Latest = %v, %v (log %v); want checkpoint 1, 2.ser skipped", c, err, log.lines)
	}
}

// TestAtPathNamesOnlyAPathlessFileError: atPath fills in the path of a
// parser's *FileError and leaves one that has a path, and any other error,
// as they are.
func TestAtPathNamesOnlyAPathlessFileError(t *testing.T) {
	err := atPath("a/b.ser", failed("sha-256", ErrChecksum))
	var fe *FileError
	if !errors.As(err, &fe) || fe.Path != "a/b.ser" || fe.Check != "sha-256" || !errors.Is(err, ErrChecksum) {
		t.Errorf("pathless: %v", err)
	}
	named := &FileError{Path: "c.ser", Check: "length", Err: ErrCorrupt}
	if got := atPath("a/b.ser", named); got != error(named) || named.Path != "c.ser" {
		t.Errorf("named: %v", got)
	}
	if got := atPath("a/b.ser", ErrCorrupt); got != ErrCorrupt {
		t.Errorf("plain: %v", got)
	}
}
