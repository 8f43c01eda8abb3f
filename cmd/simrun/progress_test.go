package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// fakeSeed is a seed whose progress the test sets.
type fakeSeed struct {
	steps   int64
	elapsed time.Duration
}

func (f *fakeSeed) Steps() int64           { return f.steps }
func (f *fakeSeed) Elapsed() time.Duration { return f.elapsed }

// TestLongSeedProgressInLogs drives the progress of one long seed with a
// fake wall clock, polled twice a second as tick does: in logs a line comes
// every logEvery (never more than 5 s apart, never more often), naming the
// seed's virtual time and its steps per second.
func TestLongSeedProgressInLogs(t *testing.T) {
	var out bytes.Buffer
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := &progress{w: &out, total: 1, start: t0, said: t0, running: map[int]*running{}}
	seed := &fakeSeed{}
	p.running[0] = &running{label: "big seed 0", span: 6 * time.Minute, at: seed, start: t0, sampled: t0}
	var at []time.Duration // when each line came
	for k := 1; k <= 60; k++ {
		now := t0.Add(time.Duration(k) * 500 * time.Millisecond)
		seed.steps += 50_000 // 100 000 steps a wall second
		seed.elapsed += time.Second
		before := out.Len()
		p.poll(now)
		if out.Len() > before {
			at = append(at, now.Sub(t0))
		}
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != len(at) || len(at) != 7 {
		t.Fatalf("%d lines at %v in 30 s, want 7 (one every %v):\n%s", len(lines), at, logEvery, out.String())
	}
	prev := time.Duration(0)
	for _, a := range at {
		if gap := a - prev; gap > 5*time.Second || gap < logEvery {
			t.Errorf("a line %v after the one before (want %v to 5s): lines at %v", gap, logEvery, at)
		}
		prev = a
	}
	want := "simrun: 0/1 seeds (0%), 0 failed; big seed 0: 8s of 6m0s virtual, 400.0k steps, 100.0k steps/s"
	if lines[0] != want {
		t.Errorf("first line\n%s\nwant\n%s", lines[0], want)
	}
	if !strings.HasSuffix(lines[6], "big seed 0: 56s of 6m0s virtual, 2.80M steps, 100.0k steps/s") {
		t.Errorf("last line: %s", lines[6])
	}
}

// TestLongSeedProgressOnTerminal: on a terminal each poll redraws the
// bar, with the longest-running seed once it has run seedQuiet, cut to the
// terminal's width.
func TestLongSeedProgressOnTerminal(t *testing.T) {
	var out bytes.Buffer
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := &progress{w: &out, tty: true, width: 120, total: 4, start: t0, said: t0, running: map[int]*running{}}
	p.running[0] = &running{label: "big seed 0", span: time.Hour, at: &fakeSeed{steps: 2_000_000, elapsed: 90 * time.Second}, start: t0, sampled: t0}
	p.running[1] = &running{label: "big seed 1", span: time.Hour, at: &fakeSeed{}, start: t0.Add(time.Second), sampled: t0.Add(time.Second)}
	p.poll(t0.Add(time.Second))
	if s := out.String(); !strings.HasPrefix(s, "\r\033[K[") || strings.Contains(s, "big seed") {
		t.Errorf("after 1 s: %q, want the bar alone", s)
	}
	out.Reset()
	p.poll(t0.Add(4 * time.Second))
	want := "\r\033[K[                              ] 0/4 seeds (0%), 0 failed | big seed 0: 1m30s of 1h0m0s virtual, 2.00M steps, 500.0k steps/s (1 more running)"
	if len(want) > 120+len("\r\033[K")-1 {
		want = want[:120+len("\r\033[K")-1]
	}
	if out.String() != want {
		t.Errorf("after 4 s:\n%q\nwant\n%q", out.String(), want)
	}
}
