//go:build linux

package bench

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/core/env"
	"github.com/ckptsim/ckptsim/core/exec"
)

// BenchmarkTimerLead is exec.Timer alone on env.PreciseWall: entries due
// one per -trigger.spacing (20 ms), each recording how late its function
// starts (from its deadline). With one thread the leader has no follower
// to promote; with eight every take promotes one, and that wake-up is
// paid by the leader: at the deadline without a lead (lead=off), or ahead
// of it with PreciseWall's default lead (lead=default). One op is one
// entry; the first warm entries are discarded.
func BenchmarkTimerLead(b *testing.B) {
	const warm = 5
	for _, lead := range []struct {
		name string
		d    time.Duration
	}{{"off", -1}, {"default", 0}} {
		for _, threads := range []int{1, 8} {
			b.Run(fmt.Sprintf("lead=%s/threads=%d", lead.name, threads), func(b *testing.B) {
				tm := exec.NewTimer(env.PreciseWall{Lead: lead.d}, exec.TimerConfig{Name: "bench-timer", Threads: threads})
				defer tm.ShutdownNow()
				n := warm + b.N
				late := make([]time.Duration, n)
				var fired atomic.Int64
				done := make(chan struct{})
				first := time.Now().Add(*spacing)
				for i := range n {
					at := first.Add(time.Duration(i) * *spacing)
					tm.ScheduleAt(at, func(string) {
						late[i] = time.Since(at)
						if fired.Add(1) == int64(n) {
							close(done)
						}
					})
				}
				cpu := startCPU()
				<-done
				cpu.report(b, n)
				reportLatency(b, "late-", late[warm:])
				b.ReportMetric(0, "ns/op") // one op is one spacing by construction
			})
		}
	}
}
