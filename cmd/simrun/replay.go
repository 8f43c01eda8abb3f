package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/workloads"
	"github.com/ckptsim/ckptsim/workloads/campaign"
)

const replayAbout = `Runs one seed of a scenario again and prints its verdict, trace hash,
checks, violations and artefact paths. The same scenario, seed, variants,
strategy and budget give the same trace hash on every machine. --trace
adds the readable trace (one line per step that says what the run did:
step, virtual time, thread, operation, object; the spawns of threads and
the harness's notes of faults, phases and checks), leaving out the lock,
unlock, wait, signal, broadcast and sleep lines of every scheduling point
and saying how many; --trace=all keeps every line. The trace is printed
when it is short, else written to trace.txt in the seed's artefact
directory (a folder of this replay's own under the system's temporary
folder) and its path printed. With --out DIR it writes DIR/trace.txt (as
--trace chose: readable unless --trace=all) and DIR/outcome.json, and the
seed's artefacts go under DIR. The trace hash is always that of the whole
run, whatever the trace leaves out.
A failing seed also leaves its timeline page (timeline.html: generations,
checkpoints, faults, restores, expiries, hand-offs and the check that
fired on one virtual-time axis) in its artefact directory; --timeline FILE
writes that page to FILE whatever the verdict.

With --expect ID[,ID] the replay is a reproduction (make repro-hN runs one):
it says first, on its own line, whether one of the named checks fired
(campaign.Found: a safety or liveness verdict carrying the id), and exits
0 when it did, 1 when not, whatever else fired.

exit: the seed's verdict: 0 pass, 1 safety, 2 liveness, 3 crash, 4 budget or unknown;
with --expect, 0 reproduced and 1 not; 64 usage or scenario error, or an --out or
--timeline that cannot be written; 3 when an output could not be written after the
run (the verdict's code when it is worse).`

// traceInline is the longest trace replay --trace prints; a longer one
// goes to a file.
const traceInline = 200

// traceMode is --trace: no trace (""), the readable one, or every line.
// A bare --trace is the readable trace.
type traceMode string

const (
	traceReadable traceMode = "readable"
	traceAll      traceMode = "all"
)

func (m *traceMode) String() string { return string(*m) }

func (m *traceMode) Set(s string) error {
	if s == string(traceAll) || s == string(traceReadable) {
		*m = traceMode(s)
		return nil
	}
	on, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("want true, false or all")
	}
	*m = ""
	if on {
		*m = traceReadable
	}
	return nil
}

// IsBoolFlag lets --trace stand alone (flag.Value).
func (m *traceMode) IsBoolFlag() bool { return true }

// leftOut are the operations the readable trace leaves out, in the order
// its count names them: the bookkeeping of a scheduling point, which says
// nothing of what the system did.
var leftOut = []string{"lock", "unlock", "trylock", "wait", "signal", "broadcast", "sleep"}

// readable returns the events of the readable trace and how many of each
// operation in leftOut it left out.
func readable(events []sim.Event) ([]sim.Event, map[string]int) {
	kept := make([]sim.Event, 0, len(events)/32)
	left := map[string]int{}
	for _, e := range events {
		if slices.Contains(leftOut, e.Op) {
			left[e.Op]++
			continue
		}
		kept = append(kept, e)
	}
	return kept, left
}

// leftOutNote says what the readable trace left out: "61558 lock, unlock,
// wait, signal, broadcast and sleep lines left out; --trace=all keeps
// them" ("": nothing).
func leftOutNote(left map[string]int) string {
	var ops []string
	n := 0
	for _, op := range leftOut {
		if left[op] > 0 {
			ops = append(ops, op)
			n += left[op]
		}
	}
	if n == 0 {
		return ""
	}
	list := ops[0]
	if len(ops) > 1 {
		list = strings.Join(ops[:len(ops)-1], ", ") + " and " + ops[len(ops)-1]
	}
	return fmt.Sprintf("%d %s lines left out; --trace=all keeps them", n, list)
}

func replayCmd(args []string, stdout, stderr io.Writer) int {
	var f runFlags
	var ref, timelineFile, expect string
	var trace traceMode
	fs := newFlagSet("replay", "[--scenario] NAME|FILE [--seed S] [flags]", replayAbout, stdout, stderr)
	fs.StringVar(&ref, "scenario", "", "scenario `name|file` (required)")
	f.addSeed(fs, "the seed to replay (default 0)")
	f.addRunOptions(fs)
	f.addOut(fs, "write trace.txt, outcome.json and artefacts to `dir`")
	f.addJSON(fs, "print the outcome as one JSON line instead of the report (the trace only goes to --out)")
	fs.Var(&trace, "trace", fmt.Sprintf("the readable trace (no lock, unlock, wait, signal, broadcast or sleep lines; `all`: every line): printed up to %d lines, else written to trace.txt in the seed's artefact directory, whose path is printed", traceInline))
	fs.StringVar(&timelineFile, "timeline", "", "write the run's timeline page (self-contained HTML) to `file`")
	fs.StringVar(&expect, "expect", "", "check `ids` (comma-separated) the replay must fire: exit 0 when one did, 1 when none did")
	if c := parse(fs, args, stderr); c >= 0 {
		return c
	}
	if ref == "" {
		return usagef(stderr, "replay", "--scenario is required")
	}
	sc, err := lookup(ref)
	if err != nil {
		return usagef(stderr, "replay", "%v", err)
	}
	if err := writableFile(timelineFile); err != nil {
		return usagef(stderr, "replay", "--timeline: %v", err)
	}
	if err := writableDir(f.out); err != nil {
		return usagef(stderr, "replay", "--out: %v", err)
	}
	opt := f.options(f.seed)
	opt.Trace = true
	opt.Timeline = timelineFile
	opt.ArtifactDir = f.out
	if f.out == "" {
		// a folder of this replay's own: another replay never writes there
		if opt.ArtifactDir, err = os.MkdirTemp("", "simrun-replay-"); err != nil {
			return usagef(stderr, "replay", "the artefact folder: %v", err)
		}
		defer os.Remove(opt.ArtifactDir) // when nothing was written there
	}
	out := replayRun(job{sc: sc, opt: opt, replay: f.replayFlags(string(f.strategy))}, stderr)
	events, left := out.Events, map[string]int(nil)
	if trace != traceAll {
		events, left = readable(out.Events)
	}
	ioErrs := out.IOErrors
	if err := writeReplay(f.out, out, events); err != nil {
		ioErrs = append(ioErrs, fmt.Sprintf("writing %s: %v", f.out, err))
	}
	code := verdictExit(out.Verdict)
	var reproduced string
	if expect != "" {
		code, reproduced = expectExit(out, strings.Split(expect, ","))
	}
	if len(ioErrs) > 0 {
		code = worse(code, exitCrash)
	}
	if f.json {
		stdout.Write(jsonLine(out))
		if reproduced != "" {
			fmt.Fprintln(stderr, reproduced)
		}
		return reportIOErrors(stderr, "replay", ioErrs, code)
	}
	// A reproduction's answer comes first: under a profile other checks
	// may fire too, and the first line says whether the one asked for did.
	if reproduced != "" {
		fmt.Fprintln(stdout, reproduced)
	}
	var tracePath string
	if trace != "" {
		if len(events) <= traceInline {
			stdout.Write(traceText(events))
		} else if tracePath, err = writeTrace(f.out, opt.ArtifactDir, out, events); err != nil {
			ioErrs, code = append(ioErrs, fmt.Sprintf("writing the trace: %v", err)), worse(code, exitCrash)
		}
	}
	printOutcome(stdout, out)
	if trace != "" {
		fmt.Fprintln(stdout, traceLine(len(events), leftOutNote(left), tracePath))
	}
	return reportIOErrors(stderr, "replay", ioErrs, code)
}

// traceLine says how long the trace is, what it left out (note) and where
// it is ("": printed above): "trace: 765 lines (61558 lock, ... left out;
// --trace=all keeps them) written to PATH".
func traceLine(lines int, note, path string) string {
	s := fmt.Sprintf("trace: %d lines", lines)
	if note != "" {
		s += " (" + note + ")"
	}
	if path == "" {
		return s + " printed above"
	}
	return s + " written to " + path
}

// replayRun runs the replay's one seed (runJob), showing its progress on
// stderr while it runs long.
func replayRun(j job, stderr io.Writer) workloads.Outcome {
	prog := newProgress(stderr, 1)
	prog.lone = true
	stop := prog.tick()
	defer func() { stop(); prog.end() }()
	return prog.run(0, j)
}

// expectExit judges a reproduction: exit 0 when one of want fired
// (campaign.Found), else 1, and the line that says which.
func expectExit(out workloads.Outcome, want []string) (int, string) {
	if id, ok := campaign.Found(out, want...); ok {
		return 0, fmt.Sprintf("reproduced: %s fired (%s seed %d, verdict %s)", id, out.Scenario, out.Seed, out.Verdict)
	}
	return 1, fmt.Sprintf("not reproduced: none of %s fired (%s seed %d, verdict %s, checks %v)",
		strings.Join(want, ", "), out.Scenario, out.Seed, out.Verdict, out.Checks)
}

// reportIOErrors prints the outputs that could not be written and returns
// code.
func reportIOErrors(stderr io.Writer, cmd string, errs []string, code int) int {
	for _, e := range errs {
		fmt.Fprintf(stderr, "simrun %s: %s\n", cmd, e)
	}
	return code
}

// traceText is a trace, one line per event.
func traceText(events []sim.Event) []byte {
	var b bytes.Buffer
	for _, e := range events {
		fmt.Fprintln(&b, e.String())
	}
	return b.Bytes()
}

// writeTrace returns where the trace of a long replay is: dir/trace.txt
// (writeReplay wrote it), else trace.txt in the seed's artefact folder.
func writeTrace(dir, artifacts string, o workloads.Outcome, events []sim.Event) (string, error) {
	if dir != "" {
		return filepath.Join(dir, "trace.txt"), nil
	}
	path := filepath.Join(artifacts, fmt.Sprintf("%s-seed-%d", o.Scenario, o.Seed), "trace.txt")
	return path, writeAtomic(path, traceText(events))
}

// writableFile checks that path ("": none) can be written before a run
// spends its time: its folder exists or can be made, and takes a file.
func writableFile(path string) error {
	if path == "" {
		return nil
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("%s is a folder", path)
	}
	return writableDir(filepath.Dir(path))
}

// writableDir checks that files can be created in dir ("": none), making
// it if needed.
func writableDir(dir string) error {
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".simrun-check-*")
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		return fmt.Errorf("cannot create files in %s: %v", dir, pe.Err)
	}
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(f.Name())
}

// printOutcome writes a seed's result as "key: value" lines.
func printOutcome(w io.Writer, o workloads.Outcome) {
	fmt.Fprintf(w, "scenario: %s\nseed: %d\nvariants: %s\nverdict: %s\ntrace_hash: %s\nsteps: %d\nsim: %v\nwall: %v\n",
		o.Scenario, o.Seed, o.Variants, o.Verdict, o.TraceHash, o.Steps, time.Duration(o.SimNs),
		time.Duration(o.WallNs).Round(time.Millisecond))
	if o.Swarm != nil {
		fmt.Fprintf(w, "swarm: %s\n", workloads.SwarmString(o.Swarm))
	}
	if o.Options != nil {
		fmt.Fprintf(w, "options: %s\n", workloads.OptionsString(o.Options))
	}
	if len(o.Checks) > 0 {
		fmt.Fprintf(w, "checks: %s\n", strings.Join(o.Checks, ", "))
	}
	for _, v := range o.Violations {
		fmt.Fprintf(w, "violation: %s\n", strings.ReplaceAll(v, "\n", "\n    "))
	}
	for _, a := range o.Artifacts {
		fmt.Fprintf(w, "artifact: %s\n", a)
	}
	fmt.Fprintf(w, "replay: %s\n", o.Replay)
}

// writeReplay writes trace.txt (events) and outcome.json to dir ("":
// nothing).
func writeReplay(dir string, o workloads.Outcome, events []sim.Event) error {
	if dir == "" {
		return nil
	}
	js, err := json.MarshalIndent(o, "", "  ")
	if err != nil {
		return err
	}
	if err := writeAtomic(filepath.Join(dir, "trace.txt"), traceText(events)); err != nil {
		return err
	}
	return writeAtomic(filepath.Join(dir, "outcome.json"), append(js, '\n'))
}
