package sim

import (
	"fmt"
	"io"
	"time"
)

type opcode uint8

const (
	opSpawn opcode = iota + 1
	opSleep
	opLock
	opUnlock
	opTryLock
	opWait
	opWake
	opSignal
	opBroadcast
	opNote
)

var opNames = [...]string{"", "spawn", "sleep", "lock", "unlock", "trylock", "wait", "wake", "signal", "broadcast", "note"}

// Event is one entry of a readable trace.
type Event struct {
	Step   int64
	At     time.Duration // virtual time since Epoch
	Thread string
	Op     string
	Object string
}

func (e Event) String() string {
	return fmt.Sprintf("%8d %14s %-28s %-9s %s", e.Step, e.At, e.Thread, e.Op, e.Object)
}

// record folds an env operation into the trace hash and, when tracing,
// appends a readable event.
func (w *World) record(t *thread, op opcode, obj int32, name string) {
	w.mix(uint64(op)<<32|uint64(uint32(obj)), uint64(t.id))
	if !w.cfg.Trace {
		return
	}
	w.events = append(w.events, Event{Step: w.steps, At: time.Duration(w.now), Thread: t.name, Op: opNames[op], Object: name})
}

// Note adds a harness event (a fault, a check) to the trace and its hash.
// It is not a scheduling point.
func (w *World) Note(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	for i := 0; i < len(msg); i++ {
		w.hash = (w.hash ^ uint64(msg[i])) * 0x100000001b3
	}
	if !w.cfg.Trace && w.onNote == nil {
		return
	}
	name := "harness"
	if w.current != nil {
		name = w.current.name
	}
	if w.onNote != nil {
		w.onNote(time.Duration(w.now), name, msg)
	}
	if !w.cfg.Trace {
		return
	}
	w.events = append(w.events, Event{Step: w.steps, At: time.Duration(w.now), Thread: name, Op: "note", Object: msg})
}

// OnNote makes fn see every Note as it is made, with its virtual time and
// the thread that made it, whether or not the trace is kept (a timeline
// of the run collects the harness's faults this way). fn must not call
// back into the world.
func (w *Harness) OnNote(fn func(at time.Duration, thread, msg string)) { w.onNote = fn }

// OnSpawn makes fn see every thread a simulated thread starts, as it is
// started: the starting thread's id and the new one's (threads started
// from outside the run, before it, are not reported). fn must not call
// back into the world.
func (w *Harness) OnSpawn(fn func(parent, child int32)) { w.onSpawn = fn }

// Events returns the readable trace (empty unless Config.Trace).
func (w *World) Events() []Event { return w.events }

// DumpTrace writes the readable trace, one event a line.
func (w *World) DumpTrace(out io.Writer) error {
	for _, e := range w.events {
		if _, err := fmt.Fprintln(out, e); err != nil {
			return err
		}
	}
	return nil
}
