package linearizability

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/ckptsim/ckptsim/model"
)

// Result is a three-valued verdict. The zero Result is Unknown, so a
// verdict nobody filled in never passes.
type Result int

const (
	// Unknown: the check did not finish (a limit of Options hit) or never
	// ran. Never a pass.
	Unknown Result = iota
	// Ok: every partition has a linearization.
	Ok
	// Illegal: some partition has none; Verdict.Partition names the first
	// in key order.
	Illegal
)

func (r Result) String() string {
	switch r {
	case Ok:
		return "ok"
	case Illegal:
		return "illegal"
	}
	return "unknown"
}

// Verdict is the outcome of one check: a model over a history, or the
// run's invariants.
type Verdict struct {
	Model     string // model name, or "invariants"
	Result    Result
	Partition string // the failing or unfinished partition ("pipeline 3 partition 1")
	Message   string
	HTMLPath  string // porcupine's visualisation of the failing partition, once written
	// Key is the failing partition's key (Illegal only), and At the call
	// timestamp (in the history's units) of the earliest operation that
	// cannot follow the longest legal prefix: where the check fired.
	Key        model.Key
	At         int64
	Ops        int // operations checked
	Partitions int
	Elapsed    time.Duration
	// Steps is the model steps porcupine took over every partition (the
	// witness replay's are not counted), and SearchBytes the most any one
	// partition's search was charged against Options.MaxSearchBytes. Both
	// depend on the history and the options only.
	Steps       int64
	SearchBytes int64

	failure *failure              // what WriteVisualization needs; nil unless Illegal
	unknown []porcupine.Operation // the first unfinished partition; nil unless Unknown
}

// WriteUnknownHistory writes the first unfinished partition of an Unknown
// verdict to dir/<model>-unknown.history (the history file format, so
// that it can be checked again with more steps) and returns the path.
func (v Verdict) WriteUnknownHistory(dir string, spec model.Spec) (string, error) {
	if v.Result != Unknown || v.unknown == nil {
		return "", fmt.Errorf("verdict %s has no unfinished partition", v.Result)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, v.Model+"-unknown.history")
	var b strings.Builder
	if err := WriteHistory(&b, spec, "unknown", v.unknown); err != nil {
		return "", err
	}
	return path, os.WriteFile(path, []byte(b.String()), 0o644)
}

// Pass reports whether the verdict is Ok. Unknown is not a pass.
func (v Verdict) Pass() bool { return v.Result == Ok }

func (v Verdict) String() string {
	s := fmt.Sprintf("%s: %s (%d ops, %d partitions, %s)", v.Model, v.Result, v.Ops, v.Partitions,
		v.Elapsed.Round(time.Millisecond))
	if v.Partition != "" {
		s += "; " + v.Partition
	}
	if v.Message != "" {
		s += ": " + v.Message
	}
	if v.HTMLPath != "" {
		s += "; see " + v.HTMLPath
	}
	return s
}

// Report gathers the verdicts of one run.
type Report struct {
	Run      string // what ran: "scenario failover-storm seed 42"
	Replay   string // the command that replays the run
	Verdicts []Verdict
}

// Add appends verdicts.
func (r *Report) Add(v ...Verdict) { r.Verdicts = append(r.Verdicts, v...) }

// Result is the worst verdict: Illegal over Unknown over Ok. An empty
// report is Unknown.
func (r *Report) Result() Result {
	if len(r.Verdicts) == 0 {
		return Unknown
	}
	worst := Ok
	for _, v := range r.Verdicts {
		switch {
		case v.Result == Illegal:
			return Illegal
		case v.Result == Unknown:
			worst = Unknown
		}
	}
	return worst
}

// Pass reports whether every verdict is Ok (and there is at least one).
func (r *Report) Pass() bool { return r.Result() == Ok }

// Finish writes the visualisation of every Illegal verdict into dir (when
// dir is not empty) and prints the report to w, with the replay command
// when the run did not pass. It returns the first write error.
func (r *Report) Finish(dir string, w io.Writer) error {
	var first error
	if dir != "" {
		for i := range r.Verdicts {
			if err := r.Verdicts[i].WriteVisualization(dir); err != nil && first == nil {
				first = err
			}
		}
	}
	if _, err := io.WriteString(w, r.String()); err != nil && first == nil {
		first = err
	}
	return first
}

func (r *Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "linearizability %s: %s\n", r.Run, r.Result())
	for _, v := range r.Verdicts {
		fmt.Fprintf(&b, "  %s\n", v)
	}
	if !r.Pass() && r.Replay != "" {
		fmt.Fprintf(&b, "  replay: %s\n", r.Replay)
	}
	return b.String()
}
