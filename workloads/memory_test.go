package workloads

import (
	"errors"
	"strings"
	"testing"
)

// huge is the member that passed validation and then died out of memory
// (4.8 GB resident when it was killed).
const huge = `name: huge
cluster:
  jobs: 100
  pipelines: 2000
  tasks: 64
checkpoint:
  interval: 10s
run:
  duration: 1m
`

// TestMemoryRefused: a scenario whose estimated memory is above the
// machine's is a scenario error naming the file, line and field, with the
// estimate; run.max_memory lets it through, and a malformed one is named.
func TestMemoryRefused(t *testing.T) {
	defer func(m int64) { MachineMemory = m }(MachineMemory)
	MachineMemory = 8 << 30
	_, err := Parse("huge.yaml", []byte(huge))
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrScenario) {
		t.Fatalf("huge: %v, want a scenario error", err)
	}
	if e.File != "huge.yaml" || e.Line != 3 || e.Field != "cluster" ||
		!strings.Contains(e.Msg, "one seed needs an estimated 239 GiB") || !strings.Contains(e.Msg, "this machine's memory, 8.00 GiB") ||
		!strings.Contains(e.Msg, "run.max_memory") {
		t.Errorf("huge: %q (line %d, field %q)", err, e.Line, e.Field)
	}
	if _, err := Parse("huge.yaml", []byte(huge+"  max_memory: 1TiB\n")); err != nil {
		t.Errorf("huge with run.max_memory 1TiB: %v", err)
	}
	_, err = Parse("huge.yaml", []byte(huge+"  max_memory: 100GiB\n"))
	if !errors.As(err, &e) || !strings.Contains(e.Msg, "above run.max_memory, 100 GiB") {
		t.Errorf("huge with run.max_memory 100GiB: %v, want the estimate above run.max_memory", err)
	}
	_, err = Parse("huge.yaml", []byte(huge+"  max_memory: lots\n"))
	if !errors.As(err, &e) || e.Field != "run.max_memory" || e.Line != 10 {
		t.Errorf("max_memory lots: %v, want an error at run.max_memory, line 10", err)
	}
	MachineMemory = 0 // unknown: no check
	if _, err := Parse("huge.yaml", []byte(huge)); err != nil {
		t.Errorf("huge with the machine's memory unknown: %v", err)
	}
}

// TestMemoryEstimateOfEmbedded: every built-in scenario fits a small
// machine (256 MiB a seed), so none is refused anywhere.
func TestMemoryEstimateOfEmbedded(t *testing.T) {
	for _, folder := range []string{"scenarios", "hazards"} {
		all, err := Embedded(folder)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range all {
			if m := s.MemoryEstimate(); m > 256<<20 || m < memBase {
				t.Errorf("%s: estimate %s", s.Name, FormatSize(m))
			}
		}
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"512MiB": 512 << 20, "8GiB": 8 << 30, "2GB": 2e9, "1.5 GiB": 3 << 29, "4096": 4096, "10B": 10} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "lots", "-1GiB", "8XB"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) accepted", in)
		}
	}
	if got := FormatSize(3 << 29); got != "1.50 GiB" {
		t.Errorf("FormatSize(1.5 GiB) = %q", got)
	}
}
