package watermark

import (
	"time"

	"github.com/ckptsim/ckptsim/core/env"
)

const (
	p0 Partition = 0
	p1 Partition = 1
	p2 Partition = 2
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// fakeEnv is a manual clock with real (wall) mutexes.
type fakeEnv struct {
	env.Wall
	now time.Time
}

func newFakeEnv() *fakeEnv                     { return &fakeEnv{now: t0} }
func (e *fakeEnv) Now() time.Time              { return e.now }
func (e *fakeEnv) advance(d time.Duration)     { e.now = e.now.Add(d) }
func (e *fakeEnv) NewMutex(n string) env.Mutex { return e.Wall.NewMutex(n) }

// hookEnv runs onLock (once) at the next Lock of its mutex, before the lock
// is taken: it lets a test act between two steps of Drain.
type hookEnv struct {
	fakeEnv
	onLock func()
}

type hookMutex struct {
	env.Mutex
	e *hookEnv
}

func (e *hookEnv) NewMutex(n string) env.Mutex { return &hookMutex{Mutex: e.Wall.NewMutex(n), e: e} }

func (m *hookMutex) Lock() {
	if f := m.e.onLock; f != nil {
		m.e.onLock = nil
		f()
	}
	m.Mutex.Lock()
}

// setup returns a checkpointer in epoch 1 over partitions and an issuer.
func setup(partitions ...Partition) (*Checkpointer, *Issuer, *fakeEnv) {
	e := newFakeEnv()
	cp := New(e, Options{})
	cp.BeginEpoch(partitions, 1)
	return cp, cp.NewIssuer(), e
}

func wm(p Partition, off int64) Watermark { return Watermark{Partition: p, Offset: off} }

// take returns TakeWatermarks' list, checking its epoch.
func take(t interface {
	Helper()
	Fatalf(string, ...any)
}, cp *Checkpointer) []Watermark {
	t.Helper()
	epoch, marks := cp.TakeWatermarks()
	if epoch != cp.Epoch() {
		t.Fatalf("TakeWatermarks epoch %d, checkpointer epoch %d", epoch, cp.Epoch())
	}
	return marks
}

type wallEnv = env.Wall

// join starts threads through the env seam and tells when all returned.
type join struct {
	e    env.Env
	mu   env.Mutex
	live int
}

func newJoin(e env.Env) *join { return &join{e: e, mu: e.NewMutex("test.join")} }

func (j *join) goRun(name string, fn func()) {
	j.mu.Lock()
	j.live++
	j.mu.Unlock()
	j.e.Go(name, func() {
		defer func() {
			j.mu.Lock()
			j.live--
			j.mu.Unlock()
		}()
		fn()
	})
}

func (j *join) finished() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.live == 0
}

// handoff is a blocking FIFO of acks between two test threads.
type handoff struct {
	mu     env.Mutex
	cond   env.Cond
	acks   []*Ack
	closed bool
}

func newHandoff(e env.Env) *handoff {
	h := &handoff{mu: e.NewMutex("test.handoff")}
	h.cond = e.NewCond(h.mu)
	return h
}

func (h *handoff) put(a *Ack) {
	h.mu.Lock()
	h.acks = append(h.acks, a)
	h.mu.Unlock()
	h.cond.Signal()
}

func (h *handoff) close() {
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	h.cond.Broadcast()
}

func (h *handoff) get() (*Ack, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for len(h.acks) == 0 && !h.closed {
		h.cond.Wait()
	}
	if len(h.acks) == 0 {
		return nil, false
	}
	a := h.acks[0]
	h.acks = h.acks[1:]
	return a, true
}
