package savepoint

import (
	"bytes"
	"fmt"
	"math"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// schema maps a field number to the schema of the message it holds, for
// length-delimited fields that are messages; other fields map to nothing.
type schema map[int]schema

var (
	subtaskStateSchema = schema{}
	actionSchema       = schema{asSubtask: subtaskStateSchema}
	subtaskStatsSchema = schema{}
	taskStatsSchema    = schema{tsSubtask: subtaskStatsSchema}
	checkpointSchema   = schema{ckActionState: actionSchema, ckTaskStats: taskStatsSchema}
	entrySchema        = schema{}
	manifestSchema     = schema{mfEntry: entrySchema}
	legacyInnerSchema  = schema{
		lcActionState: {mapValue: actionSchema},
		lcTaskStats:   {mapValue: taskStatsSchema},
	}
	legacySchema = schema{lpStates: legacyInnerSchema}
)

// protoField is a field as protowire parses it.
type protoField struct {
	num  protowire.Number
	typ  protowire.Type
	u    uint64
	b    []byte
	size int
}

// parseWithProtowire splits msg into fields with the protobuf library.
func parseWithProtowire(t *testing.T, msg []byte) []protoField {
	t.Helper()
	var out []protoField
	for len(msg) > 0 {
		num, typ, n := protowire.ConsumeTag(msg)
		if n < 0 {
			t.Fatalf("protowire.ConsumeTag: %v", protowire.ParseError(n))
		}
		size := protowire.ConsumeFieldValue(num, typ, msg[n:])
		if size < 0 {
			t.Fatalf("protowire.ConsumeFieldValue(field %d): %v", num, protowire.ParseError(size))
		}
		f := protoField{num: num, typ: typ, size: n + size}
		switch typ {
		case protowire.VarintType:
			f.u, _ = protowire.ConsumeVarint(msg[n:])
		case protowire.BytesType:
			f.b, _ = protowire.ConsumeBytes(msg[n:])
		case protowire.Fixed64Type:
			f.u, _ = protowire.ConsumeFixed64(msg[n:])
		case protowire.Fixed32Type:
			v, _ := protowire.ConsumeFixed32(msg[n:])
			f.u = uint64(v)
		}
		out = append(out, f)
		msg = msg[n+size:]
	}
	return out
}

// crossCheck proves msg protobuf-wire compatible: protowire and eachField
// see the same fields, re-encoding protowire's view with protowire gives the
// same bytes, and the same holds for every nested message in s.
func crossCheck(t *testing.T, where string, msg []byte, s schema) {
	t.Helper()
	theirs := parseWithProtowire(t, msg)
	var ours []field
	if err := eachField(msg, func(f field) error { ours = append(ours, f); return nil }); err != nil {
		t.Fatalf("%s: eachField: %v", where, err)
	}
	if len(ours) != len(theirs) {
		t.Fatalf("%s: eachField saw %d fields, protowire %d", where, len(ours), len(theirs))
	}
	var re []byte
	for i, p := range theirs {
		o := ours[i]
		if int(p.num) != o.num || int(p.typ) != int(o.typ) || p.u != o.u || !bytes.Equal(p.b, o.b) {
			t.Fatalf("%s: field %d: ours %+v, protowire %+v", where, i, o, p)
		}
		re = protowire.AppendTag(re, p.num, p.typ)
		switch p.typ {
		case protowire.VarintType:
			re = protowire.AppendVarint(re, p.u)
		case protowire.BytesType:
			re = protowire.AppendBytes(re, p.b)
		}
		if sub, ok := s[o.num]; ok && o.typ == wireBytes {
			crossCheck(t, fmt.Sprintf("%s.%d", where, o.num), o.b, sub)
		}
	}
	if !bytes.Equal(re, msg) {
		t.Fatalf("%s: protowire re-encoding differs:\nours %x\nprotowire %x", where, msg, re)
	}
}

func TestEncodingsAreProtobufWireCompatible(t *testing.T) {
	m := &Manifest{FormatVersion: FormatVersion, SavepointID: 5, JobID: -3, Producer: "v", TriggerTimestampMs: 9,
		Entries: []ManifestEntry{{PipelineID: 1, CheckpointID: 2, File: "1-2.ser", Length: 10,
			SHA256: sha256Hex(nil), PayloadFormat: PayloadFormatV1}}}
	msgs := []struct {
		name string
		msg  []byte
		s    schema
	}{
		{"payload", EncodePayload(goldenCheckpoint()), checkpointSchema},
		{"payload-min", EncodePayload(&CompletedCheckpoint{Type: TypeCheckpoint}), checkpointSchema},
		{"payload-neg", EncodePayload(sampleCheckpoint(-1, math.MinInt32, math.MinInt64, TypeCompletedPoint)), checkpointSchema},
		{"legacy-v0", encodeLegacyV0(goldenCheckpoint()), legacySchema},
		{"manifest", m.marshal(), manifestSchema},
	}
	for _, tt := range msgs {
		t.Run(tt.name, func(t *testing.T) { crossCheck(t, tt.name, tt.msg, tt.s) })
	}
}

func TestPrimitivesMatchProtowire(t *testing.T) {
	values := []uint64{0, 1, 127, 128, 300, 1<<32 - 1, 1 << 63, math.MaxUint64, uint64(1<<64 - 1 - 5)}
	nums := []int{1, 15, 16, 2047, 2048, maxFieldNumber}
	for _, num := range nums {
		for _, v := range values {
			var w wireBuf
			w.Varint(num, v)
			want := protowire.AppendVarint(protowire.AppendTag(nil, protowire.Number(num), protowire.VarintType), v)
			if !bytes.Equal(w.b, want) {
				t.Errorf("Varint(%d, %d) = %x, protowire %x", num, v, w.b, want)
			}
		}
		for _, n := range []int{0, 1, 127, 128, 20000} {
			p := bytes.Repeat([]byte{7}, n)
			var w wireBuf
			w.Bytes(num, p)
			want := protowire.AppendBytes(protowire.AppendTag(nil, protowire.Number(num), protowire.BytesType), p)
			if !bytes.Equal(w.b, want) {
				t.Errorf("Bytes(%d, %d bytes) differs from protowire", num, n)
			}
		}
	}
}

func TestEachFieldRejectsWhatProtobufRejects(t *testing.T) {
	bad := map[string][]byte{
		"truncated tag":         {0x80},
		"field number 0":        {0x00, 0x01},
		"truncated varint":      {0x08, 0x80},
		"varint overflow":       {0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02},
		"length past end":       {0x0a, 0x05, 0x01},
		"truncated fixed64":     {0x09, 1, 2, 3},
		"truncated fixed32":     {0x0d, 1, 2},
		"start group":           {0x0b},
		"end group":             {0x0c},
		"reserved wire type 6":  {0x0e},
		"field number too high": protowire.AppendTag(nil, maxFieldNumber+1, protowire.VarintType),
	}
	for name, msg := range bad {
		if err := eachField(msg, func(field) error { return nil }); err == nil {
			t.Errorf("%s: eachField accepted %x", name, msg)
		}
	}
}
