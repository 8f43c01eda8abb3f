package savepoint

import "fmt"

// Legacy v0 is the frozen layout that checkpoint files had before format
// versions existed: a PipelineState envelope around a CompletedCheckpoint
// whose field numbers followed the class's declaration order, with enums
// stored by ordinal and the runtime-only restored flag included. Nothing
// writes it any more; DecodeLegacy reads it so that old checkpoint files can
// still be restored. testdata/golden/legacy-v0.bin pins the bytes.
const (
	// PipelineState envelope
	lpJobID        = 1
	lpPipelineID   = 2
	lpCheckpointID = 3
	lpStates       = 4 // the v0 CompletedCheckpoint, as bytes

	// v0 CompletedCheckpoint
	lcJobID        = 1
	lcPipelineID   = 2
	lcCheckpointID = 3
	lcTriggerMs    = 4
	lcType         = 5 // ordinal: CHECKPOINT=0 ... COMPLETED_POINT=4
	lcCompletedMs  = 6
	lcRestored     = 7 // runtime-only; read and dropped
	lcActionState  = 8 // map entry {1: key, 2: WireActionState}
	lcTaskStats    = 9 // map entry {1: vertex id, 2: v0 TaskStatistics}

	mapKey   = 1
	mapValue = 2
)

// DecodeLegacy decodes a legacy v0 PipelineState. The envelope's ids must
// agree with the checkpoint inside it.
func DecodeLegacy(b []byte) (*CompletedCheckpoint, error) {
	var env CompletedCheckpoint
	var states []byte
	err := eachField(b, func(f field) error {
		switch f.num {
		case lpJobID:
			return f.int64(&env.JobID)
		case lpPipelineID:
			return f.int32(&env.PipelineID)
		case lpCheckpointID:
			return f.int64(&env.CheckpointID)
		case lpStates:
			states = f.b
			return f.wantType(wireBytes)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	c, err := decodeLegacyCheckpoint(states)
	if err != nil {
		return nil, err
	}
	if c.JobID != env.JobID || c.PipelineID != env.PipelineID || c.CheckpointID != env.CheckpointID {
		return nil, fmt.Errorf("%w: legacy envelope %d/%d/%d holds checkpoint %d/%d/%d", ErrCorrupt,
			env.JobID, env.PipelineID, env.CheckpointID, c.JobID, c.PipelineID, c.CheckpointID)
	}
	return c, nil
}

func decodeLegacyCheckpoint(b []byte) (*CompletedCheckpoint, error) {
	c := &CompletedCheckpoint{}
	err := eachField(b, func(f field) error { return decodeLegacyField(c, f) })
	if err == nil && c.Type == 0 {
		err = fmt.Errorf("%w: legacy checkpoint type missing", ErrCorrupt)
	}
	return c, err
}

func decodeLegacyField(c *CompletedCheckpoint, f field) error {
	switch f.num {
	case lcJobID:
		return f.int64(&c.JobID)
	case lcPipelineID:
		return f.int32(&c.PipelineID)
	case lcCheckpointID:
		return f.int64(&c.CheckpointID)
	case lcTriggerMs:
		return f.int64(&c.TriggerTimestampMs)
	case lcType:
		if f.u >= uint64(len(checkpointTypeNames)) {
			return fmt.Errorf("%w: legacy checkpoint type ordinal %d", ErrCorrupt, f.u)
		}
		c.Type = TypeCheckpoint + CheckpointType(f.u)
		return f.wantType(wireVarint)
	case lcCompletedMs:
		return f.int64(&c.CompletedTimestampMs)
	case lcActionState:
		a, err := decodeMapValue(f, decodeAction)
		c.ActionStates = append(c.ActionStates, a)
		return err
	case lcTaskStats:
		t, err := decodeMapValue(f, func(f field) (TaskStatistics, error) { return decodeTaskStats(f, false) })
		c.TaskStatistics = append(c.TaskStatistics, t)
		return err
	}
	return nil // including lcRestored: runtime-only, dropped
}

// decodeMapValue decodes the value of a map entry message with decode; the
// key repeats a field of the value and is ignored.
func decodeMapValue[T any](f field, decode func(field) (T, error)) (T, error) {
	var v T
	if err := f.wantType(wireBytes); err != nil {
		return v, err
	}
	seen := false
	err := eachField(f.b, func(f field) error {
		if f.num != mapValue {
			return nil
		}
		var err error
		v, err = decode(f)
		seen = true
		return err
	})
	if err == nil && !seen {
		err = fmt.Errorf("%w: legacy map entry without value", ErrCorrupt)
	}
	return v, err
}
