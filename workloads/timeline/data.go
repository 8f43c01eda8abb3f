// Package timeline draws one seed of a simulated run as a self-contained
// HTML page: for the failing pipelines (and their jobs) one virtual-time
// axis with the coordinator's generations, each checkpoint from trigger
// through barriers and acknowledgements to stored or aborted, the faults
// the harness injected, restores, expiries and watchdogs, scheduler
// hand-offs and the checks that fired, marked where they fired; the
// porcupine operations of the same run are aligned below, linked to the
// porcupine pages. Every other pipeline follows collapsed, so a page of
// 500 pipelines still opens on what failed.
//
// The page needs no network: CSS and SVG are inline, the one script is
// optional (keyboard focus of the checks), and the data model it was drawn
// from is embedded as JSON (<script type="application/json"
// id="timeline-data">) for tools and tests.
//
// The package knows nothing of coordinators or scenarios: the harness
// (package workloads) fills a Data and calls Write.
package timeline

import (
	"cmp"
	"slices"
)

// Data is everything one page shows. Times are virtual nanoseconds since
// the start of the run.
type Data struct {
	Title    string  `json:"title"`
	Scenario string  `json:"scenario"`
	Seed     uint64  `json:"seed"`
	Variants string  `json:"variants"`
	Verdict  string  `json:"verdict"`
	Replay   string  `json:"replay"`
	EndNs    int64   `json:"end_ns"`
	HealNs   int64   `json:"heal_ns,omitempty"` // faults stopped (0: unknown)
	Checks   []Check `json:"checks"`
	// Zoom is the window drawn a second time, larger, around the first
	// check (zero: none).
	Zoom Window `json:"zoom"`
	// Close is a third, closer drawing of the last moments before the
	// first check (zero: none).
	Close  Window `json:"close"`
	Member []Mark `json:"member,omitempty"` // member-wide marks: step-down, heal
	Jobs   []Job  `json:"jobs"`
	Links  []Link `json:"links,omitempty"` // porcupine pages of failing checks
}

// Window is a span of virtual time.
type Window struct {
	StartNs int64 `json:"start_ns"`
	EndNs   int64 `json:"end_ns"`
}

// Check is one check that fired: an invariant, a porcupine model, a
// liveness or deadlock verdict.
type Check struct {
	ID       string `json:"id"`
	Message  string `json:"message"`
	AtNs     int64  `json:"at_ns"`
	Job      int64  `json:"job"`      // -1: not one job's
	Pipeline int    `json:"pipeline"` // -1: not one pipeline's
}

// Job is one job: its own marks (failovers, savepoints), its savepoint
// operations, and its pipelines.
type Job struct {
	Job       int64  `json:"job"`
	Marks     []Mark `json:"marks,omitempty"`
	Ops       []Op   `json:"ops,omitempty"`
	Pipelines []Lane `json:"pipelines"`
}

// Lane is one pipeline. Failing lanes (those a check names; when no check
// names a pipeline, the harness marks one lane of the job concerned so
// that the checks are drawn over a run) are drawn first and open; the
// harness keeps barriers, acknowledgements, hand-offs and operations in
// full only for them.
type Lane struct {
	Job         int64        `json:"job"`
	Pipeline    int          `json:"pipeline"`
	Failing     bool         `json:"failing"`
	Generations []Span       `json:"generations"`
	Checkpoints []Checkpoint `json:"checkpoints"`
	Marks       []Mark       `json:"marks,omitempty"`
	Handoffs    []Handoff    `json:"handoffs,omitempty"`
	Ops         []Op         `json:"ops,omitempty"`
	// Summary counts the lane; the embedded JSON keeps only the summary of
	// a lane that is not failing (Render fills it).
	Summary *Summary `json:"summary,omitempty"`
}

// Summary counts what happened in a lane.
type Summary struct {
	Stored      int `json:"stored"`
	Aborted     int `json:"aborted"`
	Open        int `json:"open"`
	Generations int `json:"generations"`
	Faults      int `json:"faults"`
	Marks       int `json:"marks"`
}

// Summarize counts the lane.
func (l *Lane) Summarize() Summary {
	s := Summary{Generations: len(l.Generations), Marks: len(l.Marks)}
	for _, c := range l.Checkpoints {
		switch c.Outcome {
		case Stored:
			s.Stored++
		case Aborted:
			s.Aborted++
		default:
			s.Open++
		}
	}
	for _, m := range l.Marks {
		if m.Kind == Fault {
			s.Faults++
		}
	}
	return s
}

// embedded is the copy of d written into the page: failing lanes in
// full, the others as their summary.
func (d *Data) embedded() *Data {
	e := *d
	e.Jobs = make([]Job, len(d.Jobs))
	for j, job := range d.Jobs {
		e.Jobs[j] = job
		e.Jobs[j].Pipelines = make([]Lane, len(job.Pipelines))
		for p, l := range job.Pipelines {
			s := l.Summarize()
			if !l.Failing {
				l = Lane{Job: l.Job, Pipeline: l.Pipeline}
			}
			l.Summary = &s
			e.Jobs[j].Pipelines[p] = l
		}
	}
	return &e
}

// Span is a labelled stretch of virtual time (a generation).
type Span struct {
	StartNs int64  `json:"start_ns"`
	EndNs   int64  `json:"end_ns"`
	Label   string `json:"label"`
}

// Outcomes of a checkpoint.
const (
	Stored  = "stored"
	Aborted = "aborted"
	Open    = "open" // still pending when the run ended
)

// Checkpoint is one checkpoint from its trigger to its end.
type Checkpoint struct {
	ID        int64   `json:"id"`
	Type      string  `json:"type"`
	Gen       uint64  `json:"gen"`
	TriggerNs int64   `json:"trigger_ns"`
	EndNs     int64   `json:"end_ns"`
	Outcome   string  `json:"outcome"`
	Reason    string  `json:"reason,omitempty"`
	Barriers  []int64 `json:"barriers,omitempty"` // a task received the barrier
	Acks      []int64 `json:"acks,omitempty"`     // a task acknowledged
}

// Mark kinds.
const (
	Fault    = "fault"    // injected by the harness
	Restore  = "restore"  // a new generation (failover, savepoint resume, job master)
	Watchdog = "watchdog" // the timeout watchdog fired: an expiry (or other deferred failure) starts
	Expiry   = "expiry"   // a deferred failure failed a generation
	Fenced   = "fenced"   // a deferred failure was dropped or did nothing (the fence held)
	Stop     = "stop"     // the trigger path stopped, a cancel, the pipeline finished
	Heal     = "heal"     // faults stopped
)

// Mark is a point event.
type Mark struct {
	AtNs  int64  `json:"at_ns"`
	Kind  string `json:"kind"`
	Label string `json:"label"`
}

// Handoff is one firing of a pipeline's timer in the scheduler (its
// periodic trigger or a checkpoint's timeout watchdog): due, fired by a
// timer thread, started by the thread named.
type Handoff struct {
	Kind      string `json:"kind"` // "trigger" or "watchdog"
	DueNs     int64  `json:"due_ns"`
	FiredNs   int64  `json:"fired_ns"`
	StartedNs int64  `json:"started_ns"` // -1: skipped
	Thread    string `json:"thread"`
}

// Op is one porcupine operation. ReturnNs is -1 for an operation cut
// (its outcome unknown).
type Op struct {
	Model    string `json:"model"`
	Key      string `json:"key"`
	Actor    string `json:"actor"`
	CallNs   int64  `json:"call_ns"`
	ReturnNs int64  `json:"return_ns"`
	Text     string `json:"text"`
	Illegal  bool   `json:"illegal,omitempty"` // in the partition a check found illegal
}

// Link is a porcupine page of a failing check, relative to the page.
type Link struct {
	Model     string `json:"model"`
	Partition string `json:"partition"`
	Href      string `json:"href"`
	Job       int64  `json:"job"`      // the lane the partition belongs to (-1: none)
	Pipeline  int    `json:"pipeline"` // -1: a job's partition, or none
}

// Lanes returns every lane in page order: failing lanes first, in the
// order of the checks that named them, then the others by job and
// pipeline.
func (d *Data) Lanes() []*Lane {
	var fail, rest []*Lane
	for j := range d.Jobs {
		for p := range d.Jobs[j].Pipelines {
			l := &d.Jobs[j].Pipelines[p]
			if l.Failing {
				fail = append(fail, l)
			} else {
				rest = append(rest, l)
			}
		}
	}
	rank := func(l *Lane) int {
		for i, c := range d.Checks {
			if c.Job == l.Job && c.Pipeline == l.Pipeline {
				return i
			}
		}
		return len(d.Checks)
	}
	slices.SortStableFunc(fail, func(a, b *Lane) int { return cmp.Compare(rank(a), rank(b)) })
	return append(fail, rest...)
}

// job returns the job j, or nil.
func (d *Data) job(j int64) *Job {
	for i := range d.Jobs {
		if d.Jobs[i].Job == j {
			return &d.Jobs[i]
		}
	}
	return nil
}
