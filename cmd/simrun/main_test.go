package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// bin is the simrun binary built once by TestMain.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "simrun-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "simrun")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is one execution of the binary.
type result struct {
	stdout, stderr string
	code           int
}

// simrunExec runs the binary in the package folder (so testdata/ paths
// work) and returns its output and exit code.
// execLimit bounds one simrun a test runs (the longest, a default
// campaign under the race detector's slowdown, takes a few minutes).
const execLimit = 8 * time.Minute

func simrunExec(t *testing.T, args ...string) result {
	t.Helper()
	// No simrun a test runs may hang the suite: a run that explodes (a
	// profile's chains multiplying until memory runs out) is killed and
	// named.
	ctx, cancel := context.WithTimeout(context.Background(), execLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("simrun %v: killed after %v", args, execLimit)
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("simrun %v: %v", args, err)
	}
	return result{out.String(), errb.String(), code}
}

func (r result) want(t *testing.T, code int) {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, tail(r.stdout), tail(r.stderr))
	}
}

func tail(s string) string {
	if len(s) > 3000 {
		return "..." + s[len(s)-3000:]
	}
	return s
}

// lines decodes --json output.
func lines(t *testing.T, stdout string) []seedLine {
	t.Helper()
	var out []seedLine
	sc := bufio.NewScanner(strings.NewReader(stdout))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var l seedLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("bad JSON line %q: %v", sc.Text(), err)
		}
		out = append(out, l)
	}
	return out
}

// replayArgs turns a printed replay command into arguments of the binary.
func replayArgs(t *testing.T, cmd string) []string {
	t.Helper()
	rest, ok := strings.CutPrefix(cmd, binary+" ")
	if !ok {
		t.Fatalf("replay command %q does not start with %q", cmd, binary)
	}
	return strings.Fields(rest)
}

// field returns the value of a "key: value" line of replay's report.
func field(t *testing.T, out, key string) string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(l, key+": "); ok {
			return v
		}
	}
	t.Fatalf("no %q line in:\n%s", key, tail(out))
	return ""
}
