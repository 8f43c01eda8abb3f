package exec

import (
	"container/heap"
	"fmt"
	"time"

	"github.com/ckptsim/ckptsim/core/env"
)

// TimerConfig configures a Timer.
type TimerConfig struct {
	Name    string // thread name prefix ("checkpoint-timer")
	Threads int    // timer threads, started on demand (default 1)
	OnPanic func(thread string, v any)
}

// TimerStats are a Timer's counters.
type TimerStats struct {
	Threads, Pending, Peak     int
	Scheduled, Fired, Canceled int64
	Panicked                   int64
}

// Timer runs functions after a delay on a fixed set of timer threads.
type Timer struct {
	e      env.Env
	cfg    TimerConfig
	mu     env.Mutex // guards everything below
	cv     env.Cond  // timer threads wait here for the next deadline
	h      entryHeap
	seq    uint64
	closed bool
	s      TimerStats
}

// Handle is a scheduled function.
type Handle struct {
	t     *Timer
	at    time.Time
	seq   uint64
	fn    func(string)
	index int // position in the heap, -1 once fired or cancelled
	fired bool
}

// NewTimer returns a timer service with no threads yet.
func NewTimer(e env.Env, cfg TimerConfig) *Timer {
	if cfg.Threads <= 0 {
		cfg.Threads = 1
	}
	t := &Timer{e: e, cfg: cfg, mu: e.NewMutex("exec.timer")}
	t.cv = e.NewCond(t.mu)
	return t
}

// Schedule runs fn on a timer thread once d has passed. Entries with equal
// deadlines fire in the order they were scheduled.
func (t *Timer) Schedule(d time.Duration, fn func()) (*Handle, error) {
	return t.ScheduleOn(d, func(string) { fn() })
}

// ScheduleOn is Schedule for a function that wants the timer thread's name.
func (t *Timer) ScheduleOn(d time.Duration, fn func(thread string)) (*Handle, error) {
	now := t.e.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil, ErrClosed
	}
	t.seq++
	h := &Handle{t: t, at: now.Add(max(d, 0)), seq: t.seq, fn: fn}
	heap.Push(&t.h, h)
	t.s.Scheduled++
	t.s.Pending = len(t.h)
	if t.s.Threads < t.cfg.Threads {
		t.startLocked()
	}
	if t.h[0] == h {
		t.cv.Signal()
	}
	return h, nil
}

func (t *Timer) startLocked() {
	t.s.Threads++
	t.s.Peak = max(t.s.Peak, t.s.Threads)
	name := fmt.Sprintf("%s-%d", t.cfg.Name, t.s.Threads)
	t.e.Go(name, func() { t.loop(name) })
}

func (t *Timer) loop(name string) {
	for {
		h := t.nextDue()
		if h == nil {
			return
		}
		t.fire(name, h)
	}
}

// nextDue waits for the earliest entry to come due and removes it; nil
// once the timer is closed.
func (t *Timer) nextDue() *Handle {
	t.mu.Lock()
	defer t.mu.Unlock()
	for {
		if t.closed {
			t.s.Threads--
			return nil
		}
		if len(t.h) == 0 {
			t.cv.Wait()
			continue
		}
		wait := t.h[0].at.Sub(t.e.Now())
		if wait <= 0 {
			h := heap.Pop(&t.h).(*Handle)
			h.fired = true
			t.s.Fired++
			t.s.Pending = len(t.h)
			if len(t.h) > 0 {
				t.cv.Signal() // let another thread wait for the new head
			}
			return h
		}
		t.cv.WaitFor(wait)
	}
}

func (t *Timer) fire(name string, h *Handle) {
	defer func() {
		if v := recover(); v != nil {
			t.mu.Lock()
			t.s.Panicked++
			t.mu.Unlock()
			if t.cfg.OnPanic != nil {
				t.cfg.OnPanic(name, v)
			}
		}
	}()
	h.fn(name)
}

// Cancel removes the entry if it has not fired and reports whether it did.
func (h *Handle) Cancel() bool {
	t := h.t
	t.mu.Lock()
	defer t.mu.Unlock()
	if h.index < 0 || h.fired {
		return false
	}
	heap.Remove(&t.h, h.index)
	t.s.Canceled++
	t.s.Pending = len(t.h)
	return true
}

// Due returns the deadline the entry was scheduled for.
func (h *Handle) Due() time.Time { return h.at }

// Delay returns the time left until the deadline (negative when past).
func (h *Handle) Delay() time.Duration { return h.at.Sub(h.t.e.Now()) }

// ShutdownNow stops the timer threads and returns how many pending entries
// it dropped. Later Schedule calls return ErrClosed.
func (t *Timer) ShutdownNow() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closed = true
	n := len(t.h)
	for _, h := range t.h {
		h.index = -1
	}
	t.h = nil
	t.s.Pending = 0
	t.cv.Broadcast()
	return n
}

// Closed reports whether ShutdownNow was called.
func (t *Timer) Closed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.closed
}

// Stats returns a snapshot of the counters.
func (t *Timer) Stats() TimerStats {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.s
}

type entryHeap []*Handle

func (h entryHeap) Len() int { return len(h) }
func (h entryHeap) Less(i, j int) bool {
	if !h[i].at.Equal(h[j].at) {
		return h[i].at.Before(h[j].at)
	}
	return h[i].seq < h[j].seq
}
func (h entryHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index = i
	h[j].index = j
}
func (h *entryHeap) Push(x any) {
	e := x.(*Handle)
	e.index = len(*h)
	*h = append(*h, e)
}
func (h *entryHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	e.index = -1
	return e
}
