// Package simfs is an in-memory file system for the simulator that can
// crash at any step. It implements savepoint.FS.
//
// # Model
//
// Every file has a durable content (what survives a crash) and a current
// content (what reads see). Every directory has a durable listing and a
// current listing, each a map from name to node; a node keeps its identity
// across renames, so a listing can name the same node twice after a crash
// (as a hard link would).
//
//   - WriteFile is two steps, "write" (current content and current entry
//     set) and "fsync" (content made durable). A crash between them leaves
//     the content unsynced.
//   - Rename ("rename"), Remove ("remove") and each entry deleted by
//     RemoveAll ("remove", children before parents) change current
//     listings only.
//   - SyncDir ("syncdir") copies a directory's current listing to its
//     durable listing. It does not sync file contents.
//   - MkdirAll creates each missing directory in one step ("mkdir") that
//     also syncs the parent's listing, as mkdir followed by fsync of the
//     parent does.
//   - Reads (ReadFile, ReadDir, Stat) are not steps and see current state.
//
// # Crashes
//
// Before each step the crash hook, if set, is asked whether to crash. A
// crash happens instead of the step; from then on every call fails with
// ErrCrashed until Restart. Restart resolves everything that was not durable
// and makes the result durable:
//
//   - With a nil *rand.Rand (New(nil)), every unsynced change is lost: each
//     listing reverts to its durable listing and each file to its durable
//     content. Files whose entries were never synced vanish.
//   - With a seeded *rand.Rand, each unsynced listing entry independently
//     keeps its current or its durable value, and each unsynced file keeps
//     its durable content, its current content, or a prefix of its current
//     content (a torn write), chosen by the source. This is the adversarial
//     model: unsynced changes may persist in any subset and order.
//
// Directories and entries are visited in sorted order, so a given source
// and history always resolve the same way.
//
// # Concurrency
//
// An FS is safe for concurrent use; every call holds an internal lock and
// does no blocking I/O, so in a simulated world, where threads run one at a
// time, the lock is never contended.
package simfs

import (
	"errors"
	"io/fs"
	"maps"
	"math/rand/v2"
	"path"
	"slices"
	"strings"
	"sync"
	"time"
)

// ErrCrashed is returned by every call between a crash and Restart.
var ErrCrashed = errors.New("simfs: crashed")

// FS is the simulated file system. The zero value is not usable; call New.
type FS struct {
	mu      sync.Mutex
	root    *node
	rng     *rand.Rand
	crashAt func(op, path string) bool
	failAt  func(op, path string) error
	// readFail: asked before every read (readdir, read, stat); reads are
	// not steps (SetReadFailHook).
	readFail func(op, path string) error
	steps    int
	crashed  bool
}

type node struct {
	dir bool
	// files
	data, durable []byte
	dirty         bool // data has not been synced
	// directories
	children, durableChildren map[string]*node
}

func newDir() *node {
	return &node{dir: true, children: map[string]*node{}, durableChildren: map[string]*node{}}
}

// New returns an empty FS. rng picks what survives a crash (see the
// package doc); nil loses everything unsynced.
func New(rng *rand.Rand) *FS {
	return &FS{root: newDir(), rng: rng}
}

// SetCrashHook installs fn, asked before every step; returning true crashes
// the FS instead of performing the step. nil removes the hook.
func (f *FS) SetCrashHook(fn func(op, path string) bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.crashAt = fn
}

// CrashAt arranges a crash instead of the n-th step from now (0: the next).
func (f *FS) CrashAt(n int) {
	f.SetCrashHook(func(string, string) bool {
		n--
		return n < 0
	})
}

// SetFailHook installs fn, asked before every step; a non-nil error fails
// that step (without a crash) and is returned to the caller. nil removes it.
func (f *FS) SetFailHook(fn func(op, path string) error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failAt = fn
}

// SetReadFailHook installs fn, asked before every read (ReadDir, ReadFile,
// Stat: op "readdir", "read", "stat"); a non-nil error fails the read
// (returned to the caller as a *fs.PathError) and changes nothing. Reads
// are not steps: the fail and crash hooks never see them, and a read hook
// leaves their step numbering as it was. nil removes it.
func (f *FS) SetReadFailHook(fn func(op, path string) error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.readFail = fn
}

// Crash crashes the FS now.
func (f *FS) Crash() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.crashed = true
}

// Crashed reports whether the FS is crashed (awaiting Restart).
func (f *FS) Crashed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.crashed
}

// Steps returns the number of steps performed since New.
func (f *FS) Steps() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.steps
}

// Restart resolves a crash per the model and makes the FS usable again. On
// an FS that has not crashed it does nothing.
func (f *FS) Restart() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.crashed {
		return
	}
	f.resolveDir(f.root, map[*node]bool{})
	f.crashed = false
}

// step gates one mutating step; it must be called with mu held.
func (f *FS) step(op, p string) error {
	if f.crashed {
		return ErrCrashed
	}
	if f.crashAt != nil && f.crashAt(op, p) {
		f.crashed = true
		return ErrCrashed
	}
	if f.failAt != nil {
		if err := f.failAt(op, p); err != nil {
			return &fs.PathError{Op: op, Path: p, Err: err}
		}
	}
	f.steps++
	return nil
}

func (f *FS) resolveDir(d *node, seen map[*node]bool) {
	if seen[d] {
		return
	}
	seen[d] = true
	next := map[string]*node{}
	for _, name := range unionKeys(d.children, d.durableChildren) {
		cur, dur := d.children[name], d.durableChildren[name]
		pick := dur
		if cur != dur && f.rng != nil && f.rng.IntN(2) == 0 {
			pick = cur
		}
		if pick != nil {
			next[name] = pick
		}
	}
	d.children, d.durableChildren = next, maps.Clone(next)
	for _, name := range slices.Sorted(maps.Keys(next)) {
		if n := next[name]; n.dir {
			f.resolveDir(n, seen)
		} else {
			f.resolveFile(n, seen)
		}
	}
}

func (f *FS) resolveFile(n *node, seen map[*node]bool) {
	if seen[n] {
		return
	}
	seen[n] = true
	if n.dirty {
		n.data = f.survivingContent(n)
	}
	n.durable, n.dirty = n.data, false
}

// survivingContent picks what an unsynced file holds after a crash.
func (f *FS) survivingContent(n *node) []byte {
	if f.rng == nil {
		return n.durable
	}
	switch f.rng.IntN(3) {
	case 0:
		return n.durable
	case 1:
		return n.data
	}
	return slices.Clone(n.data[:f.rng.IntN(len(n.data)+1)])
}

func unionKeys(a, b map[string]*node) []string {
	keys := slices.Collect(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// split returns the cleaned components of p ("" for the root).
func split(p string) []string {
	p = strings.Trim(path.Clean("/"+p), "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// lookup returns the node at p in the current tree.
func (f *FS) lookup(op, p string) (*node, error) {
	n := f.root
	for _, c := range split(p) {
		if !n.dir {
			return nil, &fs.PathError{Op: op, Path: p, Err: errors.New("not a directory")}
		}
		if n = n.children[c]; n == nil {
			return nil, &fs.PathError{Op: op, Path: p, Err: fs.ErrNotExist}
		}
	}
	return n, nil
}

// parent returns the directory that holds p and p's base name.
func (f *FS) parent(op, p string) (*node, string, error) {
	cs := split(p)
	if len(cs) == 0 {
		return nil, "", &fs.PathError{Op: op, Path: p, Err: fs.ErrInvalid}
	}
	d, err := f.lookup(op, strings.Join(cs[:len(cs)-1], "/"))
	if err == nil && !d.dir {
		err = &fs.PathError{Op: op, Path: p, Err: errors.New("not a directory")}
	}
	return d, cs[len(cs)-1], err
}

func (f *FS) check() error {
	if f.crashed {
		return ErrCrashed
	}
	return nil
}

// checkRead is check for a read of p: the read fail hook may fail it.
func (f *FS) checkRead(op, p string) error {
	if err := f.check(); err != nil {
		return err
	}
	if f.readFail != nil {
		if err := f.readFail(op, p); err != nil {
			return &fs.PathError{Op: op, Path: p, Err: err}
		}
	}
	return nil
}

// fileInfo describes a node.
type fileInfo struct {
	name string
	n    *node
}

func (i fileInfo) Name() string       { return i.name }
func (i fileInfo) Size() int64        { return int64(len(i.n.data)) }
func (i fileInfo) IsDir() bool        { return i.n.dir }
func (i fileInfo) ModTime() time.Time { return time.Time{} }
func (i fileInfo) Sys() any           { return nil }
func (i fileInfo) Mode() fs.FileMode {
	if i.n.dir {
		return fs.ModeDir | 0o755
	}
	return 0o644
}
