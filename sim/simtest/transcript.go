package simtest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/ckptsim/ckptsim/core/env"
	"github.com/ckptsim/ckptsim/sim"
)

// Script is the system under test of one transcript file, driven by its
// commands inside a simulated world.
type Script interface {
	// Started reports whether the first command (new) has built the
	// system; until then every other command is an error.
	Started() bool
	// Run executes one command; what the system did goes to the
	// Transcript, an error to the output as "error: ...".
	Run(d *datadriven.TestData) error
	// Close stops what the script started, at the end of the file.
	Close()
}

// Transcripts runs every file under dir (datadriven.Walk) in a simulated
// world of its own (seed 1): start builds the file's script, and each
// command's output is what the script logged to its Transcript while the
// command ran ("ok" when nothing), compared with the file or rewritten
// with -rewrite. The world stands still while the test reads the next
// command, so a transcript is deterministic for a given simulator.
func Transcripts(t *testing.T, dir string, start func(w *sim.World) (Script, *Transcript)) {
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("if the difference is on purpose, rewrite the transcripts of this package: go test -run '^%s$' -rewrite (make transcripts does coord's and sched's)", t.Name())
		}
	})
	datadriven.Walk(t, dir, func(t *testing.T, path string) {
		in, out, done := make(chan *datadriven.TestData), make(chan string), make(chan sim.Result, 1)
		w := sim.New(sim.Config{Seed: 1, MaxTime: 24 * time.Hour})
		go func() {
			done <- w.Run(func() {
				s, tr := start(w)
				defer s.Close()
				for d := range in {
					out <- do(s, tr, d)
				}
			})
		}()
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			in <- d
			return <-out
		})
		close(in)
		if r := <-done; r.Outcome != sim.OutcomeDone {
			t.Fatalf("world: %v: %s", r.Outcome, r.Reason)
		}
	})
}

func do(s Script, tr *Transcript, d *datadriven.TestData) string {
	if !s.Started() && d.Cmd != "new" {
		return "error: the first command is new"
	}
	if err := s.Run(d); err != nil {
		return "error: " + err.Error()
	}
	return tr.take()
}

// Transcript collects a script's lines, each stamped with the virtual
// time since the script began.
type Transcript struct {
	w     *sim.World
	mu    env.Mutex
	start time.Time
	lines []string
}

// NewTranscript starts a transcript now; mu guards its lines (a script
// passes the mutex that guards its own state, so that logging takes the
// same lock it always did).
func NewTranscript(w *sim.World, mu env.Mutex) *Transcript {
	return &Transcript{w: w, mu: mu, start: w.Now()}
}

// Logf appends one line.
func (tr *Transcript) Logf(format string, args ...any) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.lines = append(tr.lines, fmt.Sprintf("%-7s %s", tr.Since(tr.w.Now()), fmt.Sprintf(format, args...)))
}

// Since is the virtual time from the transcript's start to t.
func (tr *Transcript) Since(t time.Time) time.Duration { return t.Sub(tr.start) }

// take returns the lines since the last take ("ok" when none).
func (tr *Transcript) take() string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	out := strings.Join(tr.lines, "\n")
	tr.lines = nil
	if out == "" {
		return "ok"
	}
	return out
}
