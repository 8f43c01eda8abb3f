package main

// Golden tests of the command line: the files in testdata/golden hold
// simrun command lines, each run in this process, with the exit code,
// stdout and stderr it gave. Wall-clock figures are stopped at zero
// (wallFrozen), the test's temporary folder reads $TMP and the folder of
// one replay's own (simrun-replay-NNN) reads simrun-replay-*, so the text
// is the same on every machine; a column that slips shows as a diff.
// Regenerate after a change on purpose:
//
//	go test ./cmd/simrun -run TestGolden -rewrite
//
// Commands:
//
//	simrun            runs the input, one command line ($TMP expands)
//	write file=PATH   writes the input to PATH ($TMP expands)

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

func TestGolden(t *testing.T) {
	wallFrozen = true
	defer func() { wallFrozen = false }()
	t.Cleanup(func() {
		if t.Failed() {
			t.Log("if the difference is on purpose: go test ./cmd/simrun -run TestGolden -rewrite")
		}
	})
	datadriven.Walk(t, "testdata/golden", func(t *testing.T, path string) {
		tmp := t.TempDir()
		t.Setenv("TMPDIR", tmp) // replay's artefact folder (os.TempDir) reads $TMP too
		expand := func(s string) string { return strings.ReplaceAll(s, "$TMP", tmp) }
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "write":
				var file string
				d.ScanArgs(t, "file", &file)
				file = expand(file)
				if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, []byte(expand(d.Input)+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				return ""
			case "simrun":
				out := strings.ReplaceAll(goldenRun(expand(d.Input)), tmp, "$TMP")
				return replayDir.ReplaceAllString(out, "simrun-replay-*")
			}
			d.Fatalf(t, "unknown command %s", d.Cmd)
			return ""
		})
	})
}

// replayDir is the folder of one replay's own (os.MkdirTemp's digits).
var replayDir = regexp.MustCompile(`simrun-replay-[0-9]+`)

// goldenRun runs one command line in process and renders what it did.
func goldenRun(line string) string {
	var stdout, stderr bytes.Buffer
	code := simrun(strings.Fields(line), &stdout, &stderr)
	var b strings.Builder
	fmt.Fprintf(&b, "exit %d\n", code)
	for _, s := range []struct {
		name string
		out  *bytes.Buffer
	}{{"stdout", &stdout}, {"stderr", &stderr}} {
		if s.out.Len() > 0 {
			fmt.Fprintf(&b, "%s:\n%s", s.name, s.out.String())
			if !bytes.HasSuffix(s.out.Bytes(), []byte("\n")) {
				b.WriteString("<no newline>\n")
			}
		}
	}
	return b.String()
}
