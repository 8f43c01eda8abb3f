package cluster

import (
	"fmt"
	"path"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/ckptsim/ckptsim/core/savepoint"
)

// The previous engine version (Config.LegacyUntil): before the upgrade it
// wrote checkpoint files in the legacy v0 layout, a PipelineState envelope
// around a CompletedCheckpoint whose field numbers follow the class's
// declaration order, with the checkpoint type and subtask statuses stored
// by ordinal, the runtime-only restored flag included, and no magic,
// version or checksum. core reads such files (savepoint.DecodeLegacy,
// reached through Checkpoints.Read and Latest) and never writes them, so
// the harness writes them itself, with protowire rather than core's own
// encoder: a decoder that disagrees with the old layout loads states
// other than those stored (restore-integrity) or skips a file that is the
// newest one (a stale read in the storage register model).

// Legacy v0 field numbers, as the previous version wrote them.
const (
	lvEnvJob, lvEnvPipeline, lvEnvID, lvEnvStates = 1, 2, 3, 4
	lvJob, lvPipeline, lvID, lvTriggerMs          = 1, 2, 3, 4
	lvType, lvCompletedMs, lvRestored             = 5, 6, 7
	lvActionState, lvTaskStats                    = 8, 9
	lvMapKey, lvMapValue                          = 1, 2
)

// encodeLegacy returns c as the previous engine version stored it.
func encodeLegacy(c *savepoint.CompletedCheckpoint) []byte {
	var in []byte
	in = lvVarint(in, lvJob, uint64(c.JobID))
	in = lvVarint(in, lvPipeline, uint64(int64(c.PipelineID)))
	in = lvVarint(in, lvID, uint64(c.CheckpointID))
	in = lvVarint(in, lvTriggerMs, uint64(c.TriggerTimestampMs))
	in = lvVarint(in, lvType, uint64(c.Type-savepoint.TypeCheckpoint))
	in = lvVarint(in, lvCompletedMs, uint64(c.CompletedTimestampMs))
	in = lvVarint(in, lvRestored, 0)
	for _, a := range c.ActionStates {
		v := lvBytes(nil, 1, []byte(a.Key))
		v = lvVarint(v, 2, uint64(int64(a.Parallelism)))
		if a.Coordinator != nil {
			v = lvBytes(v, 3, a.Coordinator)
		}
		for _, s := range a.Subtasks {
			sub := lvVarint(nil, 1, uint64(int64(s.Index)))
			for _, st := range s.State {
				sub = lvBytes(sub, 2, st)
			}
			v = lvBytes(v, 4, sub)
		}
		in = lvBytes(in, lvActionState, lvBytes(lvBytes(nil, lvMapKey, []byte(a.Key)), lvMapValue, v))
	}
	for _, t := range c.TaskStatistics {
		v := lvVarint(nil, 1, uint64(t.VertexID))
		v = lvVarint(v, 2, uint64(int64(t.Parallelism)))
		for _, s := range t.Subtasks {
			sub := lvVarint(nil, 1, uint64(int64(s.Index)))
			sub = lvVarint(sub, 2, uint64(s.AckTimestampMs))
			sub = lvVarint(sub, 3, uint64(s.StateSize))
			sub = lvVarint(sub, 4, uint64(s.Status-savepoint.StatusRunning))
			v = lvBytes(v, 3, sub)
		}
		in = lvBytes(in, lvTaskStats, lvBytes(lvVarint(nil, lvMapKey, uint64(t.VertexID)), lvMapValue, v))
	}
	var env []byte
	env = lvVarint(env, lvEnvJob, uint64(c.JobID))
	env = lvVarint(env, lvEnvPipeline, uint64(int64(c.PipelineID)))
	env = lvVarint(env, lvEnvID, uint64(c.CheckpointID))
	return lvBytes(env, lvEnvStates, in)
}

func lvVarint(b []byte, num protowire.Number, v uint64) []byte {
	return protowire.AppendVarint(protowire.AppendTag(b, num, protowire.VarintType), v)
}

func lvBytes(b []byte, num protowire.Number, v []byte) []byte {
	return protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), v)
}

// storeLegacy stores cp as the previous engine version did: the same
// file-system steps as Checkpoints.Store (mkdir, write the temporary file,
// rename, sync the directory), the legacy bytes in the file, then core's
// rotation of the pipeline.
func (f *fileStore) storeLegacy(cp *savepoint.CompletedCheckpoint) error {
	file := f.name(cp.JobID, int(cp.PipelineID), cp.CheckpointID)
	dir := path.Dir(file)
	for _, step := range []func() error{
		func() error { return f.fs.MkdirAll(dir) },
		func() error { return f.fs.WriteFile(file+".tmp", encodeLegacy(cp)) },
		func() error { return f.fs.Rename(file+".tmp", file) },
		func() error { return f.fs.SyncDir(dir) },
	} {
		if err := step(); err != nil {
			return fmt.Errorf("legacy store of checkpoint %s: %w", file, err)
		}
	}
	return f.cps.Rotate(cp.JobID, cp.PipelineID)
}

// name is the file checkpoint id of a pipeline is stored in.
func (f *fileStore) name(job int64, pipeline int, id int64) string {
	return fmt.Sprintf("%s/%s/%d/%d/%d.ser", fileNS, savepoint.CheckpointDir, job, pipeline, id)
}

// legacyCut is where bit rot tears legacy file b (named name): with
// states, where the checkpoint's first action state begins inside the
// envelope (the envelope's states field then runs past the end; read
// leniently, the checkpoint would decode with its ids and no states);
// otherwise at a length picked by r (in [0, len(b))) inside the
// checkpoint, after the envelope's header.
func legacyCut(b []byte, states bool, r int, name string) int {
	off := 0
	for off < len(b) {
		num, typ, n := protowire.ConsumeTag(b[off:])
		if n < 0 {
			panic(fmt.Sprintf("bit rot: %s: bad legacy tag at %d", name, off))
		}
		if num != lvEnvStates || typ != protowire.BytesType {
			m := protowire.ConsumeFieldValue(num, typ, b[off+n:])
			if m < 0 {
				panic(fmt.Sprintf("bit rot: %s: bad legacy field at %d", name, off))
			}
			off += n + m
			continue
		}
		in, m := protowire.ConsumeBytes(b[off+n:])
		if m < 0 || off+n+m != len(b) {
			panic(fmt.Sprintf("bit rot: %s: the legacy checkpoint is not the file's last field", name))
		}
		start := len(b) - len(in)
		if !states {
			return start + r%len(in)
		}
		for at := 0; at < len(in); {
			num, typ, n := protowire.ConsumeTag(in[at:])
			if n < 0 {
				panic(fmt.Sprintf("bit rot: %s: bad legacy checkpoint tag at %d", name, at))
			}
			if num == lvActionState {
				return start + at
			}
			m := protowire.ConsumeFieldValue(num, typ, in[at+n:])
			if m < 0 {
				panic(fmt.Sprintf("bit rot: %s: bad legacy checkpoint field at %d", name, at))
			}
			at += n + m
		}
		return start + r%len(in) // no states
	}
	panic(fmt.Sprintf("bit rot: %s holds no legacy checkpoint", name))
}
