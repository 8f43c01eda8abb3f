package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ckptsim/ckptsim/workloads"
)

const replayAbout = `Runs one seed of a scenario again and prints its readable trace (one
line per scheduling step: step, virtual time, thread, operation, object),
then its verdict, trace hash, violations and artefact paths. The same
scenario, seed, variants, strategy and budget give the same trace hash on
every machine. With --out DIR it also writes DIR/trace.txt and
DIR/outcome.json, and failing checks leave their visualisations there.
A failing seed also leaves its timeline page (timeline.html: generations,
checkpoints, faults, restores, expiries, hand-offs and the check that
fired on one virtual-time axis) in its artefact directory; --timeline FILE
writes that page to FILE whatever the verdict.

exit: the seed's verdict: 0 pass, 1 safety, 2 liveness, 3 crash, 4 budget or unknown;
64 usage or scenario error.`

func replayCmd(args []string, stdout, stderr io.Writer) int {
	var f runFlags
	var ref, timelineFile string
	trace := true
	fs := newFlagSet("replay", "[--scenario] NAME|FILE --seed S [flags]", replayAbout, stdout, stderr)
	fs.StringVar(&ref, "scenario", "", "scenario `name|file` (required)")
	f.addSeed(fs, "the seed")
	f.addRunOptions(fs)
	f.addOut(fs, "write trace.txt, outcome.json and artefacts to `dir`")
	f.addJSON(fs, "print the outcome as one JSON line instead of the report (the trace only goes to --out)")
	fs.BoolVar(&trace, "trace", true, "print the readable trace")
	fs.StringVar(&timelineFile, "timeline", "", "write the run's timeline page (self-contained HTML) to `file`")
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
	opt := f.options(f.seed)
	opt.Trace = true
	opt.Timeline = timelineFile
	opt.ArtifactDir = filepath.Join(os.TempDir(), "simrun-artifacts")
	if f.out != "" {
		opt.ArtifactDir = f.out
	}
	out := runJob(job{sc: sc, opt: opt, replay: f.replayFlags()})
	if err := writeReplay(f.out, out); err != nil {
		fmt.Fprintf(stderr, "simrun replay: writing %s: %v\n", f.out, err)
	}
	if f.json {
		stdout.Write(jsonLine(out))
		return verdictExit(out.Verdict)
	}
	if trace {
		for _, e := range out.Events {
			fmt.Fprintln(stdout, e.String())
		}
	}
	printOutcome(stdout, out)
	return verdictExit(out.Verdict)
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

// writeReplay writes trace.txt and outcome.json to dir ("": nothing).
func writeReplay(dir string, o workloads.Outcome) error {
	if dir == "" {
		return nil
	}
	var tr bytes.Buffer
	for _, e := range o.Events {
		fmt.Fprintln(&tr, e.String())
	}
	js, err := json.MarshalIndent(o, "", "  ")
	if err != nil {
		return err
	}
	if err := writeAtomic(filepath.Join(dir, "trace.txt"), tr.Bytes()); err != nil {
		return err
	}
	return writeAtomic(filepath.Join(dir, "outcome.json"), append(js, '\n'))
}
