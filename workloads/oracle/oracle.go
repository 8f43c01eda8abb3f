package oracle

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// Class is what a fired check makes of a run: a safety or a liveness
// verdict.
type Class string

// The classes.
const (
	Safety   Class = "safety"
	Liveness Class = "liveness"
)

// Source says where a check's evidence comes from. Boundary and Injected
// and Time are the sources the principle allows for verdicts; SelfReport
// marks a check that still reads something the code under test computed
// about itself (listed so that the debt is visible, see CHECKS.md).
type Source string

// The sources.
const (
	Boundary   Source = "boundary"    // calls observed at Transport, Storage, StatusStore, IDCounter, JobMaster, executor, lease, savepoint store, broker
	World      Source = "world"       // the simulator's own view: threads, locks, virtual time
	SelfReport Source = "self-report" // a counter or statistic computed by the code under test
)

// Check describes one check: its stable id (carried in verdicts), the
// class of verdict it gives, what it observes, what it asserts, the bug
// class it catches and the planted bug that proves it fires.
type Check struct {
	ID       string
	Class    Class
	Source   Source
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
	b.WriteString("| id | class | source | observes | asserts | catches | proven by |\n|---|---|---|---|---|---|---|\n")
	for _, c := range checks {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s | %s |\n", c.ID, c.Class, c.Source, c.Observes, c.Asserts, c.Catches, c.ProvenBy)
	}
	return b.String()
}
