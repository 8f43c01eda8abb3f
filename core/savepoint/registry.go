package savepoint

import "fmt"

// Format versions. A file records the version it was written in; this
// engine writes FormatVersion and reads MinFormatVersion..FormatVersion.
// Version 0 is the unversioned legacy layout (see DecodeLegacy), which a
// bundle can never carry.
const (
	FormatVersion    = 1
	MinFormatVersion = 1
)

// formatReader reads the files of one format version.
type formatReader struct {
	parseManifest func(body []byte) (*Manifest, error)
	// payloads decode payload bytes by the payload format the manifest
	// names (savepoints) or the version implies (checkpoint files).
	payloads map[string]func([]byte) (*CompletedCheckpoint, error)
	// checkpointFormat is the payload format of a checkpoint file.
	checkpointFormat string
}

// registry dispatches by format version within a supported window.
type registry struct {
	min, max uint64
	readers  map[uint64]formatReader
}

// formats is the registry this engine reads with.
var formats = registry{
	min: MinFormatVersion,
	max: FormatVersion,
	readers: map[uint64]formatReader{
		1: {
			parseManifest:    parseManifestV1,
			payloads:         map[string]func([]byte) (*CompletedCheckpoint, error){PayloadFormatV1: DecodePayload},
			checkpointFormat: PayloadFormatV1,
		},
	},
}

// lookup returns the reader for version, or an error that says whether the
// file needs migrating (too old) or a newer engine (too new).
func (r registry) lookup(version uint64) (formatReader, error) {
	switch {
	case version < r.min:
		return formatReader{}, fmt.Errorf("%w: format version %d is below the supported window %d..%d; "+
			"migrate it to version %d before restoring", ErrMigrationNeeded, version, r.min, r.max, r.min)
	case version > r.max:
		return formatReader{}, fmt.Errorf("%w: format version %d is above the supported window %d..%d; "+
			"restore it with the engine that wrote it or a newer one", ErrNewerFormat, version, r.min, r.max)
	}
	fr, ok := r.readers[version]
	if !ok {
		return formatReader{}, fmt.Errorf("%w: no reader for format version %d", ErrCorrupt, version)
	}
	return fr, nil
}
