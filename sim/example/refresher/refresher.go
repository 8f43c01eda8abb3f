// Package refresher shows how to drive your own Go code with ckptsim's
// simulator. It holds a small, realistic component written only against
// core/env — a lease-based, write-through cache in front of a slow origin,
// kept warm by a background refresher — and a harness (harness.go) that
// runs it in a seeded sim.World under the random-walk and PCT strategies,
// records every client operation, and checks the history with porcupine
// against its own register model (model.go).
//
// The component has a deliberately buggy variant (Config.Buggy): the
// refresher installs what it fetched without comparing versions, so a
// refresh that read the origin before a write can land after the write's
// cache update and take the cache back in time. A client then reads a
// value older than one whose write had already returned: not
// linearizable. The package's test finds that within a stated number of
// seeds under each strategy and prints the command that replays the seed.
//
// Nothing here depends on ckptsim's coordinator: copy the pattern (a
// component that takes an env.Env, a harness that builds a sim.World and
// a recorder, a porcupine model) to test your own scheduler, pool or
// cache. README.md, "Drive your own code with sim", has the commands.
package refresher

import (
	"time"

	"github.com/ckptsim/ckptsim/core/env"
)

// Origin is the slow source of truth: every write gets the next version.
type Origin interface {
	// Write stores value and returns its version (strictly increasing).
	Write(value int) (version int64)
	// Read returns the current value and its version.
	Read() (value int, version int64)
}

// Config configures a Cache.
type Config struct {
	Lease   time.Duration // how long a fetched value may be served
	Refresh time.Duration // the refresher renews this long after a fetch (less than Lease)
	// Buggy installs refreshed values without comparing versions (the bug
	// the example's test must catch).
	Buggy bool
}

// Cache is a write-through cache with a lease: it serves its value while
// the lease holds, a background thread renews the lease before it runs
// out, and a read that finds the lease expired fetches synchronously.
type Cache struct {
	env    env.Env
	origin Origin
	cfg    Config

	mu      env.Mutex
	changed env.Cond
	value   int
	version int64
	expires time.Time
	closed  bool
}

// New returns a cache in front of origin; Start launches its refresher.
func New(e env.Env, origin Origin, cfg Config) *Cache {
	c := &Cache{env: e, origin: origin, cfg: cfg}
	c.mu = e.NewMutex("refresher.cache")
	c.changed = e.NewCond(c.mu)
	return c
}

// Start fetches the first value and starts the refresher thread.
func (c *Cache) Start() {
	v, ver := c.origin.Read()
	c.mu.Lock()
	c.install(v, ver, true)
	c.mu.Unlock()
	c.env.Go("refresher", c.refresh)
}

// Close stops the refresher at its next wake-up.
func (c *Cache) Close() {
	c.mu.Lock()
	c.closed = true
	c.changed.Broadcast()
	c.mu.Unlock()
}

// Get returns the cached value while the lease holds; otherwise it
// fetches from the origin.
func (c *Cache) Get() int {
	c.mu.Lock()
	if c.env.Now().Before(c.expires) {
		v := c.value
		c.mu.Unlock()
		return v
	}
	c.mu.Unlock()
	v, ver := c.origin.Read() // the origin is slow: never call it under the lock
	c.mu.Lock()
	defer c.mu.Unlock()
	c.install(v, ver, true)
	return c.value
}

// Put writes through: the origin first, then the cache.
func (c *Cache) Put(value int) {
	ver := c.origin.Write(value)
	c.mu.Lock()
	c.install(value, ver, true)
	c.mu.Unlock()
}

// install keeps the newer of the cached and the offered value and renews
// the lease; c.mu is held. guarded false is the buggy path: the offered
// value wins whatever its version.
func (c *Cache) install(v int, ver int64, guarded bool) {
	if !guarded || ver >= c.version {
		c.value, c.version = v, ver
	}
	c.expires = c.env.Now().Add(c.cfg.Lease)
	c.changed.Broadcast()
}

// refresh renews the lease every cfg.Refresh until Close.
func (c *Cache) refresh() {
	for {
		c.mu.Lock()
		for !c.closed && c.env.Now().Before(c.expires.Add(c.cfg.Refresh-c.cfg.Lease)) {
			c.changed.WaitFor(c.expires.Add(c.cfg.Refresh - c.cfg.Lease).Sub(c.env.Now()))
		}
		if c.closed {
			c.mu.Unlock()
			return
		}
		c.mu.Unlock()
		v, ver := c.origin.Read()
		c.mu.Lock()
		c.install(v, ver, !c.cfg.Buggy)
		c.mu.Unlock()
	}
}
