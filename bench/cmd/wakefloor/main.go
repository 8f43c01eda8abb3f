// Command wakefloor is the least a periodic timed wake can cost in a Go
// process: one goroutine that sleeps to absolute deadlines period apart
// and does nothing else, N times, then exits. It is the Go half of the
// wake-floor experiment (results/bench/experiments/README.md), whose Java
// half (Wake.java, in git at ec830c5:results/bench/experiments/wake-floor/)
// does the same on a JDK thread; both ran under perf stat, which counts
// the process's CPU and context switches, so the two sides are measured
// alike. Modes:
//
//	sleep  time.Sleep to each deadline (a Go runtime timer, as env.Wall)
//	raw    nanosleep as a raw system call (the runtime does not see it:
//	       the thread keeps its P, as PreciseWall's futex phase does)
//
// It prints the wakes' lateness from their deadlines (p50, p99) on one
// line; CPU and switches are perf stat's. Its sleep mode is also a
// benchmark, BenchmarkWakeFloor (bench/wakefloor_test.go), which runs in
// the same process run as the trigger cells, counts CPU with their clock
// and is the reference of make bench-ci's cost gate.
package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"syscall"
	"time"
	"unsafe"
)

func main() {
	mode := flag.String("mode", "sleep", "sleep or raw")
	period := flag.Duration("period", 10*time.Millisecond, "time between deadlines")
	n := flag.Int("n", 1000, "wakes")
	flag.Parse()
	var wait func(d time.Duration)
	switch *mode {
	case "sleep":
		wait = time.Sleep
	case "raw":
		wait = rawSleep
	default:
		fmt.Fprintf(os.Stderr, "wakefloor: -mode %q: want sleep or raw\n", *mode)
		os.Exit(2)
	}
	late := make([]time.Duration, 0, *n)
	next := time.Now()
	for range *n {
		next = next.Add(*period)
		for d := time.Until(next); d > 0; d = time.Until(next) {
			wait(d)
		}
		late = append(late, time.Since(next))
	}
	slices.Sort(late)
	q := func(p float64) time.Duration { return late[int(p*float64(len(late)-1))] }
	fmt.Printf("mode=%s period=%v n=%d late-p50=%v late-p99=%v\n", *mode, *period, *n, q(0.5), q(0.99))
}

// rawSleep is nanosleep(2) as a raw system call.
func rawSleep(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	syscall.RawSyscall(syscall.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), 0, 0)
}
