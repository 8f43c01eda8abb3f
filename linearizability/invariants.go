package linearizability

import (
	"fmt"
	"sync"
	"time"
)

// Violation is one broken invariant.
type Violation struct {
	Name    string // "one-pending", "increasing-ids", "timer-threads", ...
	Subject string // what broke it: "pipeline 3", "scheduler"
	Message string
	AtNs    int64 // virtual time
}

func (v Violation) String() string {
	return fmt.Sprintf("%s: %s: %s (at %s virtual)", v.Name, v.Subject, v.Message, time.Duration(v.AtNs))
}

// Invariants collects cheap assertions made during a run and reports them
// as a Verdict. It is safe for concurrent use; its zero value is ready.
// The helpers keep the little state their invariant needs, per pipeline.
type Invariants struct {
	mu         sync.Mutex
	checks     int
	violations []Violation
	pending    map[int]int
	lastID     map[int]int64
}

// Assert records a violation named name when ok is false, and returns ok.
func (iv *Invariants) Assert(ok bool, name, subject string, atNs int64, format string, args ...any) bool {
	iv.mu.Lock()
	defer iv.mu.Unlock()
	iv.assert(ok, name, subject, atNs, format, args...)
	return ok
}

func (iv *Invariants) assert(ok bool, name, subject string, atNs int64, format string, args ...any) {
	iv.checks++
	if !ok {
		iv.violations = append(iv.violations, Violation{Name: name, Subject: subject,
			Message: fmt.Sprintf(format, args...), AtNs: atNs})
	}
}

// PendingAdded notes a new pending checkpoint of pipeline: at most one may
// be pending per pipeline.
func (iv *Invariants) PendingAdded(pipeline int, atNs int64) {
	iv.mu.Lock()
	defer iv.mu.Unlock()
	if iv.pending == nil {
		iv.pending = map[int]int{}
	}
	iv.pending[pipeline]++
	n := iv.pending[pipeline]
	iv.assert(n <= 1, "one-pending", pipelineName(pipeline), atNs, "%d checkpoints pending", n)
}

// PendingRemoved notes that a pending checkpoint of pipeline completed or
// was aborted.
func (iv *Invariants) PendingRemoved(pipeline int, atNs int64) {
	iv.mu.Lock()
	defer iv.mu.Unlock()
	n := iv.pending[pipeline]
	iv.assert(n > 0, "one-pending", pipelineName(pipeline), atNs, "pending count would go below zero")
	if n > 0 {
		iv.pending[pipeline] = n - 1
	}
}

// CheckpointID notes a newly allocated checkpoint id of pipeline: ids must
// strictly increase.
func (iv *Invariants) CheckpointID(pipeline int, id, atNs int64) {
	iv.mu.Lock()
	defer iv.mu.Unlock()
	if iv.lastID == nil {
		iv.lastID = map[int]int64{}
	}
	last, seen := iv.lastID[pipeline]
	iv.assert(!seen || id > last, "increasing-ids", pipelineName(pipeline), atNs,
		"checkpoint id %d after %d", id, last)
	iv.lastID[pipeline] = max(id, last)
}

// RestoreIDs notes that a restore of pipeline resumes ids after
// latestCompleted: ids of aborted pending checkpoints may then be reused.
func (iv *Invariants) RestoreIDs(pipeline int, latestCompleted int64) {
	iv.mu.Lock()
	defer iv.mu.Unlock()
	if iv.lastID == nil {
		iv.lastID = map[int]int64{}
	}
	iv.lastID[pipeline] = latestCompleted
}

// TimerThreads asserts that the shared scheduler runs exactly want timer
// threads.
func (iv *Invariants) TimerThreads(n, want int, atNs int64) {
	iv.Assert(n == want, "timer-threads", "scheduler", atNs, "%d timer threads, want %d", n, want)
}

// Violations returns a copy of the violations so far, in the order found.
func (iv *Invariants) Violations() []Violation {
	iv.mu.Lock()
	defer iv.mu.Unlock()
	return append([]Violation(nil), iv.violations...)
}

// Verdict reports the invariants: Illegal with the first violation, else Ok.
// Ops counts the assertions made.
func (iv *Invariants) Verdict() Verdict {
	iv.mu.Lock()
	defer iv.mu.Unlock()
	v := Verdict{Model: "invariants", Result: Ok, Ops: iv.checks}
	if len(iv.violations) == 0 {
		return v
	}
	first := iv.violations[0]
	v.Result, v.Partition = Illegal, first.Subject
	v.Message = fmt.Sprintf("%s: %s (at %s virtual)", first.Name, first.Message, time.Duration(first.AtNs))
	if n := len(iv.violations) - 1; n > 0 {
		v.Message += fmt.Sprintf("; %d more violations", n)
	}
	return v
}

func pipelineName(p int) string { return fmt.Sprintf("pipeline %d", p) }
