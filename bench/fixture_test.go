package bench

import (
	"sync"
	"testing"
	"time"
)

// A fixture is a running system that a benchmark observes. The testing
// package calls a benchmark function more than once (b.N = 1, then the
// real b.N); a fixture is kept between those calls and closed when the
// next benchmark asks for a different one, so setup (up to one trigger
// interval of staggered starts) is paid once per benchmark.
type fixture interface{ close() }

var live struct {
	key string
	f   fixture
}

func fixtureFor[T fixture](key string, build func() T) T {
	if live.key == key {
		return live.f.(T)
	}
	closeFixture()
	f := build()
	live.key, live.f = key, f
	return f
}

func closeFixture() {
	if live.f != nil {
		live.f.close()
	}
	live.key, live.f = "", nil
}

// sample is one observed trigger: due to body start, due to timer fired
// and fired to body start (the last two only where the path reports them).
type sample struct {
	delay, late, hop time.Duration
	// With -trigger.tails only: the firing's times and the OS thread that
	// ran the body.
	due, fired, started time.Time
	tid                 int
}

// collector keeps the next want samples that the fixture observes and
// drops the rest.
type collector struct {
	mu   sync.Mutex
	want int
	got  []sample
	done chan struct{}
}

func (c *collector) add(s sample) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.got) < c.want {
		c.got = append(c.got, s)
		if len(c.got) == c.want {
			close(c.done)
		}
	}
}

// collect waits for the next n samples, failing b after timeout.
func (c *collector) collect(b *testing.B, n int, timeout time.Duration) []sample {
	c.mu.Lock()
	c.want, c.got, c.done = n, make([]sample, 0, n), make(chan struct{})
	done := c.done
	c.mu.Unlock()
	select {
	case <-done:
	case <-time.After(timeout):
		c.mu.Lock()
		got := len(c.got)
		c.want = 0
		c.mu.Unlock()
		b.Fatalf("observed %d of %d samples in %v", got, n, timeout)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.want = 0
	return c.got
}

func split(xs []sample) (delay, late, hop []time.Duration) {
	for _, s := range xs {
		delay = append(delay, s.delay)
		late = append(late, s.late)
		hop = append(hop, s.hop)
	}
	return
}
