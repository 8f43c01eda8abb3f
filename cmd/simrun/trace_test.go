package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReplayTraceReadable: replay --trace of smoke seed 0 writes a trace
// of under 1 000 lines, with no lock, unlock, wait, signal, broadcast or
// sleep line, and says how many it left out; --trace=all writes them all,
// as many as the two counts together; the trace hash is the same.
func TestReplayTraceReadable(t *testing.T) {
	replay := func(trace string) (lines []string, stdout string) {
		dir := t.TempDir()
		var out, errb bytes.Buffer
		if code := simrun([]string{"replay", "--scenario", "smoke", "--seed", "0", trace, "--out", dir}, &out, &errb); code != 0 {
			t.Fatalf("replay %s: exit %d\n%s%s", trace, code, out.String(), errb.String())
		}
		b, err := os.ReadFile(filepath.Join(dir, "trace.txt"))
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n"), out.String()
	}
	lines, out := replay("--trace")
	if len(lines) >= 1000 {
		t.Errorf("replay --trace of smoke seed 0: %d lines, want under 1 000", len(lines))
	}
	for _, l := range lines {
		if f := strings.Fields(l); len(f) >= 4 && (f[3] == "lock" || f[3] == "unlock" || f[3] == "sleep") {
			t.Fatalf("the readable trace keeps %q", l)
		}
	}
	var kept, left int
	summary := field(t, out, "trace")
	if _, err := fmt.Sscanf(summary, "%d lines (%d", &kept, &left); err != nil || kept != len(lines) {
		t.Fatalf("trace line %q (%v): want %d lines and the count left out", summary, err, len(lines))
	}
	ops := "lock, unlock, wait, signal, broadcast and sleep lines left out; --trace=all keeps them) written to "
	if !strings.Contains(summary, ops) {
		t.Errorf("trace line %q lacks %q", summary, ops)
	}
	all, outAll := replay("--trace=all")
	if len(all) != kept+left {
		t.Errorf("--trace=all: %d lines, want %d kept + %d left out", len(all), kept, left)
	}
	if h, hAll := field(t, out, "trace_hash"), field(t, outAll, "trace_hash"); h != hAll {
		t.Errorf("trace hash %s with --trace, %s with --trace=all", h, hAll)
	}
}
