package savepoint

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
)

// Manifest is the content of a bundle's commit marker (_metadata.ser): who
// wrote the savepoint, when, and the length and SHA-256 of every payload.
type Manifest struct {
	FormatVersion      uint64
	SavepointID        int64
	JobID              int64
	Producer           string // engine version that wrote it, or "unknown"
	TriggerTimestampMs int64
	Entries            []ManifestEntry // one per pipeline, sorted by pipeline id
}

// ManifestEntry describes one payload file of a bundle.
type ManifestEntry struct {
	PipelineID    int32
	CheckpointID  int64
	File          string // base name, always PayloadFile(PipelineID, CheckpointID)
	Length        int64
	SHA256        string // lowercase hex
	PayloadFormat string // PayloadFormatV1
}

// Metadata file field numbers. Fields 1 and 15 form the envelope, frozen for
// every format version: 1 is the format version and 15, which must be the
// last field, is the SHA-256 of every byte before its tag.
const (
	mfVersion     = 1
	mfSavepointID = 2
	mfJobID       = 3
	mfProducer    = 4
	mfTriggerMs   = 5
	mfEntry       = 6 // repeated WireManifestEntry
	mfChecksum    = 15

	meFile          = 3
	mePipelineID    = 1
	meCheckpointID  = 2
	meLength        = 4
	meSHA256        = 5
	mePayloadFormat = 6
)

// PayloadFile is the base name of a pipeline's payload file in a bundle.
func PayloadFile(pipeline int32, checkpoint int64) string {
	return fmt.Sprintf("%d-%d.ser", pipeline, checkpoint)
}

// marshal encodes m in its FormatVersion's layout (only v1 exists) and seals
// it with the envelope checksum.
func (m *Manifest) marshal() []byte {
	var w wireBuf
	w.Varint(mfVersion, m.FormatVersion)
	putInt64(&w, mfSavepointID, m.SavepointID)
	putInt64(&w, mfJobID, m.JobID)
	putString(&w, mfProducer, m.Producer)
	putInt64(&w, mfTriggerMs, m.TriggerTimestampMs)
	for _, e := range m.Entries {
		w.Message(mfEntry, func(s fieldSink) {
			putInt32(s, mePipelineID, e.PipelineID)
			putInt64(s, meCheckpointID, e.CheckpointID)
			putString(s, meFile, e.File)
			putInt64(s, meLength, e.Length)
			putString(s, meSHA256, e.SHA256)
			putString(s, mePayloadFormat, e.PayloadFormat)
		})
	}
	sum := sha256.Sum256(w.b)
	w.Bytes(mfChecksum, sum[:])
	return w.b
}

// ParseManifest verifies and decodes a commit marker: envelope checksum
// first, then the format version against the supported window, then the
// layout of that version. Errors are *FileError values without a path.
func ParseManifest(data []byte) (*Manifest, error) {
	version, body, err := openEnvelope(data)
	if err != nil {
		return nil, err
	}
	r, err := formats.lookup(version)
	if err != nil {
		return nil, failed("format version", err)
	}
	m, err := r.parseManifest(body)
	if err != nil {
		return nil, failed("manifest", err)
	}
	return m, nil
}

// openEnvelope checks the trailing checksum and returns the format version
// and the bytes it covers.
func openEnvelope(data []byte) (uint64, []byte, error) {
	var sum *field
	var version *field
	err := eachField(data, func(f field) error {
		if sum != nil {
			return fmt.Errorf("%w: field %d follows the checksum", ErrCorrupt, f.num)
		}
		switch f.num {
		case mfChecksum:
			sum = &f
		case mfVersion:
			version = &f
		}
		return nil
	})
	if err != nil {
		return 0, nil, failed("manifest framing", err)
	}
	if err := checkEnvelopeSum(data, sum); err != nil {
		return 0, nil, err
	}
	if version == nil || version.wantType(wireVarint) != nil {
		return 0, nil, failed("format version", fmt.Errorf("%w: no varint format version", ErrCorrupt))
	}
	return version.u, data[:sum.off], nil
}

func checkEnvelopeSum(data []byte, sum *field) error {
	if sum == nil || sum.typ != wireBytes {
		return failed("manifest checksum", fmt.Errorf("%w: checksum field missing", ErrChecksum))
	}
	got := sha256.Sum256(data[:sum.off])
	if !bytes.Equal(got[:], sum.b) {
		return failed("manifest checksum", fmt.Errorf("%w: sha-256 %x, recorded %x", ErrChecksum, got, sum.b))
	}
	return nil
}

// parseManifestV1 decodes and validates a v1 body (envelope excluded).
func parseManifestV1(body []byte) (*Manifest, error) {
	m := &Manifest{}
	err := eachField(body, func(f field) error { return m.decodeField(f) })
	if err != nil {
		return nil, err
	}
	slices.SortFunc(m.Entries, func(a, b ManifestEntry) int { return cmp.Compare(a.PipelineID, b.PipelineID) })
	return m, m.validate()
}

func (m *Manifest) decodeField(f field) error {
	switch f.num {
	case mfVersion:
		m.FormatVersion = f.u
		return f.wantType(wireVarint)
	case mfSavepointID:
		return f.int64(&m.SavepointID)
	case mfJobID:
		return f.int64(&m.JobID)
	case mfProducer:
		return f.string(&m.Producer)
	case mfTriggerMs:
		return f.int64(&m.TriggerTimestampMs)
	case mfEntry:
		e, err := decodeEntry(f)
		m.Entries = append(m.Entries, e)
		return err
	}
	return nil
}

func decodeEntry(f field) (ManifestEntry, error) {
	var e ManifestEntry
	if err := f.wantType(wireBytes); err != nil {
		return e, err
	}
	err := eachField(f.b, func(f field) error {
		switch f.num {
		case mePipelineID:
			return f.int32(&e.PipelineID)
		case meCheckpointID:
			return f.int64(&e.CheckpointID)
		case meFile:
			return f.string(&e.File)
		case meLength:
			return f.int64(&e.Length)
		case meSHA256:
			return f.string(&e.SHA256)
		case mePayloadFormat:
			return f.string(&e.PayloadFormat)
		}
		return nil
	})
	return e, err
}

// validate checks what a v1 reader relies on: a positive id, at least one
// entry, one entry per pipeline, file names derived from the ids (so a
// manifest can never point outside its bundle), sane lengths, well-formed
// hashes and the v1 payload format.
func (m *Manifest) validate() error {
	if m.SavepointID <= 0 {
		return fmt.Errorf("%w: savepoint id %d", ErrCorrupt, m.SavepointID)
	}
	if len(m.Entries) == 0 {
		return fmt.Errorf("%w: no entries", ErrCorrupt)
	}
	for i, e := range m.Entries {
		if i > 0 && m.Entries[i-1].PipelineID == e.PipelineID {
			return fmt.Errorf("%w: pipeline %d listed twice", ErrCorrupt, e.PipelineID)
		}
		if err := e.validate(); err != nil {
			return err
		}
	}
	return nil
}

func (e ManifestEntry) validate() error {
	switch {
	case e.File != PayloadFile(e.PipelineID, e.CheckpointID):
		return fmt.Errorf("%w: entry file %q does not match pipeline %d checkpoint %d", ErrCorrupt, e.File, e.PipelineID, e.CheckpointID)
	case e.Length < 0:
		return fmt.Errorf("%w: entry %s: length %d", ErrCorrupt, e.File, e.Length)
	case !isSHA256Hex(e.SHA256):
		return fmt.Errorf("%w: entry %s: sha-256 %q is not 64 lowercase hex digits", ErrCorrupt, e.File, e.SHA256)
	case e.PayloadFormat != PayloadFormatV1:
		return fmt.Errorf("%w: entry %s: payload format %q in a v1 manifest", ErrCorrupt, e.File, e.PayloadFormat)
	}
	return nil
}

func isSHA256Hex(s string) bool {
	b, err := hex.DecodeString(s)
	return err == nil && len(b) == sha256.Size && hex.EncodeToString(b) == s
}

// sha256Hex returns the lowercase hex SHA-256 of b.
func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
