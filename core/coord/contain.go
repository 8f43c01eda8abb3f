package coord

import (
	"errors"
	"fmt"
)

// PluginPanic is the error a boundary call returns in place of a panic:
// the checkpoint storage, the transport to the tasks, the status store and
// the id counter are plugins (Java classes that throw unchecked
// exceptions), and a plugin that panics is one whose call failed. The
// coordinator's error paths then run as for any failed call: the
// checkpoint fails, the generation fails over.
//
// Without it a panic unwound through the coordinator's continuation on the
// executor thread that made the call: a barrier dispatch that panicked left
// its pending checkpoint registered with no watchdog armed, a store or a
// notify that panicked left a fully acknowledged one that the watchdog's
// re-check then kept forever, and the pipeline triggered nothing again
// (checkpoint-progress, blocked-forever and savepoint-outcome on the
// boundary_panic fault; TestBoundaryPanicFailsTheCheckpoint).
type PluginPanic struct {
	Call  string // the boundary call, "Storage.Store"
	Value any    // what it panicked with
}

func (p *PluginPanic) Error() string { return fmt.Sprintf("%s panicked: %v", p.Call, p.Value) }

// isPluginPanic reports whether err is a boundary call's contained panic.
// The status store's retry loop retries one (retryStatus): dropped, a
// FINISHED write that panicked left a finished pipeline RUNNING in the
// status store for good (bounded-finish on idle-close-late with
// boundary_panic; TestFinishedStatusWritePanicRetried).
func isPluginPanic(err error) bool {
	var pp *PluginPanic
	return errors.As(err, &pp)
}

// contain runs one boundary call, its panic returned as a *PluginPanic.
func contain(call string, err *error) {
	if v := recover(); v != nil {
		*err = &PluginPanic{Call: call, Value: v}
	}
}

// containDeps wraps d's plugins so that each call's panic is its error.
func containDeps(d Deps) Deps {
	if d.Transport != nil {
		d.Transport = containedTransport{d.Transport}
	}
	if d.Storage != nil {
		d.Storage = containedStorage{d.Storage}
	}
	if d.Status != nil {
		d.Status = containedStatus{d.Status}
	}
	if d.IDs != nil {
		d.IDs = containedIDs{d.IDs}
	}
	return d
}

type containedTransport struct{ t Transport }

func (c containedTransport) TriggerBarrier(job int64, pipeline int, task TaskID, b Barrier) (err error) {
	defer contain("Transport.TriggerBarrier", &err)
	return c.t.TriggerBarrier(job, pipeline, task, b)
}

func (c containedTransport) NotifyComplete(job int64, pipeline int, task TaskID, cp *Completed) (err error) {
	defer contain("Transport.NotifyComplete", &err)
	return c.t.NotifyComplete(job, pipeline, task, cp)
}

func (c containedTransport) NotifyStart(job int64, pipeline int, task TaskID) (err error) {
	defer contain("Transport.NotifyStart", &err)
	return c.t.NotifyStart(job, pipeline, task)
}

func (c containedTransport) RestoreState(job int64, pipeline int, task TaskID, cp *Completed) (err error) {
	defer contain("Transport.RestoreState", &err)
	return c.t.RestoreState(job, pipeline, task, cp)
}

type containedStorage struct{ s Storage }

func (c containedStorage) Store(cp *Completed) (err error) {
	defer contain("Storage.Store", &err)
	return c.s.Store(cp)
}

func (c containedStorage) Delete(job int64, pipeline int, ids []int64) (err error) {
	defer contain("Storage.Delete", &err)
	return c.s.Delete(job, pipeline, ids)
}

func (c containedStorage) Latest(job int64, pipeline int) (cp *Completed, err error) {
	defer contain("Storage.Latest", &err)
	return c.s.Latest(job, pipeline)
}

func (c containedStorage) IDs(job int64, pipeline int) (ids []int64, err error) {
	defer contain("Storage.IDs", &err)
	return c.s.IDs(job, pipeline)
}

func (c containedStorage) Load(job int64, pipeline int, id int64) (cp *Completed, err error) {
	defer contain("Storage.Load", &err)
	return c.s.Load(job, pipeline, id)
}

type containedStatus struct{ s StatusStore }

func (c containedStatus) Get(key string) (v string, err error) {
	defer contain("StatusStore.Get", &err)
	return c.s.Get(key)
}

func (c containedStatus) Set(key, value string) (err error) {
	defer contain("StatusStore.Set", &err)
	return c.s.Set(key, value)
}

func (c containedStatus) Delete(key string) (err error) {
	defer contain("StatusStore.Delete", &err)
	return c.s.Delete(key)
}

type containedIDs struct{ c IDCounter }

func (c containedIDs) Next(job int64, pipeline int) (id int64, err error) {
	defer contain("IDCounter.Next", &err)
	return c.c.Next(job, pipeline)
}

func (c containedIDs) Set(job int64, pipeline int, next int64) (err error) {
	defer contain("IDCounter.Set", &err)
	return c.c.Set(job, pipeline, next)
}
