package coord

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/ckptsim/ckptsim/core/savepoint"
)

// Type is a checkpoint type. It has one spelling in the project,
// savepoint.CheckpointType, which storage writes by name; the coordinator
// uses it under these shorter names.
type Type = savepoint.CheckpointType

// The checkpoint types.
const (
	Checkpoint         = savepoint.TypeCheckpoint
	SchemaChangeBefore = savepoint.TypeSchemaChangeBefore
	SchemaChangeAfter  = savepoint.TypeSchemaChangeAfter
	Savepoint          = savepoint.TypeSavepoint
	CompletedPoint     = savepoint.TypeCompletedPoint
)

// CompletedPointID is the sentinel id of the COMPLETED_POINT checkpoint.
const CompletedPointID = math.MaxInt64

// TaskID names a task of a pipeline (0..Tasks-1).
type TaskID int

// TaskState is what a task reports to its coordinator.
type TaskState int

// The task states the coordinator acts on.
const (
	TaskCreated TaskState = iota
	TaskWaitingRestore
	TaskReadyStart
	TaskRunning
)

// Barrier is sent to every task of the pipeline to start a checkpoint.
type Barrier struct {
	ID        int64
	Timestamp time.Time
	Type      Type
	// PrepareClose lists the idle tasks that asked to close
	// (readyToCloseIdleTask): a task listed acknowledges this checkpoint
	// with its final state and closes once the checkpoint completed
	// (Completed.Closed names it). Closed lists the tasks already closed;
	// they receive no barrier. Both sorted; nil without idle tasks.
	PrepareClose []TaskID
	Closed       []TaskID
}

// Completed is a completed checkpoint.
type Completed struct {
	Job         int64
	Pipeline    int
	ID          int64
	Type        Type
	TriggeredAt time.Time
	CompletedAt time.Time
	States      map[TaskID][]byte // per task state; nil entries allowed
	Generation  uint64            // runtime only: the generation that completed it
	Restored    bool              // runtime only: loaded at restore
	// Closed (runtime only) lists the idle tasks this completion closes:
	// those that acknowledged it while its barrier named them in
	// PrepareClose. A task closes when notified of a completion naming it.
	Closed []TaskID
	// Sum is the SHA-256 of the checkpoint's id, type and states (Checksum),
	// set when it completes and stored with it: a restore loads a stored
	// checkpoint only if its states still match it. The zero Sum is a
	// checkpoint stored without one (storage that keeps ids only, as the
	// package's test fakes do): it is loaded unverified.
	Sum [sha256.Size]byte
}

// Checksum is the SHA-256 of a checkpoint's id, type and task states, in
// task order.
func Checksum(c *Completed) [sha256.Size]byte {
	h := sha256.New()
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(c.ID))
	h.Write(b[:])
	binary.BigEndian.PutUint64(b[:], uint64(c.Type))
	h.Write(b[:])
	var buf [32]TaskID // a pipeline's tasks fit: no allocation per completion
	tasks := buf[:0]
	for t := range c.States {
		tasks = append(tasks, t)
	}
	slices.Sort(tasks)
	for _, t := range tasks {
		binary.BigEndian.PutUint64(b[:], uint64(t))
		h.Write(b[:])
		binary.BigEndian.PutUint64(b[:], uint64(len(c.States[t])))
		h.Write(b[:])
		h.Write(c.States[t])
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

// Intact reports whether a stored checkpoint's states match its Sum (true
// for one stored without a Sum).
func (c *Completed) Intact() bool {
	return c.Sum == [sha256.Size]byte{} || Checksum(c) == c.Sum
}

// GenStatus is the status of one coordinator generation: RUNNING, then
// one terminal state. (The status store, StatusStore, is where the
// coordinator writes it; cluster.StatusStore simulates that store, and
// model.ReadGen is a recorded read of a generation's status.)
type GenStatus int

// The coordinator statuses.
const (
	Running GenStatus = iota
	Finished
	Suspended
	Failed
	Canceled
)

var statusNames = [...]string{"RUNNING", "FINISHED", "SUSPEND", "FAILED", "CANCELED"}

func (s GenStatus) String() string { return statusNames[s] }

// Reason is why a pending checkpoint was aborted or a coordinator failed.
type Reason string

// The failure and abort reasons of SeaTunnel's CheckpointCloseReason.
const (
	ReasonExpired        Reason = "CHECKPOINT_EXPIRED"
	ReasonInsideError    Reason = "CHECKPOINT_INSIDE_ERROR"
	ReasonReset          Reason = "CHECKPOINT_COORDINATOR_RESET"
	ReasonPipelineEnd    Reason = "PIPELINE_END"
	ReasonCompleted      Reason = "CHECKPOINT_COORDINATOR_COMPLETED"
	ReasonNotifyFailed   Reason = "CHECKPOINT_NOTIFY_COMPLETE_FAILED"
	ReasonShutdown       Reason = "CHECKPOINT_COORDINATOR_SHUTDOWN"
	ReasonTasksNotReady  Reason = "TASK_NOT_ALL_READY_WHEN_SAVEPOINT"
	ReasonTriggerFailed  Reason = "TRIGGER_FAILED"
	ReasonCompleteFailed Reason = "COMPLETE_CHECKPOINT_FAILED"
	ReasonIDFailed       Reason = "GET_CHECKPOINT_ID_FAILED"
	ReasonTaskFailed     Reason = "TASK_RUNNING_FAILED"
	ReasonTaskReported   Reason = "TASK_REPORTED_ERROR"
)

// Aborted is the failure of a pending checkpoint aborted for a reason.
type Aborted struct{ Reason Reason }

func (a *Aborted) Error() string { return fmt.Sprintf("checkpoint aborted: %s", a.Reason) }

// Errors of the coordinator API.
var (
	ErrShutdown      = errors.New("coord: coordinator shut down or completed")
	ErrTasksNotReady = errors.New("coord: not all tasks ready")
	ErrRetryable     = errors.New("coord: operation needs retry")
	// ErrNoIntactCheckpoint: a restore found stored checkpoints of the
	// pipeline but every one fails its checksum. The restore fails closed
	// rather than start from empty storage (which would silently drop the
	// pipeline's state and re-read its sources from the start); an
	// operator restores from a savepoint or discards the checkpoints.
	ErrNoIntactCheckpoint = errors.New("coord: no stored checkpoint passes its checksum")
)
