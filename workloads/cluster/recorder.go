package cluster

import (
	"iter"
	"time"

	"github.com/ckptsim/ckptsim/core/coord"
	"github.com/ckptsim/ckptsim/sim"
)

// Record is one coordinator event at a virtual time.
type Record struct {
	At  time.Duration
	Seq int64 // total order of records
	coord.Event
}

type pipeState struct {
	expiredAt time.Duration
	restoring bool
	savepoint int64 // pending savepoint id, 0: none
	lastDone  time.Duration
	completed int
	finished  bool
}

// Recorder keeps the coordinator event log (traces and diagnostics) and
// gathers virtual-time latencies. It judges nothing: the checks live in
// workloads/oracle.
type Recorder struct {
	w *sim.World
	// records is the event log in chunks of recordChunk: appending never
	// copies what is there (a growing slice copied and re-allocated it,
	// 38% of the bytes a BenchmarkSim/pipelines=500 run allocated).
	records  [][]Record
	nrecords int
	pipes    map[PipelineID]*pipeState
	// ExpiryToTrigger, in virtual time, from core's own events: a
	// diagnostic only (trigger to complete and failover to first, which
	// latency-bound judges, are oracle.Latency's, from the boundary).
	ExpiryToTrigger []time.Duration
	Counts          map[coord.EventKind]int
	// Windows counts named race windows reached (see coverage).
	Windows map[string]int
	// OnEvent, when set, sees every record (event checks and diagnostics).
	OnEvent func(Record)
	// inflight counts acknowledgements on their way, per pipeline.
	inflight map[PipelineID]int
}

// The named race windows counted per run, so that "not found" with a
// window never reached reads differently from "not found" with the window
// reached many times.
const (
	WindowExpiryVsAck         = "expiry-racing-ack"
	WindowFailoverInSavepoint = "failover-during-savepoint"
	WindowTriggerInRestore    = "trigger-during-restore"
	WindowCancelAfterHandoff  = "cancel-after-handoff"
	WindowInlineContinuation  = "continuation-on-trigger-thread"
)

// WindowNames lists every named race window.
var WindowNames = []string{WindowExpiryVsAck, WindowFailoverInSavepoint, WindowTriggerInRestore, WindowCancelAfterHandoff,
	WindowInlineContinuation}

func (r *Recorder) windows(s *pipeState, ev coord.Event) {
	switch ev.Kind {
	case coord.EvEffect:
		if ev.Reason == coord.ReasonExpired && r.inflight[PipelineID{ev.Job, ev.Pipeline}] > 0 {
			r.Windows[WindowExpiryVsAck]++
		}
	case coord.EvInlineContinuation:
		r.Windows[WindowInlineContinuation]++
	case coord.EvGeneration:
		if s.savepoint != 0 {
			r.Windows[WindowFailoverInSavepoint]++
		}
		s.restoring, s.savepoint = true, 0
	case coord.EvTriggered, coord.EvTriggerArmed, coord.EvTriggerStopped:
		if s.restoring {
			r.Windows[WindowTriggerInRestore]++
		}
		if ev.Kind == coord.EvTriggered && ev.Type == coord.Savepoint {
			s.savepoint = ev.ID
		}
	case coord.EvCompleted, coord.EvAborted:
		if ev.ID == s.savepoint {
			s.savepoint = 0
		}
	}
}

func newRecorder(w *sim.World) *Recorder {
	return &Recorder{w: w, pipes: map[PipelineID]*pipeState{}, Counts: map[coord.EventKind]int{}, Windows: map[string]int{},
		inflight: map[PipelineID]int{}}
}

func (r *Recorder) pipe(job int64, p int) *pipeState {
	k := PipelineID{job, p}
	s, ok := r.pipes[k]
	if !ok {
		s = &pipeState{}
		r.pipes[k] = s
	}
	return s
}

// recordChunk is how many records one chunk of the log holds.
const recordChunk = 1024

// Records yields the event log in order (i is the record's Seq).
func (r *Recorder) Records() iter.Seq2[int, Record] {
	return func(yield func(int, Record) bool) {
		i := 0
		for _, chunk := range r.records {
			for _, rec := range chunk {
				if !yield(i, rec) {
					return
				}
				i++
			}
		}
	}
}

func (r *Recorder) observe(ev coord.Event) {
	now := r.w.Elapsed()
	rec := Record{At: now, Seq: int64(r.nrecords), Event: ev}
	if n := len(r.records); n == 0 || len(r.records[n-1]) == recordChunk {
		r.records = append(r.records, make([]Record, 0, recordChunk))
	}
	last := &r.records[len(r.records)-1]
	*last = append(*last, rec)
	r.nrecords++
	r.Counts[ev.Kind]++
	if r.OnEvent != nil {
		r.OnEvent(rec)
	}
	s := r.pipe(ev.Job, ev.Pipeline)
	r.windows(s, ev)
	switch ev.Kind {
	case coord.EvTriggered:
		r.triggered(s, ev, now)
	case coord.EvCompleted:
		r.completed(s, ev, now)
	case coord.EvGenFailed:
		if ev.Reason == coord.ReasonExpired {
			s.expiredAt = now
		}
	case coord.EvRestored:
		r.restored(s)
	case coord.EvFinished:
		s.finished = true
	}
}

func (r *Recorder) triggered(s *pipeState, ev coord.Event, now time.Duration) {
	if s.expiredAt > 0 {
		r.ExpiryToTrigger = append(r.ExpiryToTrigger, now-s.expiredAt)
		s.expiredAt = 0
	}
}

func (r *Recorder) completed(s *pipeState, ev coord.Event, now time.Duration) {
	s.lastDone = now
	s.completed++
}

func (r *Recorder) restored(s *pipeState) {
	s.finished, s.restoring = false, false
}

// LastCompleted returns when a pipeline last completed a checkpoint and
// how many it completed.
func (r *Recorder) LastCompleted(job int64, p int) (time.Duration, int, bool) {
	s := r.pipe(job, p)
	return s.lastDone, s.completed, s.finished
}
