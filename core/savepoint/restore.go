package savepoint

import "fmt"

// Restore returns the state a restarted pipeline starts from: the pipeline's
// state in the newest committed savepoint of the job if there is one, else
// the newest checkpoint of the pipeline. The result has Restored set. If the
// newest savepoint lacks the pipeline, Restore fails rather than mix a
// savepoint with checkpoints. With neither it returns ErrNotFound.
func Restore(sp *Store, cp *Checkpoints, job int64, pipeline int32) (*CompletedCheckpoint, error) {
	list, err := sp.List(job)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		sp.logf.printf("savepoint: restore job %d pipeline %d: no committed savepoint; falling back to the latest checkpoint", job, pipeline)
		c, err := cp.Latest(job, pipeline)
		if err != nil {
			return nil, err
		}
		c.Restored = true
		return c, nil
	}
	b, err := sp.Read(job, list[0].SavepointID)
	if err != nil {
		return nil, err
	}
	c := b.Pipeline(pipeline)
	if c == nil {
		return nil, fmt.Errorf("savepoint: restore job %d savepoint %d: pipeline %d: %w", job, b.SavepointID, pipeline, ErrNotFound)
	}
	c.Restored = true
	return c, nil
}
