package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestProgress: a passing package prints only its ok line, a failing test
// its output and the package's FAIL line, and tick names the package still
// running with its tests passed so far.
func TestProgress(t *testing.T) {
	now := time.Unix(0, 0)
	var out bytes.Buffer
	p := newProgress(&out, func() time.Time { return now })
	evs := `{"Action":"start","Package":"a"}
{"Action":"start","Package":"b"}
{"Action":"run","Package":"a","Test":"TestOne"}
{"Action":"output","Package":"a","Test":"TestOne","Output":"=== RUN   TestOne\n"}
{"Action":"output","Package":"a","Test":"TestOne","Output":"--- PASS: TestOne (0.00s)\n"}
{"Action":"pass","Package":"a","Test":"TestOne"}
{"Action":"output","Package":"a","Output":"PASS\n"}
{"Action":"output","Package":"a","Output":"ok  \ta\t0.01s\n"}
{"Action":"pass","Package":"a"}
{"Action":"output","Package":"b","Test":"TestBad","Output":"    x_test.go:3: boom\n"}
{"Action":"output","Package":"b","Test":"TestBad","Output":"--- FAIL: TestBad (0.00s)\n"}
{"Action":"fail","Package":"b","Test":"TestBad"}
{"Action":"start","Package":"c"}
{"Action":"pass","Package":"c","Test":"TestC"}
`
	feed(p, strings.NewReader(evs))
	now = now.Add(30 * time.Second)
	p.tick(20 * time.Second)
	got := out.String()
	for _, want := range []string{"ok  \ta\t0.01s\n", "    x_test.go:3: boom\n--- FAIL: TestBad (0.00s)\n", "testprogress: still running b (30s, 0 tests passed), c (30s, 1 tests passed)\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "=== RUN") || strings.Contains(got, "--- PASS") {
		t.Errorf("a passing test's output was printed:\n%s", got)
	}
	if !p.failed {
		t.Error("a failing test did not mark the run failed")
	}
}
