package savepoint

import "fmt"

// PayloadFormatV1 names the payload encoding this engine writes; manifests
// record it per file.
const PayloadFormatV1 = "engine-wire-v1"

// engine-wire-v1 field numbers. They are the storage contract: never reuse
// or renumber one; add new fields with new numbers.
const (
	// WireCheckpoint
	ckJobID        = 1
	ckPipelineID   = 2
	ckCheckpointID = 3
	ckType         = 4 // by name
	ckTriggerMs    = 5
	ckCompletedMs  = 6
	ckActionState  = 7 // repeated WireActionState
	ckTaskStats    = 8 // repeated WireTaskStatistics

	// WireActionState (shared with legacy v0)
	asKey         = 1
	asParallelism = 2
	asCoordinator = 3 // present only when non-nil
	asSubtask     = 4 // repeated WireSubtaskState

	// WireSubtaskState (shared with legacy v0)
	ssIndex = 1
	ssState = 2 // repeated bytes

	// WireTaskStatistics
	tsVertexID    = 1
	tsParallelism = 2
	tsSubtask     = 3 // repeated WireSubtaskStatistics

	// WireSubtaskStatistics
	stIndex     = 1
	stAckMs     = 2
	stStateSize = 3
	stStatus    = 4 // by name in v1, by ordinal in legacy v0
)

// EncodePayload returns the engine-wire-v1 encoding of c. Restored is not
// encoded. The output is deterministic: the same value gives the same bytes.
func EncodePayload(c *CompletedCheckpoint) []byte {
	var w wireBuf
	encodeCheckpoint(&w, c)
	return w.b
}

func encodeCheckpoint(w fieldSink, c *CompletedCheckpoint) {
	putInt64(w, ckJobID, c.JobID)
	putInt32(w, ckPipelineID, c.PipelineID)
	putInt64(w, ckCheckpointID, c.CheckpointID)
	putString(w, ckType, c.Type.String())
	putInt64(w, ckTriggerMs, c.TriggerTimestampMs)
	putInt64(w, ckCompletedMs, c.CompletedTimestampMs)
	for i := range c.ActionStates {
		w.Message(ckActionState, func(m fieldSink) { encodeAction(m, &c.ActionStates[i]) })
	}
	for i := range c.TaskStatistics {
		w.Message(ckTaskStats, func(m fieldSink) { encodeTaskStats(m, &c.TaskStatistics[i], true) })
	}
}

func encodeAction(w fieldSink, a *ActionState) {
	putString(w, asKey, a.Key)
	putInt32(w, asParallelism, a.Parallelism)
	if a.Coordinator != nil {
		w.Bytes(asCoordinator, a.Coordinator)
	}
	for i := range a.Subtasks {
		s := &a.Subtasks[i]
		w.Message(asSubtask, func(m fieldSink) {
			putInt32(m, ssIndex, s.Index)
			for _, st := range s.State {
				m.Bytes(ssState, st)
			}
		})
	}
}

// encodeTaskStats writes t; byName picks v1 (status by name) or legacy v0
// (status by ordinal).
func encodeTaskStats(w fieldSink, t *TaskStatistics, byName bool) {
	putInt64(w, tsVertexID, t.VertexID)
	putInt32(w, tsParallelism, t.Parallelism)
	for i := range t.Subtasks {
		s := &t.Subtasks[i]
		w.Message(tsSubtask, func(m fieldSink) {
			putInt32(m, stIndex, s.Index)
			putInt64(m, stAckMs, s.AckTimestampMs)
			putInt64(m, stStateSize, s.StateSize)
			if byName {
				putString(m, stStatus, s.Status.String())
			} else {
				m.Varint(stStatus, uint64(s.Status-StatusRunning))
			}
		})
	}
}

// DecodePayload decodes an engine-wire-v1 payload. Unknown fields are
// skipped; a missing or unknown checkpoint type, a known field with the wrong
// wire type, or malformed framing is an error wrapping ErrCorrupt.
func DecodePayload(b []byte) (*CompletedCheckpoint, error) {
	c := &CompletedCheckpoint{}
	err := eachField(b, func(f field) error { return decodeCheckpointField(c, f) })
	if err != nil {
		return nil, err
	}
	if c.Type == 0 {
		return nil, fmt.Errorf("%w: checkpoint type missing", ErrCorrupt)
	}
	return c, nil
}

func decodeCheckpointField(c *CompletedCheckpoint, f field) error {
	switch f.num {
	case ckJobID:
		return f.int64(&c.JobID)
	case ckPipelineID:
		return f.int32(&c.PipelineID)
	case ckCheckpointID:
		return f.int64(&c.CheckpointID)
	case ckType:
		var name string
		if err := f.string(&name); err != nil {
			return err
		}
		t, err := ParseCheckpointType(name)
		c.Type = t
		return err
	case ckTriggerMs:
		return f.int64(&c.TriggerTimestampMs)
	case ckCompletedMs:
		return f.int64(&c.CompletedTimestampMs)
	case ckActionState:
		a, err := decodeAction(f)
		c.ActionStates = append(c.ActionStates, a)
		return err
	case ckTaskStats:
		t, err := decodeTaskStats(f, true)
		c.TaskStatistics = append(c.TaskStatistics, t)
		return err
	}
	return nil
}

// decodeAction decodes the WireActionState message in f.
func decodeAction(f field) (ActionState, error) {
	var a ActionState
	if err := f.wantType(wireBytes); err != nil {
		return a, err
	}
	err := eachField(f.b, func(f field) error {
		switch f.num {
		case asKey:
			return f.string(&a.Key)
		case asParallelism:
			return f.int32(&a.Parallelism)
		case asCoordinator:
			var err error
			a.Coordinator, err = f.bytes()
			return err
		case asSubtask:
			s, err := decodeSubtaskState(f)
			a.Subtasks = append(a.Subtasks, s)
			return err
		}
		return nil
	})
	return a, err
}

func decodeSubtaskState(f field) (SubtaskState, error) {
	var s SubtaskState
	if err := f.wantType(wireBytes); err != nil {
		return s, err
	}
	err := eachField(f.b, func(f field) error {
		switch f.num {
		case ssIndex:
			return f.int32(&s.Index)
		case ssState:
			b, err := f.bytes()
			s.State = append(s.State, b)
			return err
		}
		return nil
	})
	return s, err
}

// decodeTaskStats decodes the WireTaskStatistics message in f.
func decodeTaskStats(f field, byName bool) (TaskStatistics, error) {
	var t TaskStatistics
	if err := f.wantType(wireBytes); err != nil {
		return t, err
	}
	err := eachField(f.b, func(f field) error {
		switch f.num {
		case tsVertexID:
			return f.int64(&t.VertexID)
		case tsParallelism:
			return f.int32(&t.Parallelism)
		case tsSubtask:
			s, err := decodeSubtaskStats(f, byName)
			t.Subtasks = append(t.Subtasks, s)
			return err
		}
		return nil
	})
	return t, err
}

func decodeSubtaskStats(f field, byName bool) (SubtaskStatistics, error) {
	var s SubtaskStatistics
	if err := f.wantType(wireBytes); err != nil {
		return s, err
	}
	err := eachField(f.b, func(f field) error {
		switch f.num {
		case stIndex:
			return f.int32(&s.Index)
		case stAckMs:
			return f.int64(&s.AckTimestampMs)
		case stStateSize:
			return f.int64(&s.StateSize)
		case stStatus:
			return decodeStatus(f, byName, &s.Status)
		}
		return nil
	})
	if err == nil && s.Status == 0 {
		err = fmt.Errorf("%w: subtask %d: status missing", ErrCorrupt, s.Index)
	}
	return s, err
}

func decodeStatus(f field, byName bool, dst *SubtaskStatus) error {
	if byName {
		var name string
		if err := f.string(&name); err != nil {
			return err
		}
		s, err := ParseSubtaskStatus(name)
		*dst = s
		return err
	}
	if err := f.wantType(wireVarint); err != nil {
		return err
	}
	if f.u >= uint64(len(subtaskStatusNames)) {
		return fmt.Errorf("%w: subtask status ordinal %d", ErrCorrupt, f.u)
	}
	*dst = StatusRunning + SubtaskStatus(f.u)
	return nil
}
