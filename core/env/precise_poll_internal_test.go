//go:build linux

package env

import (
	"testing"
	"time"
)

// TestTimerFDReuse: a timerfd whose read was interrupted (wake: its timer
// still armed, its read deadline past) or that expired (an expiration
// left unread) goes back to the pool as it is, and the next wait's read
// still blocks until its own expiry: getTimerFD clears the deadline and
// arm replaces the timer and zeroes its count.
func TestTimerFDReuse(t *testing.T) {
	fd := getTimerFD()
	if fd == nil {
		t.Skip("no timerfd")
	}
	fd.arm(time.Hour)
	fd.interrupt()
	fd.read() // returns at once: the deadline is past
	putTimerFD(fd)
	fd.arm(time.Microsecond) // an expiration left unread
	time.Sleep(time.Millisecond)
	putTimerFD(getTimerFD())
	got := getTimerFD()
	if got != fd {
		t.Fatalf("the pool gave another timerfd")
	}
	defer putTimerFD(got)
	t0 := time.Now()
	got.arm(5 * time.Millisecond)
	got.read()
	if el := time.Since(t0); el < 5*time.Millisecond {
		t.Fatalf("a reused timerfd's read returned after %v, before its 5 ms", el)
	}
}
