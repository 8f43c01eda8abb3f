// Command testprogress runs go test with -json and prints what plain go
// test prints (a line per package: ok, FAIL, no test files; the output of
// every failing test; build errors), plus, while packages run for long, a
// progress line every -every naming each running package with its tests
// passed so far: make test is not silent for minutes. Its exit status is
// go test's.
//
//	go run ./cmd/testprogress [-every 20s] -- [go test flags] [packages]
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"time"
)

// event is one line of go test -json (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// progress follows the running packages and prints what go test would.
type progress struct {
	mu      sync.Mutex
	out     io.Writer
	started map[string]time.Time // running package -> first event
	passed  map[string]int       // running package -> tests passed so far
	output  map[string][]string  // package/test -> its output lines, kept until it passes
	failed  bool
	now     func() time.Time
}

func newProgress(out io.Writer, now func() time.Time) *progress {
	return &progress{out: out, started: map[string]time.Time{}, passed: map[string]int{}, output: map[string][]string{}, now: now}
}

// take handles one event.
func (p *progress) take(ev event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	key := ev.Package + "\x00" + ev.Test
	switch ev.Action {
	case "build-output": // a compiler error, as go test prints it
		fmt.Fprint(p.out, ev.Output)
	case "start":
		p.started[ev.Package] = p.now()
	case "output":
		if ev.Test == "" {
			// the package's own lines: its ok/FAIL line, build errors,
			// TestMain output; "=== RUN" and the like only come with -v
			line := ev.Output
			if strings.HasPrefix(line, "ok ") || strings.HasPrefix(line, "FAIL") || strings.HasPrefix(line, "?") ||
				strings.HasPrefix(line, "panic:") || strings.HasPrefix(line, "---") || p.failedPkgLine(line) {
				fmt.Fprint(p.out, line)
			} else {
				p.output[key] = append(p.output[key], line)
			}
			return
		}
		p.output[key] = append(p.output[key], ev.Output)
	case "pass", "skip":
		if ev.Test != "" {
			if ev.Action == "pass" && !strings.Contains(ev.Test, "/") {
				p.passed[ev.Package]++
			}
			delete(p.output, key)
			return
		}
		p.done(ev.Package)
	case "fail":
		p.failed = true
		if ev.Test != "" {
			for _, l := range p.output[key] {
				fmt.Fprint(p.out, l)
			}
			delete(p.output, key)
			return
		}
		for _, l := range p.output[ev.Package+"\x00"] { // package-level output of a failing package (build errors, TestMain)
			fmt.Fprint(p.out, l)
		}
		p.done(ev.Package)
	}
}

// failedPkgLine: a line of build failure output printed at once.
func (p *progress) failedPkgLine(line string) bool {
	return strings.HasPrefix(line, "#") || strings.Contains(line, "[build failed]") || strings.Contains(line, "[setup failed]")
}

func (p *progress) done(pkg string) {
	delete(p.started, pkg)
	delete(p.passed, pkg)
	delete(p.output, pkg+"\x00")
}

// tick prints the packages running for longer than min, longest first.
func (p *progress) tick(min time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	var parts []string
	pkgs := make([]string, 0, len(p.started))
	for pkg := range p.started {
		pkgs = append(pkgs, pkg)
	}
	sort.Slice(pkgs, func(i, j int) bool {
		a, b := p.started[pkgs[i]], p.started[pkgs[j]]
		return a.Before(b) || a.Equal(b) && pkgs[i] < pkgs[j]
	})
	for _, pkg := range pkgs {
		if d := now.Sub(p.started[pkg]); d >= min {
			parts = append(parts, fmt.Sprintf("%s (%ds, %d tests passed)", pkg, int(d.Seconds()), p.passed[pkg]))
		}
	}
	if len(parts) > 0 {
		fmt.Fprintf(p.out, "testprogress: still running %s\n", strings.Join(parts, ", "))
	}
}

func main() {
	every := flag.Duration("every", 20*time.Second, "how often to name the packages still running")
	flag.Parse()
	cmd := exec.Command("go", append([]string{"test", "-json"}, flag.Args()...)...)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testprogress:", err)
		os.Exit(2)
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "testprogress:", err)
		os.Exit(2)
	}
	p := newProgress(os.Stdout, time.Now)
	stop := make(chan struct{})
	go func() {
		t := time.NewTicker(*every)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				p.tick(*every)
			case <-stop:
				return
			}
		}
	}()
	feed(p, stdout)
	close(stop)
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); ok {
		os.Exit(ee.ExitCode())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "testprogress:", err)
		os.Exit(2)
	}
}

// feed reads go test -json lines into p; a line that is not JSON (go
// test's own messages) is printed as it is.
func feed(p *progress, r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var ev event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil || ev.Action == "" {
			p.mu.Lock()
			fmt.Fprintln(p.out, sc.Text())
			p.mu.Unlock()
			continue
		}
		p.take(ev)
	}
}
