package oracle

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ckptsim/ckptsim/workloads/cluster"
)

// Class is what a fired check makes of a run: a safety or a liveness
// verdict.
type Class string

// The classes.
const (
	Safety   Class = "safety"
	Liveness Class = "liveness"
)

// Feed is one kind of evidence the harness builds for its checks. A check
// declares the feeds it subscribes to (Check.Feeds); its Source, the label
// CHECKS.md shows, is derived from them, never typed by hand.
type Feed uint8

// The feeds. Harness, Boundary, ThreadTable and VirtualTime are what the
// principle allows a verdict to rest on; SelfReport is the debt.
const (
	// Harness: the harness's own actions and state: the restores, cancels
	// and closes it drove, the faults it injected, what its simulated
	// tasks, sources, sinks, broker and stores did and hold.
	Harness Feed = 1 << iota
	// Boundary: the calls the simulated cluster observed the code under
	// test make at its boundaries (Transport, Storage, StatusStore,
	// IDCounter, JobMaster, the executor hand-off, the lease, the savepoint
	// store, the offset checkpointer), with their arguments and results.
	Boundary
	// ThreadTable: the simulator's thread table: spawns, exits, thread
	// states, lock waits and acquisitions.
	ThreadTable
	// VirtualTime: the simulator's clock.
	VirtualTime
	// SelfReport: a counter, flag or state the code under test computed
	// about itself (a task's Done, a lease's Outstanding, a pool's queue
	// length): read beyond the boundary's interface.
	SelfReport
)

var feedNames = [...]string{"harness", "boundary", "thread table", "virtual time", "self-report"}

// String lists the feeds of f, in declaration order.
func (f Feed) String() string {
	var names []string
	for i, n := range feedNames {
		if f&(1<<i) != 0 {
			names = append(names, n)
		}
	}
	return strings.Join(names, ", ")
}

// Source says where a check's evidence comes from, as CHECKS.md labels it;
// derived from its feeds (Check.Source).
type Source string

// The sources.
const (
	FromBoundary   Source = "boundary"    // boundary calls and the harness's own record, with or without threads and time
	FromWorld      Source = "world"       // the simulator's own view only: threads, locks, virtual time
	FromSelfReport Source = "self-report" // at least one feed the code under test computed about itself
)

// Source derives the check's label from its feeds: self-report as soon as
// it subscribes to a self-report, world when it reads the simulator's view
// only, boundary otherwise.
func (c Check) Source() Source {
	switch {
	case c.Feeds&SelfReport != 0:
		return FromSelfReport
	case c.Feeds&(Harness|Boundary) == 0:
		return FromWorld
	default:
		return FromBoundary
	}
}

// Check describes one check: its stable id (carried in verdicts), the
// class of verdict it gives, the feeds it subscribes to, what it observes,
// what it asserts, the bug class it catches and the planted bug that
// proves it fires.
type Check struct {
	ID       string
	Class    Class
	Feeds    Feed // what it subscribes to; Source is derived from it
	Observes string
	Asserts  string
	Catches  string
	ProvenBy string // hazard (H1..H11) or testdata/mutants name
}

// Finding is one fired check: which check, its class, when in virtual
// time, what it concerns (a job and pipeline, the scheduler, a store) and
// what it saw.
type Finding struct {
	Check   string        `json:"check"`
	Class   Class         `json:"class"`
	At      time.Duration `json:"at_ns"`
	Subject string        `json:"subject"`
	Message string        `json:"message"`
}

// String renders a finding as the verdict lines always read:
// "<virtual time> <subject>: <check>: <message>".
func (f Finding) String() string {
	return fmt.Sprintf("%v %s: %s: %s", f.At, f.Subject, f.Check, f.Message)
}

// Lookup returns the check registered under id.
func Lookup(id string) (Check, bool) {
	i := slices.IndexFunc(checks, func(c Check) bool { return c.ID == id })
	if i < 0 {
		return Check{}, false
	}
	return checks[i], true
}

// All returns every registered check, in registry order.
func All() []Check { return slices.Clone(checks) }

// Must returns the check registered under id and panics on an unknown id
// (a harness bug: every id a finding carries is registered).
func Must(id string) Check {
	c, ok := Lookup(id)
	if !ok {
		panic(fmt.Sprintf("oracle: check %q is not registered (add it to the registry in checks.go)", id))
	}
	return c
}

// Findings collects the findings of one run. It is safe for concurrent
// use; its zero value is ready.
type Findings struct {
	mu   sync.Mutex
	list []Finding
	seen map[string]bool // check+subject reported once, for checks that fire on every sample
}

// Add records a finding of check id.
func (fs *Findings) Add(id string, at time.Duration, subject, format string, args ...any) {
	c := Must(id)
	f := Finding{Check: id, Class: c.Class, At: at, Subject: subject, Message: fmt.Sprintf(format, args...)}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.list = append(fs.list, f)
}

// Once records a finding of check id for subject only the first time.
func (fs *Findings) Once(id string, at time.Duration, subject, format string, args ...any) {
	fs.mu.Lock()
	k := id + "\x00" + subject
	if fs.seen[k] {
		fs.mu.Unlock()
		return
	}
	if fs.seen == nil {
		fs.seen = map[string]bool{}
	}
	fs.seen[k] = true
	fs.mu.Unlock()
	fs.Add(id, at, subject, format, args...)
}

// Assert records a finding when ok is false, and returns ok.
func (fs *Findings) Assert(ok bool, id string, at time.Duration, subject, format string, args ...any) bool {
	if !ok {
		fs.Add(id, at, subject, format, args...)
	}
	return ok
}

// List returns the findings in the order they were made.
func (fs *Findings) List() []Finding {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return slices.Clone(fs.list)
}

// IDs returns the sorted, distinct ids of the checks that fired.
func IDs(fs []Finding) []string {
	var ids []string
	for _, f := range fs {
		if !slices.Contains(ids, f.Check) {
			ids = append(ids, f.Check)
		}
	}
	sort.Strings(ids)
	return ids
}

// Subject names a pipeline as findings do.
func Subject(job int64, pipeline int) string { return fmt.Sprintf("job %d pipeline %d", job, pipeline) }

// Table renders the registry as the Markdown table of CHECKS.md.
func Table() string {
	var b strings.Builder
	b.WriteString("| id | class | source | feeds | observes | asserts | catches | proven by |\n|---|---|---|---|---|---|---|---|\n")
	for _, c := range checks {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s | %s | %s |\n", c.ID, c.Class, c.Source(), c.Feeds, c.Observes, c.Asserts, c.Catches, c.ProvenBy)
	}
	return b.String()
}

// View is all a check receives of the harness: subscriptions to its
// boundary observations (OnBoundary), the lease decorator's (OnLease) and
// the pipelines' runtime observations (OnPipeline). *cluster.Cluster
// implements it; a check never holds the cluster itself, so it cannot
// reach core's objects through it (TestChecksUseOnlyBoundaryTypes).
type View interface {
	OnBoundary(func(cluster.Obs))
	OnLease(func(cluster.Obs))
	OnPipeline(func(cluster.PipeObs))
}
