package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// One late sample whose body thread woke 400 µs before its due time and
// waited 3.4 ms for a CPU while simrun held it, and one sample on time.
func TestAttribution(t *testing.T) {
	dir := t.TempDir()
	tails := filepath.Join(dir, "tails.csv")
	th := filepath.Join(dir, "timehist.txt")
	// due 10 s, started 3 ms later; due 10.02 s, started 10 µs later.
	csv := "precise/shared-inline/10,10000000000,10002990000,10003000000,101\n" +
		"precise/shared-inline/10,10020000000,10020009000,10020010000,101\n"
	hist := "           time    cpu  task name                       wait time  sch delay   run time\n" +
		"   10.003500 [0000]  bench.test[101/100]                 7.000      3.400      0.500 \n" +
		"   10.004000 [0001]  simrun[200/200]                     0.000      0.000      4.000 \n"
	if err := os.WriteFile(tails, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(th, []byte(hist), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(&out, tails, th, 200*time.Microsecond, 200*time.Microsecond, true); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"late=3ms os-runnable=3.2ms process-runnable=3.2ms state-at-due=runnable",
		"| precise/shared-inline/10 | due-1ms..-150µs: 1 |  |",
		"| precise/shared-inline/10 | 2 | 1 | 3ms | 3.2ms (107%) | 3.2ms (107%) | 1 | 0 | 0 | simrun 3ms |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}

func TestUnion(t *testing.T) {
	if got := union([][2]int64{{5, 10}, {0, 3}, {2, 6}, {20, 21}}); got != 11 {
		t.Errorf("union = %d, want 11 ([0,10) and [20,21))", got)
	}
}

func TestBadTails(t *testing.T) {
	tails := filepath.Join(t.TempDir(), "tails.csv")
	if err := os.WriteFile(tails, []byte("a,1,2,x,4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := readTails(tails)
	if err == nil || !strings.Contains(err.Error(), "tails.csv:1: field 4") {
		t.Errorf("readTails error = %v, want one naming tails.csv line 1 field 4", err)
	}
}
