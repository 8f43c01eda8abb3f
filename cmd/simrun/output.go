package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/ckptsim/ckptsim/workloads"
)

// writeAtomic writes a file through a temporary file in the same folder
// and a rename, so that a reader never sees half of it.
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // a no-op after the rename
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// writeResults writes results.jsonl, summary.json and summary.txt to dir.
func writeResults(dir string, r *report) error {
	var jl bytes.Buffer
	enc := json.NewEncoder(&jl)
	for _, o := range r.sortedOutcomes() {
		if err := enc.Encode(o); err != nil {
			return err
		}
	}
	sum, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	var txt bytes.Buffer
	r.writeText(&txt)
	for _, f := range []struct {
		name string
		data []byte
	}{{"results.jsonl", jl.Bytes()}, {"summary.json", append(sum, '\n')}, {"summary.txt", txt.Bytes()}} {
		if err := writeAtomic(filepath.Join(dir, f.name), f.data); err != nil {
			return err
		}
	}
	return nil
}

// seedLine is the --json line of one seed: the fields that do not depend
// on the machine, so that two runs of a seed print the same line.
type seedLine struct {
	Scenario   string            `json:"scenario"`
	Seed       uint64            `json:"seed"`
	Verdict    workloads.Verdict `json:"verdict"`
	TraceHash  string            `json:"trace_hash"`
	SimNs      int64             `json:"sim_ns"`
	Steps      int64             `json:"steps"`
	Violations []string          `json:"violations"`
	Checks     []string          `json:"checks,omitempty"` // ids of the checks that fired
	Replay     string            `json:"replay"`
}

func jsonLine(o workloads.Outcome) []byte {
	l := seedLine{Scenario: o.Scenario, Seed: o.Seed, Verdict: o.Verdict, TraceHash: o.TraceHash, SimNs: o.SimNs,
		Steps: o.Steps, Violations: o.Violations, Checks: o.Checks, Replay: o.Replay}
	if l.Violations == nil {
		l.Violations = []string{}
	}
	b, _ := json.Marshal(l)
	return append(b, '\n')
}
