package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/ckptsim/ckptsim/workloads"
	"github.com/ckptsim/ckptsim/workloads/campaign"
)

// The files of a results folder.
const (
	resultsFile  = "results.jsonl" // one record per finished seed
	manifestFile = "campaign.json" // what the campaign runs (resume and merge read it)
)

// record is one line of results.jsonl: the seed's outcome and its latency
// histograms, from which every summary figure is recomputed (resume, merge).
type record struct {
	workloads.Outcome
	Latency latencies `json:"latency_hist"`
}

// newRecord makes the record of a finished seed.
func newRecord(o workloads.Outcome) record {
	rec := record{Outcome: o, Latency: seedLatencies(o.Latency)}
	rec.Outcome.Latency = workloads.Latencies{}
	return rec
}

func (r record) key() seedKey {
	return seedKey{r.Scenario, r.Seed, r.Variants, r.Strategy, r.BuggifyFlag}
}

// seedKey names a seed of a campaign: two rows of one scenario may differ
// only in their strategy or BUGGIFY override.
type seedKey struct {
	scenario          string
	seed              uint64
	variants          string
	strategy, buggify string
}

// writeAtomic writes a file durably and atomically (the library's
// WriteFile: file and folder fsynced).
func writeAtomic(path string, data []byte) error { return campaign.WriteFile(path, data) }

// writeSummary writes summary.json and summary.txt to dir.
func writeSummary(dir string, r *report) error {
	sum, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	var txt bytes.Buffer
	r.writeText(&txt, true) // the file has room for every detail
	if err := writeAtomic(filepath.Join(dir, "summary.json"), append(sum, '\n')); err != nil {
		return err
	}
	return writeAtomic(filepath.Join(dir, "summary.txt"), txt.Bytes())
}

// readRecords reads the records of a results.jsonl, refusing a seed that
// appears twice.
func readRecords(path string) ([]record, error) {
	var out []record
	seen := map[seedKey]bool{}
	err := campaign.ReadJournal(path, func(_ int, b []byte) error {
		var rec record
		if err := json.Unmarshal(b, &rec); err != nil {
			return err
		}
		if seen[rec.key()] {
			return fmt.Errorf("seed %d of %s (%s) recorded twice", rec.Seed, rec.Scenario, rec.Variants)
		}
		seen[rec.key()] = true
		out = append(out, rec)
		return nil
	})
	return out, err
}

// sortResults rewrites a results.jsonl atomically in campaign order: by
// group (the place of the record's scenario or column), seed, variants.
func sortResults(path string, group func(record) int) error {
	type line struct {
		g   int
		key seedKey
		b   []byte
	}
	var lines []line
	err := campaign.ReadJournal(path, func(_ int, b []byte) error {
		var rec struct {
			Scenario string `json:"scenario"`
			Seed     uint64 `json:"seed"`
			Variants string `json:"variants"`
		}
		if err := json.Unmarshal(b, &rec); err != nil {
			return err
		}
		r := record{Outcome: workloads.Outcome{Scenario: rec.Scenario, Seed: rec.Seed, Variants: rec.Variants}}
		lines = append(lines, line{group(r), r.key(), slices.Clone(b)})
		return nil
	})
	if err != nil {
		return err
	}
	slices.SortStableFunc(lines, func(a, b line) int {
		return cmp.Or(cmp.Compare(a.g, b.g), cmp.Compare(a.key.seed, b.key.seed), cmp.Compare(a.key.variants, b.key.variants))
	})
	var buf bytes.Buffer
	for _, l := range lines {
		buf.Write(l.b)
		buf.WriteByte('\n')
	}
	return writeAtomic(path, buf.Bytes())
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
	Swarm      map[string]string `json:"swarm,omitempty"`   // what a swarm seed ran with
	Options    map[string]string `json:"options,omitempty"` // the design and options a swarm seed drew
	// Profile is --profile, Variants the pairs it expanded to with
	// --variant and the scenario's on top (both only under a profile).
	Profile  string `json:"profile,omitempty"`
	Variants string `json:"variants,omitempty"`
}

func jsonLine(o workloads.Outcome) []byte {
	l := seedLine{Scenario: o.Scenario, Seed: o.Seed, Verdict: o.Verdict, TraceHash: o.TraceHash, SimNs: o.SimNs,
		Steps: o.Steps, Violations: o.Violations, Checks: o.Checks, Replay: o.Replay, Swarm: o.Swarm, Options: o.Options}
	if o.Profile != "" {
		l.Profile, l.Variants = o.Profile, o.Variants
	}
	if l.Violations == nil {
		l.Violations = []string{}
	}
	b, _ := json.Marshal(l)
	return append(b, '\n')
}
