package savepoint

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/core/env"
)

var update = flag.Bool("update", false, "rewrite golden files and the fuzz seed corpus under testdata/")

// sampleCheckpoint returns a checkpoint that exercises every field: several
// actions (one without a coordinator, one with an empty one), several
// subtasks, negative and large numbers, empty and non-empty states.
func sampleCheckpoint(job int64, pipeline int32, id int64, typ CheckpointType) *CompletedCheckpoint {
	return &CompletedCheckpoint{
		JobID: job, PipelineID: pipeline, CheckpointID: id, Type: typ,
		TriggerTimestampMs: 1_767_225_600_000 + id, CompletedTimestampMs: 1_767_225_600_250 + id,
		ActionStates: []ActionState{
			{Key: fmt.Sprintf("source-%d", pipeline), Parallelism: 2, Coordinator: []byte("split-enumerator"),
				Subtasks: []SubtaskState{
					{Index: 0, State: [][]byte{[]byte("offset=42"), []byte("split=a")}},
					{Index: 1, State: [][]byte{[]byte("offset=7")}},
				}},
			{Key: "transform-∑", Parallelism: 1, Coordinator: []byte{},
				Subtasks: []SubtaskState{{Index: 0}}},
			{Key: "sink", Parallelism: 3, Subtasks: []SubtaskState{{Index: 2, State: [][]byte{{0, 0xff, 0x80}}}}},
		},
		TaskStatistics: []TaskStatistics{
			{VertexID: 1, Parallelism: 2, Subtasks: []SubtaskStatistics{
				{Index: 0, AckTimestampMs: 1_767_225_600_100, StateSize: 17, Status: StatusRunning},
				{Index: 1, AckTimestampMs: -1, StateSize: 1 << 40, Status: StatusSavepointPrepareClose},
			}},
			{VertexID: -9, Parallelism: 1},
		},
	}
}

// goldenCheckpoint is the state pinned by testdata/golden.
func goldenCheckpoint() *CompletedCheckpoint {
	return sampleCheckpoint(1001, 1, 17, TypeSavepoint)
}

// encodeLegacyV0 is the frozen legacy v0 writer. Production code never
// writes v0; this exists to regenerate testdata/golden/legacy-v0.bin, and
// the golden test pins that it still produces those bytes.
func encodeLegacyV0(c *CompletedCheckpoint) []byte {
	var inner wireBuf
	putInt64(&inner, lcJobID, c.JobID)
	putInt32(&inner, lcPipelineID, c.PipelineID)
	putInt64(&inner, lcCheckpointID, c.CheckpointID)
	putInt64(&inner, lcTriggerMs, c.TriggerTimestampMs)
	inner.Varint(lcType, uint64(c.Type-TypeCheckpoint))
	putInt64(&inner, lcCompletedMs, c.CompletedTimestampMs)
	inner.Varint(lcRestored, 1) // the old layout leaked the runtime flag
	for i := range c.ActionStates {
		a := &c.ActionStates[i]
		inner.Message(lcActionState, func(m fieldSink) {
			putString(m, mapKey, a.Key)
			m.Message(mapValue, func(v fieldSink) { encodeAction(v, a) })
		})
	}
	for i := range c.TaskStatistics {
		s := &c.TaskStatistics[i]
		inner.Message(lcTaskStats, func(m fieldSink) {
			putInt64(m, mapKey, s.VertexID)
			m.Message(mapValue, func(v fieldSink) { encodeTaskStats(v, s, false) })
		})
	}
	var env wireBuf
	putInt64(&env, lpJobID, c.JobID)
	putInt32(&env, lpPipelineID, c.PipelineID)
	putInt64(&env, lpCheckpointID, c.CheckpointID)
	env.Bytes(lpStates, inner.b)
	return env.b
}

// golden compares got with testdata/<name>, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) []byte {
	t.Helper()
	file := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	return want
}

// logRecorder collects Logf lines.
type logRecorder struct{ lines []string }

func (l *logRecorder) logf(format string, args ...any) {
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

var testEnv = env.Wall{}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// reseal recomputes the trailing SHA-256 of a checkpoint file.
func reseal(b []byte) []byte {
	body := b[:len(b)-sha256.Size]
	sum := sha256.Sum256(body)
	return append(slices.Clone(body), sum[:]...)
}

// clockEnv is env.Wall with a settable Now.
type clockEnv struct {
	env.Wall
	now time.Time
}

func (c *clockEnv) Now() time.Time { return c.now }
