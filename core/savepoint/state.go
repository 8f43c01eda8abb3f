package savepoint

import "fmt"

// CheckpointType says why a checkpoint was taken. It is written to disk by
// name (String), never by number, so reordering or adding constants does not
// change what stored bytes mean.
type CheckpointType int

// The checkpoint types, in SeaTunnel's declaration order. The zero value is
// not a type: a decoded checkpoint always carries one of these.
const (
	TypeCheckpoint CheckpointType = iota + 1
	TypeSchemaChangeBefore
	TypeSchemaChangeAfter
	TypeSavepoint
	TypeCompletedPoint
)

var checkpointTypeNames = map[CheckpointType]string{
	TypeCheckpoint:         "CHECKPOINT",
	TypeSchemaChangeBefore: "SCHEMA_CHANGE_BEFORE",
	TypeSchemaChangeAfter:  "SCHEMA_CHANGE_AFTER",
	TypeSavepoint:          "SAVEPOINT",
	TypeCompletedPoint:     "COMPLETED_POINT",
}

// String returns the stored name of t.
func (t CheckpointType) String() string {
	if n, ok := checkpointTypeNames[t]; ok {
		return n
	}
	return fmt.Sprintf("CheckpointType(%d)", int(t))
}

// Final reports whether the type ends the pipeline (savepoint or the
// completed point of a bounded source).
func (t CheckpointType) Final() bool { return t == TypeSavepoint || t == TypeCompletedPoint }

// SchemaChange reports whether the type is one of the schema-change pair.
func (t CheckpointType) SchemaChange() bool {
	return t == TypeSchemaChangeBefore || t == TypeSchemaChangeAfter
}

// ParseCheckpointType returns the type whose stored name is name.
func ParseCheckpointType(name string) (CheckpointType, error) {
	for t, n := range checkpointTypeNames {
		if n == name {
			return t, nil
		}
	}
	return 0, fmt.Errorf("%w: unknown checkpoint type %q", ErrCorrupt, name)
}

// SubtaskStatus is a subtask's state when it acknowledged a barrier. Like
// CheckpointType it is stored by name.
type SubtaskStatus int

// The subtask statuses.
const (
	StatusRunning SubtaskStatus = iota + 1
	StatusSavepointPrepareClose
)

var subtaskStatusNames = map[SubtaskStatus]string{
	StatusRunning:               "RUNNING",
	StatusSavepointPrepareClose: "SAVEPOINT_PREPARE_CLOSE",
}

// String returns the stored name of s.
func (s SubtaskStatus) String() string {
	if n, ok := subtaskStatusNames[s]; ok {
		return n
	}
	return fmt.Sprintf("SubtaskStatus(%d)", int(s))
}

// ParseSubtaskStatus returns the status whose stored name is name.
func ParseSubtaskStatus(name string) (SubtaskStatus, error) {
	for s, n := range subtaskStatusNames {
		if n == name {
			return s, nil
		}
	}
	return 0, fmt.Errorf("%w: unknown subtask status %q", ErrCorrupt, name)
}

// CompletedCheckpoint is the state of one pipeline at one completed
// checkpoint: what a coordinator stores and what a restored coordinator
// starts from. Every field except Restored is part of the storage contract.
type CompletedCheckpoint struct {
	JobID        int64
	PipelineID   int32
	CheckpointID int64
	Type         CheckpointType
	// TriggerTimestampMs and CompletedTimestampMs are wall-clock (or
	// virtual) milliseconds since the Unix epoch, supplied by the caller.
	TriggerTimestampMs   int64
	CompletedTimestampMs int64
	// ActionStates holds the opaque state of each action, in the order the
	// coordinator gives; the codec keeps that order.
	ActionStates []ActionState
	// TaskStatistics holds per-vertex acknowledgement statistics.
	TaskStatistics []TaskStatistics

	// Restored is runtime-only: true when this value came from storage
	// through Restore. It is never encoded; decoding leaves it false.
	Restored bool
}

// ActionState is the state of one action (source, transform or sink) across
// its subtasks.
type ActionState struct {
	Key         string
	Parallelism int32
	// Coordinator is the action's coordinator state. Nil means the action
	// has no coordinator; an empty non-nil slice is an empty state. The
	// codec keeps the difference.
	Coordinator []byte
	Subtasks    []SubtaskState
}

// SubtaskState is the opaque state of one subtask of an action. A nil
// element of State and an empty one are the same on disk (both decode as
// empty).
type SubtaskState struct {
	Index int32
	State [][]byte
}

// TaskStatistics are the acknowledgement statistics of one job vertex.
type TaskStatistics struct {
	VertexID    int64
	Parallelism int32
	Subtasks    []SubtaskStatistics
}

// SubtaskStatistics are the acknowledgement statistics of one subtask.
type SubtaskStatistics struct {
	Index          int32
	AckTimestampMs int64
	StateSize      int64
	Status         SubtaskStatus
}
