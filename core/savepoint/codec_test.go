package savepoint

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"google.golang.org/protobuf/encoding/protowire"
)

// stateOpts compares decoded states: an empty State element decodes as an
// empty slice whatever it was written as.
var stateOpts = cmp.Options{cmpopts.EquateEmpty()}

func TestPayloadRoundTrip(t *testing.T) {
	for _, typ := range []CheckpointType{TypeCheckpoint, TypeSchemaChangeBefore, TypeSchemaChangeAfter, TypeSavepoint, TypeCompletedPoint} {
		want := sampleCheckpoint(7, 3, 99, typ)
		got, err := DecodePayload(EncodePayload(want))
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		if diff := cmp.Diff(want, got, stateOpts); diff != "" {
			t.Errorf("%s round trip (-want +got):\n%s", typ, diff)
		}
	}
}

func TestCoordinatorPresenceSurvives(t *testing.T) {
	c := goldenCheckpoint()
	got, err := DecodePayload(EncodePayload(c))
	if err != nil {
		t.Fatal(err)
	}
	if got.ActionStates[1].Coordinator == nil {
		t.Error("an empty coordinator state decoded as absent")
	}
	if got.ActionStates[2].Coordinator != nil {
		t.Error("an absent coordinator state decoded as present")
	}
}

func TestRestoredIsNotEncoded(t *testing.T) {
	c := goldenCheckpoint()
	plain := EncodePayload(c)
	c.Restored = true
	if !bytes.Equal(plain, EncodePayload(c)) {
		t.Error("the runtime-only Restored flag changed the encoding")
	}
	got, _ := DecodePayload(plain)
	if got.Restored {
		t.Error("decoding set Restored")
	}
}

func TestEnumsAreStoredByName(t *testing.T) {
	b := EncodePayload(goldenCheckpoint())
	for _, name := range []string{"SAVEPOINT", "RUNNING", "SAVEPOINT_PREPARE_CLOSE"} {
		if !bytes.Contains(b, []byte(name)) {
			t.Errorf("payload does not contain the enum name %q", name)
		}
	}
}

func TestUnknownFieldsAreSkipped(t *testing.T) {
	unknown := func(b []byte) []byte {
		b = protowire.AppendTag(b, 90, protowire.VarintType)
		b = protowire.AppendVarint(b, 12345)
		b = protowire.AppendTag(b, 91, protowire.BytesType)
		b = protowire.AppendBytes(b, []byte("future"))
		b = protowire.AppendTag(b, 92, protowire.Fixed64Type)
		b = protowire.AppendFixed64(b, 1)
		b = protowire.AppendTag(b, 93, protowire.Fixed32Type)
		return protowire.AppendFixed32(b, 2)
	}
	// A newer writer adds fields at the top level and inside an action.
	c := goldenCheckpoint()
	var w wireBuf
	encodeCheckpoint(&w, &CompletedCheckpoint{JobID: c.JobID, PipelineID: c.PipelineID, CheckpointID: c.CheckpointID,
		Type: c.Type, TriggerTimestampMs: c.TriggerTimestampMs, CompletedTimestampMs: c.CompletedTimestampMs,
		TaskStatistics: c.TaskStatistics})
	for i := range c.ActionStates {
		w.Bytes(ckActionState, unknown(func() []byte {
			var a wireBuf
			encodeAction(&a, &c.ActionStates[i])
			return a.b
		}()))
	}
	got, err := DecodePayload(unknown(w.b))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(c, got, stateOpts); diff != "" {
		t.Errorf("unknown fields changed the state (-want +got):\n%s", diff)
	}
}

func TestDecodePayloadRejects(t *testing.T) {
	valid := EncodePayload(goldenCheckpoint())
	typ := func(name string) []byte {
		var w wireBuf
		putString(&w, ckType, name)
		return w.b
	}
	cases := map[string][]byte{
		"empty (no type)":        nil,
		"unknown type name":      typ("CHECKPOINT_TYPE"),
		"type by number":         protowire.AppendVarint(protowire.AppendTag(nil, ckType, protowire.VarintType), 3),
		"job id as bytes":        append(typ("SAVEPOINT"), protowire.AppendBytes(protowire.AppendTag(nil, ckJobID, protowire.BytesType), nil)...),
		"pipeline overflows i32": append(typ("SAVEPOINT"), protowire.AppendVarint(protowire.AppendTag(nil, ckPipelineID, protowire.VarintType), 1<<40)...),
		"truncated":              valid[:len(valid)-1],
		"unknown status name":    append(typ("SAVEPOINT"), statsWithStatus("PAUSED")...),
	}
	for name, b := range cases {
		if _, err := DecodePayload(b); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: err = %v, want ErrCorrupt", name, err)
		}
	}
	// Legacy v0 stores a subtask's status by ordinal.
	legacyStatus := func(status func(m fieldSink)) []byte {
		var in wireBuf
		putInt64(&in, lcJobID, job)
		in.Varint(lcType, 0)
		in.Message(lcTaskStats, func(e fieldSink) {
			e.Message(mapValue, func(v fieldSink) { v.Message(tsSubtask, status) })
		})
		var env wireBuf
		putInt64(&env, lpJobID, job)
		env.Bytes(lpStates, in.b)
		return env.b
	}
	for name, tt := range map[string]struct {
		b    []byte
		want string
	}{
		"legacy status ordinal as bytes":       {legacyStatus(func(m fieldSink) { putString(m, stStatus, "RUNNING") }), "field 4 has wire type 2"},
		"legacy status ordinal out of range":   {legacyStatus(func(m fieldSink) { m.Varint(stStatus, 99) }), "subtask status ordinal 99"},
		"legacy status ordinal of a known one": {legacyStatus(func(m fieldSink) { m.Varint(stStatus, 0) }), ""},
	} {
		c, err := DecodeLegacy(tt.b)
		if tt.want == "" {
			if err != nil || c.TaskStatistics[0].Subtasks[0].Status != StatusRunning {
				t.Errorf("%s: %+v, %v; want RUNNING", name, c, err)
			}
			continue
		}
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want ErrCorrupt saying %q", name, err, tt.want)
		}
	}
}

func statsWithStatus(name string) []byte {
	var w wireBuf
	w.Message(ckTaskStats, func(s fieldSink) {
		s.Message(tsSubtask, func(m fieldSink) { putString(m, stStatus, name) })
	})
	return w.b
}

func TestEveryPrefixOfAPayloadIsHandled(t *testing.T) {
	valid := EncodePayload(goldenCheckpoint())
	for n := range len(valid) {
		c, err := DecodePayload(valid[:n])
		if err == nil && c.Type != TypeSavepoint {
			t.Fatalf("prefix %d decoded without a type", n)
		}
	}
}

func TestEnumNames(t *testing.T) {
	for typ, name := range checkpointTypeNames {
		got, err := ParseCheckpointType(name)
		if err != nil || got != typ || typ.String() != name {
			t.Errorf("%v: %q -> %v, %v", typ, name, got, err)
		}
	}
	if s := CheckpointType(42).String(); s != "CheckpointType(42)" {
		t.Errorf("unknown type prints %q", s)
	}
	if s := SubtaskStatus(0).String(); s != "SubtaskStatus(0)" {
		t.Errorf("unknown status prints %q", s)
	}
}

// TestDecodeRejectsMalformedNestedFields: inside an action, a subtask
// state, the task statistics and a subtask's statistics, a message field
// of the wrong wire type, a status of the wrong wire type and a subtask
// without a status are corrupt; an unknown nested field is skipped. A
// committed file carries a SHA-256 over these bytes, so only a writer bug
// makes one (results/coverage/defensive.txt).
func TestDecodeRejectsMalformedNestedFields(t *testing.T) {
	typ := func(w *wireBuf) { putString(w, ckType, "SAVEPOINT") }
	payload := func(body func(w *wireBuf)) []byte {
		var w wireBuf
		typ(&w)
		body(&w)
		return w.b
	}
	cases := map[string][]byte{
		"action as a varint":           payload(func(w *wireBuf) { w.Varint(ckActionState, 1) }),
		"subtask state as a varint":    payload(func(w *wireBuf) { w.Message(ckActionState, func(s fieldSink) { s.Varint(asSubtask, 1) }) }),
		"task statistics as a varint":  payload(func(w *wireBuf) { w.Varint(ckTaskStats, 1) }),
		"subtask statistics as varint": payload(func(w *wireBuf) { w.Message(ckTaskStats, func(s fieldSink) { s.Varint(tsSubtask, 1) }) }),
		"status name as a varint": payload(func(w *wireBuf) {
			w.Message(ckTaskStats, func(s fieldSink) { s.Message(tsSubtask, func(m fieldSink) { m.Varint(stStatus, 1) }) })
		}),
		"subtask without a status": payload(func(w *wireBuf) {
			w.Message(ckTaskStats, func(s fieldSink) { s.Message(tsSubtask, func(m fieldSink) { m.Varint(stIndex, 1) }) })
		}),
	}
	for name, b := range cases {
		if _, err := DecodePayload(b); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: err = %v, want ErrCorrupt", name, err)
		}
	}
	unknown := payload(func(w *wireBuf) {
		w.Message(ckActionState, func(s fieldSink) {
			s.Message(asSubtask, func(m fieldSink) { m.Varint(90, 1) })
		})
		w.Message(ckTaskStats, func(s fieldSink) {
			s.Varint(90, 1)
			s.Message(tsSubtask, func(m fieldSink) { m.Varint(90, 1); putString(m, stStatus, "RUNNING") })
		})
	})
	if c, err := DecodePayload(unknown); err != nil || len(c.TaskStatistics) != 1 || len(c.ActionStates) != 1 {
		t.Errorf("unknown nested fields: %+v, %v; want them skipped", c, err)
	}
}
