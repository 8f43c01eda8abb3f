package savepoint

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// goldenManifest is the manifest pinned by testdata/golden/v1-metadata.ser.
func goldenManifest(version uint64) *Manifest {
	payload := EncodePayload(goldenCheckpoint())
	return &Manifest{FormatVersion: version, SavepointID: 1_767_225_600_000, JobID: 1001, Producer: "ckptsim-test",
		TriggerTimestampMs: 1_767_225_600_000, Entries: []ManifestEntry{{PipelineID: 1, CheckpointID: 17,
			File: "1-17.ser", Length: int64(len(payload)), SHA256: sha256Hex(payload), PayloadFormat: PayloadFormatV1}}}
}

func TestGoldenV0AndV1DecodeToTheSameState(t *testing.T) {
	v0 := golden(t, "golden/legacy-v0.bin", encodeLegacyV0(goldenCheckpoint()))
	v1 := golden(t, "golden/v1.bin", EncodePayload(goldenCheckpoint()))
	fromV0, err := DecodeLegacy(v0)
	if err != nil {
		t.Fatalf("legacy reader: %v", err)
	}
	fromV1, err := DecodePayload(v1)
	if err != nil {
		t.Fatalf("v1 reader: %v", err)
	}
	if diff := cmp.Diff(fromV0, fromV1, stateOpts); diff != "" {
		t.Errorf("v0 and v1 golden differ (-v0 +v1):\n%s", diff)
	}
	if diff := cmp.Diff(goldenCheckpoint(), fromV1, stateOpts); diff != "" {
		t.Errorf("golden v1 is not the golden state (-want +got):\n%s", diff)
	}
	if fromV0.Restored {
		t.Error("legacy reader kept the runtime-only restored flag")
	}
}

func TestEncodersStillWriteTheGoldenBytes(t *testing.T) {
	pins := map[string][]byte{
		"golden/v1.bin":          EncodePayload(goldenCheckpoint()),
		"golden/legacy-v0.bin":   encodeLegacyV0(goldenCheckpoint()),
		"golden/v1-metadata.ser": goldenManifest(1).marshal(),
		"golden/v1-checkpoint":   EncodeCheckpointFile(goldenCheckpoint()),
	}
	for name, got := range pins {
		if want := golden(t, name, got); !bytes.Equal(got, want) {
			t.Errorf("%s: the encoder no longer writes the pinned bytes; a stored format changed", name)
		}
	}
}

func TestGoldenManifestParses(t *testing.T) {
	m, err := ParseManifest(golden(t, "golden/v1-metadata.ser", goldenManifest(1).marshal()))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(goldenManifest(1), m); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestVersionMarkersOutsideTheWindow(t *testing.T) {
	cases := []struct {
		file    string
		version uint64
		want    error
		says    string
	}{
		{"golden/v2-metadata.ser", 2, ErrNewerFormat, "format version 2 is above the supported window 1..1"},
		{"golden/v0-metadata.ser", 0, ErrMigrationNeeded, "format version 0 is below the supported window 1..1"},
	}
	for _, tt := range cases {
		data := golden(t, tt.file, goldenManifest(tt.version).marshal())
		_, err := ParseManifest(data)
		if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("%s: err = %v, want %v saying %q", tt.file, err, tt.want, tt.says)
		}
		// Through a store the error also names the file.
		dir := t.TempDir()
		s := NewStore(OSFS{}, dir, testEnv, Options{})
		marker := installBundle(t, dir, 1001, 1_767_225_600_000, data, goldenCheckpoint())
		_, err = s.Read(1001, 1_767_225_600_000)
		var fe *FileError
		if !errors.As(err, &fe) || fe.Path != marker || fe.Check != "format version" || !errors.Is(err, tt.want) {
			t.Errorf("%s via Read: err = %v, want a FileError on %s for the format version", tt.file, err, marker)
		}
	}
}

// installBundle writes a bundle directory by hand and returns its marker.
func installBundle(t *testing.T, ns string, job, id int64, marker []byte, cps ...*CompletedCheckpoint) string {
	t.Helper()
	dir := filepath.Join(ns, SavepointDir, itoa(job), itoa(id))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range cps {
		if err := os.WriteFile(filepath.Join(dir, PayloadFile(c.PipelineID, c.CheckpointID)), EncodePayload(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, MetadataFile)
	if err := os.WriteFile(path, marker, 0o644); err != nil {
		t.Fatal(err)
	}
	return filepath.ToSlash(path)
}

func TestCheckpointFileVersions(t *testing.T) {
	c := goldenCheckpoint()
	c.Type = TypeCheckpoint
	legacy := golden(t, "golden/legacy-v0.bin", encodeLegacyV0(goldenCheckpoint()))
	got, err := DecodeCheckpointFile(legacy)
	if err != nil || got.CheckpointID != 17 {
		t.Fatalf("legacy fallback: %v, %v", got, err)
	}
	b := EncodeCheckpointFile(c)
	if got, err := DecodeCheckpointFile(b); err != nil || got.Type != TypeCheckpoint {
		t.Fatalf("round trip: %v, %v", got, err)
	}
	b[len(checkpointMagic)] = 2 // version 2, checksum now wrong
	if _, err := DecodeCheckpointFile(b); !errors.Is(err, ErrChecksum) {
		t.Errorf("tampered version: %v, want ErrChecksum", err)
	}
	b = reseal(b)
	if _, err := DecodeCheckpointFile(b); !errors.Is(err, ErrNewerFormat) {
		t.Errorf("version 2: %v, want ErrNewerFormat", err)
	}
}

func TestRegistryWindow(t *testing.T) {
	r := registry{min: 2, max: 3, readers: map[uint64]formatReader{2: {}, 3: {}}}
	for v, want := range map[uint64]error{0: ErrMigrationNeeded, 1: ErrMigrationNeeded, 2: nil, 3: nil, 4: ErrNewerFormat} {
		if _, err := r.lookup(v); !errors.Is(err, want) || (want == nil) != (err == nil) {
			t.Errorf("lookup(%d) = %v, want %v", v, err, want)
		}
	}
	r.max = 4
	if _, err := r.lookup(4); !errors.Is(err, ErrCorrupt) {
		t.Errorf("a version inside the window without a reader: %v", err)
	}
}
