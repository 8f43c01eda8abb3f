package savepoint

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protowire"
)

// Seed corpus: testdata/fuzz/<target>/<name>, written by TestFuzzCorpus
// under -update. A longer run:
//
//	go test ./core/savepoint -run '^$' -fuzz '^FuzzDecodePayload$' -fuzztime 5m
//	go test ./core/savepoint -run '^$' -fuzz '^FuzzParseManifest$' -fuzztime 5m

func payloadSeeds() map[string][]byte {
	return map[string][]byte{
		"golden-v1":      EncodePayload(goldenCheckpoint()),
		"minimal":        EncodePayload(&CompletedCheckpoint{Type: TypeCheckpoint}),
		"negative-ids":   EncodePayload(sampleCheckpoint(-1, -2, -3, TypeCompletedPoint)),
		"legacy-v0":      encodeLegacyV0(goldenCheckpoint()),
		"truncated":      EncodePayload(goldenCheckpoint())[:40],
		"unknown-fields": protowire.AppendBytes(protowire.AppendTag(EncodePayload(goldenCheckpoint()), 77, protowire.BytesType), []byte("x")),
	}
}

func manifestSeeds() map[string][]byte {
	return map[string][]byte{
		"golden-v1":   goldenManifest(1).marshal(),
		"v2-marker":   goldenManifest(2).marshal(),
		"v0-marker":   goldenManifest(0).marshal(),
		"no-checksum": goldenManifest(1).marshal()[:100],
		"empty":       {},
	}
}

// FuzzDecodePayload: DecodePayload never panics; whatever it accepts,
// protowire parses into the same top-level fields, and re-encoding it is a
// fixed point (decode(encode(x)) == x).
func FuzzDecodePayload(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := DecodePayload(b)
		if err != nil {
			return
		}
		if err := eachField(b, func(field) error { return nil }); err != nil {
			t.Fatalf("accepted a payload eachField rejects: %v", err)
		}
		for rest := b; len(rest) > 0; {
			_, _, n := protowire.ConsumeField(rest)
			if n < 0 {
				t.Fatalf("accepted a payload protowire rejects: %v", protowire.ParseError(n))
			}
			rest = rest[n:]
		}
		again, err := DecodePayload(EncodePayload(c))
		if err != nil {
			t.Fatalf("re-encoding failed to decode: %v", err)
		}
		if diff := cmp.Diff(c, again, stateOpts); diff != "" {
			t.Fatalf("re-encoding changed the state:\n%s", diff)
		}
	})
}

// FuzzParseManifest: ParseManifest never panics on raw input, nor on the
// input sealed with a valid checksum (so the fuzzer reaches the body parser
// past the SHA-256 it cannot forge); an accepted manifest is valid and
// marshals to something that parses back to it.
func FuzzParseManifest(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, in := range [][]byte{b, sealManifest(b)} {
			m, err := ParseManifest(in)
			if err != nil {
				continue
			}
			if err := m.validate(); err != nil {
				t.Fatalf("accepted an invalid manifest: %v", err)
			}
			again, err := ParseManifest(m.marshal())
			if err != nil {
				t.Fatalf("re-marshalled manifest rejected: %v", err)
			}
			if diff := cmp.Diff(m, again); diff != "" {
				t.Fatalf("re-marshalling changed the manifest:\n%s", diff)
			}
		}
	})
}

// sealManifest appends a valid envelope checksum to body.
func sealManifest(body []byte) []byte {
	sum := sha256.Sum256(body)
	return protowire.AppendBytes(protowire.AppendTag(bytes.Clone(body), mfChecksum, protowire.BytesType), sum[:])
}

// TestFuzzCorpus keeps the checked-in seed corpus in step with the seeds
// above (rewrite with -update) so that plain go test runs it.
func TestFuzzCorpus(t *testing.T) {
	for target, seeds := range map[string]map[string][]byte{
		"FuzzDecodePayload": payloadSeeds(),
		"FuzzParseManifest": manifestSeeds(),
	} {
		for name, b := range seeds {
			file := filepath.Join("testdata", "fuzz", target, name)
			want := fmt.Sprintf("go test fuzz v1\n[]byte(%s)\n", strconv.Quote(string(b)))
			if *update {
				mustOS(t, os.MkdirAll(filepath.Dir(file), 0o755))
				mustOS(t, os.WriteFile(file, []byte(want), 0o644))
			}
			got, err := os.ReadFile(file)
			if err != nil || string(got) != want {
				t.Errorf("%s is missing or stale (run go test -run TestFuzzCorpus -update): %v", file, err)
			}
		}
	}
}
