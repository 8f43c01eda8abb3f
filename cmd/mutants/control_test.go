package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

// fakeSeeds is a seedsFunc over a table: seed -> line (a pass when
// absent). It records the seeds it handed out.
type fakeSeeds struct {
	mu    sync.Mutex
	lines map[uint64]seedLine
	ran   []uint64
}

func (f *fakeSeeds) run(_ context.Context, first uint64, n int, _ string, each func(seedLine) bool) (float64, error) {
	for s := first; s < first+uint64(n); s++ {
		l, ok := f.lines[s]
		if !ok {
			l = seedLine{Verdict: "pass", Violations: []string{}}
		}
		l.Seed = s
		f.mu.Lock()
		f.ran = append(f.ran, s)
		f.mu.Unlock()
		if !each(l) {
			return float64(s - first + 1), nil // one CPU second a seed
		}
	}
	return float64(n), nil
}

func fires(check string) seedLine {
	return seedLine{Verdict: "safety", Checks: []string{check}, Violations: []string{"1s job 0 pipeline 1: " + check + ": seen"}}
}

var gj = "generation-justified"

// TestControlFailsIsNotFound: the named check fires on the mutant, but the
// unpatched tree fails the same seeds: not found, "control fails", and the
// campaign stops after tries such seeds.
func TestControlFailsIsNotFound(t *testing.T) {
	m := &Mutant{Name: "relabel", Check: gj}
	patched := &fakeSeeds{lines: map[uint64]seedLine{1: fires(gj), 2: fires(gj), 4: fires(gj), 6: fires(gj)}}
	control := &fakeSeeds{lines: map[uint64]seedLine{1: fires(gj), 2: fires(gj), 4: fires(gj), 6: fires(gj)}}
	c := runCampaign(context.Background(), m, "random", 0, 100, 3, patched.run, control.run)
	if c.Found != 0 || c.Seed != -1 {
		t.Errorf("found %d (seed %d) although every control fails", c.Found, c.Seed)
	}
	if got := control.ran; !slices.Equal(got, []uint64{1, 2, 4}) {
		t.Errorf("controls ran on %v, want the first 3 detecting seeds [1 2 4]", got)
	}
	if c.Ran != 5 || len(c.Controls) != 3 || c.Controls[0].Verdict != "safety" || !c.ControlStop {
		t.Errorf("ran %d seeds, controls %+v; want 5 seeds and 3 failing controls", c.Ran, c.Controls)
	}
	if got, want := campaignText(c), "not found: stopped after 5 seeds, the control failing on all 3 that fired the check"; got != want {
		t.Errorf("campaign text %q, want %q", got, want)
	}
	r := &Result{Mutant: m, Campaigns: []Campaign{c}}
	summarize(r)
	if r.Detected || r.Control != "fails" || r.Status() != "control fails" {
		t.Errorf("row: detected %v, control %q, status %q; want not found, control fails", r.Detected, r.Control, r.Status())
	}
}

// TestControlPassesLaterSeed: a detecting seed whose control fails is
// skipped; the next one whose control passes is the detection, counted
// from the first seed.
func TestControlPassesLaterSeed(t *testing.T) {
	m := &Mutant{Name: "m", Check: gj}
	patched := &fakeSeeds{lines: map[uint64]seedLine{11: fires(gj), 13: fires(gj), 15: fires(gj)}}
	control := &fakeSeeds{lines: map[uint64]seedLine{11: fires(gj)}}
	c := runCampaign(context.Background(), m, "pct", 10, 100, 3, patched.run, control.run)
	if c.Found != 4 || c.Seed != 13 || len(c.Controls) != 2 || !c.Controls[1].Passes() {
		t.Errorf("found %d (seed %d), controls %+v; want 4 (seed 13) after one failing control", c.Found, c.Seed, c.Controls)
	}
	if last := patched.ran[len(patched.ran)-1]; last != 13 {
		t.Errorf("campaign ran on to seed %d; it stops at the detection", last)
	}
	if c.CPUS != 4 { // the fake charges one CPU second a seed: seeds 10-13
		t.Errorf("campaign cpu_s %v, want the patched run's 4 up to the detection (controls not counted)", c.CPUS)
	}
	r := &Result{Mutant: m, Campaigns: []Campaign{c}}
	summarize(r)
	if r.Status() != "found" || r.Control != "passes" {
		t.Errorf("status %q, control %q", r.Status(), r.Control)
	}
}

// TestUnknownIsNotFound: an unknown verdict whose text (and even ids)
// names the check, a crash and a budget are not detections; no control
// runs for them.
func TestUnknownIsNotFound(t *testing.T) {
	m := &Mutant{Name: "m", Check: "model-watermark"}
	patched := &fakeSeeds{lines: map[uint64]seedLine{
		0: {Verdict: "unknown", Violations: []string{"2m0s partition 1: model-watermark: unknown: step bound (unknown is not a pass)"}},
		1: {Verdict: "unknown", Checks: []string{"model-watermark"}},
		2: {Verdict: "crash", Violations: []string{"panic in x: model-watermark: boom"}},
		3: {Verdict: "budget", Violations: []string{"step budget exhausted"}},
		4: {Verdict: "safety", Violations: []string{"1s partition 1: model-watermark: text only"}},
	}}
	control := &fakeSeeds{}
	c := runCampaign(context.Background(), m, "random", 0, 6, 3, patched.run, control.run)
	if c.Found != 0 || len(control.ran) != 0 || c.Ran != 6 {
		t.Errorf("found %d, controls ran on %v, %d seeds ran; want not found, no control, 6 seeds", c.Found, control.ran, c.Ran)
	}
	if !slices.Equal(c.Other, []string{"budget", "crash", "unknown"}) {
		t.Errorf("other verdicts %v", c.Other)
	}
	r := &Result{Mutant: m, Campaigns: []Campaign{c}}
	summarize(r)
	if r.Status() != "not found" {
		t.Errorf("status %q, want not found", r.Status())
	}
}

// TestResumeSkipsFinished: rows journalled at the same tree and settings
// are kept and not measured again; a row cut off by an interruption is not
// journalled and runs on the next invocation; a journal of another tree is
// moved aside and everything runs again.
func TestResumeSkipsFinished(t *testing.T) {
	dir := t.TempDir()
	var ms []*Mutant
	for _, n := range []string{"a", "b", "c"} {
		ms = append(ms, &Mutant{Name: n, Check: gj, Patch: []byte("patch " + n)})
	}
	var measured []string
	newSession := func(hash string, cancelOn string, cancel func()) *session {
		return &session{cfg: config{seeds: 5, parallel: 1, cmdline: "go run ./cmd/mutants"}, journal: filepath.Join(dir, "j.jsonl"),
			tree: tree{Commit: "abc", Hash: hash},
			measure: func(_ context.Context, m *Mutant, _ *Result) *Result {
				measured = append(measured, m.Name)
				if m.Name == cancelOn {
					cancel()
				}
				return &Result{Mutant: m, Detected: true, Control: "passes", Fired: []string{gj}}
			}}
	}
	ctx, cancel := context.WithCancel(context.Background())
	if _, err := newSession("t1", "b", cancel).runAll(ctx, ms); err == nil {
		t.Fatal("an interrupted run reports no error")
	}
	if !slices.Equal(measured, []string{"a", "b"}) {
		t.Fatalf("first run measured %v", measured)
	}
	measured = nil
	rep, err := newSession("t1", "", nil).runAll(context.Background(), ms)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(measured, []string{"b", "c"}) {
		t.Errorf("resumed run measured %v, want [b c] (a was finished, b cut off)", measured)
	}
	if len(rep.Results) != 3 || rep.Commit != "abc" || rep.Results[0].Tree != "t1" || rep.Results[0].Commit != "abc" {
		t.Errorf("report: %d rows, commit %q, first row %+v", len(rep.Results), rep.Commit, rep.Results[0])
	}
	measured = nil
	if _, err := newSession("t1", "", nil).runAll(context.Background(), ms); err != nil || len(measured) != 0 {
		t.Errorf("a finished run measured %v again (%v)", measured, err)
	}
	measured = nil
	if _, err := newSession("t2", "", nil).runAll(context.Background(), ms); err != nil || len(measured) != 3 {
		t.Errorf("another tree measured %v (%v), want all three", measured, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "j.jsonl.old")); err != nil {
		t.Errorf("the other tree's journal was not moved aside: %v", err)
	}
}
