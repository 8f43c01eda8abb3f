//go:build linux

package env

import (
	"os"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// waitPoll is wait with PreciseWall.Poll: the kernel sleep is a read of
// a timerfd through the Go runtime's network poller, not a futex in a
// raw system call. The poller's thread blocks in epoll until the timerfd
// expires (a timerfd's hrtimer has no slack, and epoll returns on the
// event, not on its millisecond timeout), so the wait needs neither the
// Go-park phase nor a slot: any number of waits sleep at once, no P is
// held, and the runtime's monitor thread (sysmon), which sleeps until the
// next runtime timer, is not woken for it. The spin phase is as wait's.
func (p PreciseWall) waitPoll(w *preciseWaiter, deadline time.Time, loose bool) (woken bool) {
	spin := time.Duration(0) // a loose wait has no spin phase
	if !loose {
		_, spin = p.waitPhases()
	}
	if time.Until(deadline) > spin {
		fd := getTimerFD()
		if fd == nil {
			return p.park(w, deadline) // no timerfd: wait like Wall
		}
		w.polled.Store(true)
		w.fdMu.Lock()
		w.fd = fd
		w.fdMu.Unlock()
		slept := false
		for w.state.Load() == 0 {
			left := time.Until(deadline) - spin
			if left <= 0 {
				if slept && p.Spin <= 0 && !loose {
					adaptSpinPoll.observe(-left) // how late the poller woke
				}
				break
			}
			fd.arm(left)
			if w.state.Load() != 0 {
				break
			}
			fd.read()
			slept = true
		}
		w.fdMu.Lock()
		w.fd = nil
		w.fdMu.Unlock()
		putTimerFD(fd) // after w.fd is nil no wake interrupts it
	}
	if loose {
		return w.state.Load() != 0
	}
	return p.spinUntil(w, deadline)
}

// timerFD is a non-blocking CLOCK_MONOTONIC timerfd registered with the
// Go runtime's poller (os.NewFile of a non-blocking descriptor).
type timerFD struct {
	f   *os.File
	fd  uintptr // f's descriptor, kept: f.Fd() would make it blocking
	buf [8]byte
	// interrupted: interrupt set a read deadline in the past, which
	// getTimerFD clears before the next wait reads (set under the
	// waiter's fdMu, read after the waiter let go of the fd).
	interrupted bool
}

// itimerspec is struct itimerspec.
type itimerspec struct{ interval, value syscall.Timespec }

// arm sets the timer to expire once, d from now (d > 0).
func (t *timerFD) arm(d time.Duration) {
	its := itimerspec{value: syscall.NsecToTimespec(int64(max(d, 1)))}
	syscall.RawSyscall6(syscall.SYS_TIMERFD_SETTIME, t.fd, 0, uintptr(unsafe.Pointer(&its)), 0, 0, 0)
}

// read blocks (in the poller, not on a thread) until the timer expires
// or interrupt is called.
func (t *timerFD) read() { t.f.Read(t.buf[:]) }

// interrupt ends a read now: a read deadline in the past makes the
// runtime's poller ready the reading goroutine itself, as a channel
// close would, with no kernel timer and no thread wake-up in between.
func (t *timerFD) interrupt() {
	t.interrupted = true
	t.f.SetReadDeadline(time.Unix(1, 0))
}

// The free timerfds. A wait gives its timerfd back as it is, with no
// system call on the way out of the wait (the path a woken thread takes to
// its work): arm's timerfd_settime replaces whatever expiry is left and
// zeroes the count of unread ones, and a stale readiness only makes the
// next read find nothing and wait again; getTimerFD clears the past read
// deadline an interrupt left. An interrupted timer stays armed in the
// pool until a wait takes it again (at once, in steady use: the pool is a
// stack); one left there past its old expiry makes the poller see one
// readiness that no one waits for.
var timerFDs struct {
	mu   sync.Mutex
	free []*timerFD
}

const (
	clockMonotonic = 1 // CLOCK_MONOTONIC
	tfdNonblock    = syscall.O_NONBLOCK
	tfdCloexec     = syscall.O_CLOEXEC
)

func getTimerFD() *timerFD {
	timerFDs.mu.Lock()
	if n := len(timerFDs.free); n > 0 {
		t := timerFDs.free[n-1]
		timerFDs.free = timerFDs.free[:n-1]
		timerFDs.mu.Unlock()
		if t.interrupted { // off the woken waiter's path: the next wait clears its deadline
			t.interrupted = false
			t.f.SetReadDeadline(time.Time{})
		}
		return t
	}
	timerFDs.mu.Unlock()
	fd, _, errno := syscall.RawSyscall(syscall.SYS_TIMERFD_CREATE, clockMonotonic, tfdNonblock|tfdCloexec, 0)
	if errno != 0 {
		return nil
	}
	return &timerFD{f: os.NewFile(fd, "timerfd"), fd: fd}
}

func putTimerFD(t *timerFD) {
	timerFDs.mu.Lock()
	timerFDs.free = append(timerFDs.free, t)
	timerFDs.mu.Unlock()
}
