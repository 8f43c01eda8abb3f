package linearizability

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/ckptsim/ckptsim/model"
)

// Options tune CheckWith.
type Options struct {
	// Timeout bounds the whole check; partitions not finished by then are
	// Unknown. 0 means no limit. Wall time: the verdict depends on the
	// machine's speed, so a caller that pins verdicts uses it only as a
	// backstop behind MaxSteps and MaxSearchBytes.
	Timeout time.Duration
	// Workers is how many partitions are checked at once; 0 means
	// GOMAXPROCS.
	Workers int
	// PorcupineOnly skips the witness search and sends every partition to
	// porcupine (for measurements; the verdicts are the same).
	PorcupineOnly bool
	// MaxSteps bounds porcupine's search per partition by model steps (0:
	// no bound). A partition whose search needs more is Unknown whatever
	// the machine's speed: the bound is deterministic, unlike Timeout.
	MaxSteps int64
	// MaxSearchBytes bounds the memory porcupine's search keeps per
	// partition (0: no bound). Every step the model accepts may store in
	// porcupine's cache the set of operations linearized so far, one bit
	// per operation of the partition, with the state: it is charged
	// SearchEntryBytes(n) for a partition of n operations, and a search
	// charged more than MaxSearchBytes is cut, its partition Unknown. The
	// charge depends on the history only, so this bound is deterministic
	// too; it also bounds the search's time, which hashes that set on
	// every accepted step. Searches run at once only while their largest
	// possible charges sum to at most MaxSearchBytes, so the bound holds
	// for the whole check.
	MaxSearchBytes int64
	// MaxHeap, when positive, is the process heap (runtime/metrics
	// /memory/classes/heap/objects:bytes, read every 10 ms while porcupine
	// searches) past which every running search is cut and its partition
	// Unknown. Like Timeout it depends on the machine and on what else the
	// process holds: a backstop, never the bound a pinned verdict relies on.
	MaxHeap int64
}

// SearchEntryBytes is what one accepted model step is charged against
// Options.MaxSearchBytes in a partition of n operations: porcupine's
// copy of the linearized set (n bits in 64-bit words) and the cache
// entry, map slot, call-stack entry and boxed state around it
// (searchEntryOverhead).
func SearchEntryBytes(n int) int64 { return int64(n+63)/64*8 + searchEntryOverhead }

const searchEntryOverhead = 128

// Check checks history h against spec, partition by partition, within
// timeout (0: no limit). Call it outside any synctest bubble: the time limit
// is wall time.
func Check(spec model.Spec, h []porcupine.Operation, timeout time.Duration) Verdict {
	return CheckWith(spec, h, Options{Timeout: timeout})
}

// CheckWith is Check with options.
//
// Each partition (spec.Key of the operation inputs, in sorted key order) is
// first replayed in call order, then in return order: both orders respect
// real time, so a replay the model accepts is a linearization and the
// partition is Ok. Any other partition goes to porcupine. The verdict is
// Illegal when some partition is (naming the first in key order), else
// Unknown when some partition did not finish, else Ok.
func CheckWith(spec model.Spec, h []porcupine.Operation, opt Options) Verdict {
	start := time.Now()
	var deadline time.Time
	if opt.Timeout > 0 {
		deadline = start.Add(opt.Timeout)
	}
	c := &checker{spec: spec, h: h, opt: opt, deadline: deadline, parts: split(spec, h)}
	if opt.MaxSearchBytes > 0 {
		c.room = newRoom(opt.MaxSearchBytes)
	}
	if opt.MaxHeap > 0 {
		defer c.watchHeap()()
	}
	c.run()
	v := c.verdict()
	v.Elapsed = time.Since(start)
	return v
}

type part struct {
	key    model.Key
	idx    []int32 // indices into the history, in history order
	result Result
	cut    cause // why an Unknown partition did not finish
	steps  int64 // model steps porcupine took (0: the witness decided)
	bytes  int64 // what its search was charged against MaxSearchBytes
}

// cause is the limit that left a partition unfinished.
type cause int

const (
	cutNone cause = iota
	cutSteps
	cutBytes
	cutHeap
	cutTime
)

type checker struct {
	spec     model.Spec
	h        []porcupine.Operation
	opt      Options
	deadline time.Time
	parts    []part
	room     *room       // MaxSearchBytes shared by the searches running at once; nil: no bound
	heapHit  atomic.Bool // the process heap passed MaxHeap: cut every search
}

// split groups operation indices by key, keys in sorted order.
func split(spec model.Spec, h []porcupine.Operation) []part {
	by := map[model.Key][]int32{}
	for i, op := range h {
		k := spec.Key(op.Input)
		by[k] = append(by[k], int32(i))
	}
	parts := make([]part, 0, len(by))
	for _, k := range slices.SortedFunc(maps.Keys(by), model.Key.Compare) {
		parts = append(parts, part{key: k, idx: by[k]})
	}
	return parts
}

// run checks partitions on opt.Workers goroutines. Partitions after the
// first Illegal one found are skipped, but every earlier one is checked, so
// the reported partition does not depend on scheduling.
func (c *checker) run() {
	workers := c.opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var next atomic.Int64
	var firstIllegal atomic.Int64
	firstIllegal.Store(int64(len(c.parts)))
	var wg sync.WaitGroup
	for range min(workers, len(c.parts)) {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(len(c.parts)); i = next.Add(1) - 1 {
				if i > firstIllegal.Load() {
					continue
				}
				if c.checkPart(&c.parts[i]); c.parts[i].result == Illegal {
					lowerTo(&firstIllegal, i)
				}
			}
		})
	}
	wg.Wait()
}

func lowerTo(a *atomic.Int64, v int64) {
	for cur := a.Load(); v < cur && !a.CompareAndSwap(cur, v); cur = a.Load() {
	}
}

func (c *checker) checkPart(p *part) {
	if !c.opt.PorcupineOnly && witness(c.spec, c.h, p.idx) {
		p.result = Ok
		return
	}
	s := c.newSearch(len(p.idx))
	if c.room != nil {
		c.room.take(s.reserve)
		defer c.room.give(s.reserve)
	}
	p.result, p.cut = c.search(s, gather(c.h, p.idx))
	p.steps, p.bytes = s.steps.Load(), s.bytes.Load()
}

// search runs porcupine on one partition's operations with the model s
// bounds; a search the bounds cut is Unknown, with the bound that cut it.
func (c *checker) search(s *search, ops []porcupine.Operation) (Result, cause) {
	timeout, ok := c.remaining()
	switch {
	case c.heapHit.Load():
		return Unknown, cutHeap
	case !ok:
		return Unknown, cutTime
	}
	switch porcupine.CheckOperationsTimeout(s.model, ops, timeout) {
	case porcupine.Ok:
		return Ok, cutNone // every step of the linearization found ran within the bounds
	case porcupine.Illegal:
		if cut := s.cause(); cut != cutNone {
			return Unknown, cut // the search was cut: Illegal is not proven
		}
		return Illegal, cutNone
	}
	return Unknown, cutTime
}

// search is the partition model with its cost counted against the
// bounds: once a bound is spent (or the heap watchdog fires) every
// further step is refused, which only prunes porcupine's search, so the
// search ends soon after; an Ok found all the same is a real
// linearization, an Illegal is then not proven.
type search struct {
	model   porcupine.Model
	entry   int64 // SearchEntryBytes of the partition
	reserve int64 // the most it can be charged: what it takes of the room
	steps   atomic.Int64
	bytes   atomic.Int64
	cut     atomic.Int32 // a cause, once the search is cut
	heapHit *atomic.Bool
}

func (c *checker) newSearch(n int) *search {
	s := &search{entry: SearchEntryBytes(n), heapHit: &c.heapHit}
	if c.opt.MaxSearchBytes > 0 {
		s.reserve = c.opt.MaxSearchBytes
		if c.opt.MaxSteps > 0 && c.opt.MaxSteps <= c.opt.MaxSearchBytes/s.entry {
			s.reserve = c.opt.MaxSteps * s.entry
		}
	}
	m := c.single()
	step := m.Step
	m.Step = func(state, input, output any) (bool, any) {
		if s.cut.Load() != int32(cutNone) {
			return false, state
		}
		if s.heapHit.Load() {
			s.cut.CompareAndSwap(int32(cutNone), int32(cutHeap))
			return false, state
		}
		if n := s.steps.Add(1); c.opt.MaxSteps > 0 && n > c.opt.MaxSteps {
			s.cut.CompareAndSwap(int32(cutNone), int32(cutSteps))
			return false, state
		}
		ok, next := step(state, input, output)
		if ok {
			if b := s.bytes.Add(s.entry); c.opt.MaxSearchBytes > 0 && b > c.opt.MaxSearchBytes {
				s.cut.CompareAndSwap(int32(cutNone), int32(cutBytes))
				return false, state
			}
		}
		return ok, next
	}
	s.model = m
	return s
}

func (s *search) cause() cause { return cause(s.cut.Load()) }

// room is MaxSearchBytes shared by the searches running at once: each
// takes the most it can be charged before it starts and gives it back
// when it ends. No take exceeds the whole room, so every one is served.
type room struct {
	mu   sync.Mutex
	cond *sync.Cond
	free int64
}

func newRoom(n int64) *room {
	r := &room{free: n}
	r.cond = sync.NewCond(&r.mu)
	return r
}

func (r *room) take(n int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for r.free < n {
		r.cond.Wait()
	}
	r.free -= n
}

func (r *room) give(n int64) {
	r.mu.Lock()
	r.free += n
	r.mu.Unlock()
	r.cond.Broadcast()
}

// watchHeap reads the process heap now and then every 10 ms until the
// returned stop is called, and sets heapHit once it passes MaxHeap.
func (c *checker) watchHeap() (stop func()) {
	if heapBytes() > c.opt.MaxHeap {
		c.heapHit.Store(true)
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if heapBytes() > c.opt.MaxHeap {
					c.heapHit.Store(true)
					return
				}
			}
		}
	})
	return func() { close(done); wg.Wait() }
}

// heapBytes is the process's heap, as sim.Config.MaxHeap reads it.
func heapBytes() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

// remaining is the time left (0: no limit); false when it has run out.
func (c *checker) remaining() (time.Duration, bool) {
	if c.deadline.IsZero() {
		return 0, true
	}
	d := time.Until(c.deadline)
	return d, d > 0
}

// single is the spec's model for one partition.
func (c *checker) single() porcupine.Model {
	m := c.spec.Model
	m.Partition = nil
	return m
}

func gather(h []porcupine.Operation, idx []int32) []porcupine.Operation {
	ops := make([]porcupine.Operation, len(idx))
	for i, j := range idx {
		ops[i] = h[j]
	}
	return ops
}

// witness looks for a linearization cheaply: operations with a known
// outcome are replayed in call order, then (if that fails) in return order;
// both orders put a before b whenever a returned before b was called.
// Operations with an unknown outcome (Return = math.MaxInt64, concurrent
// with everything after their call) are held back and applied only when
// the next known operation fails without them, and the rest at the end.
// Every step is checked by the model, so an accepted replay is a
// linearization; a refused one proves nothing and goes to porcupine.
func witness(spec model.Spec, h []porcupine.Operation, idx []int32) bool {
	var known, unknown []int32
	for _, i := range idx {
		if h[i].Return == math.MaxInt64 {
			unknown = append(unknown, i)
		} else {
			known = append(known, i)
		}
	}
	byCall := func(a, b int32) int { return cmp.Compare(h[a].Call, h[b].Call) }
	slices.SortStableFunc(unknown, byCall)
	slices.SortStableFunc(known, byCall)
	if replay(spec.NewMachine(), h, known, unknown, func(o *porcupine.Operation) int64 { return o.Call }) {
		return true
	}
	slices.SortStableFunc(known, func(a, b int32) int {
		return cmp.Or(cmp.Compare(h[a].Return, h[b].Return), byCall(a, b))
	})
	return replay(spec.NewMachine(), h, known, unknown, func(o *porcupine.Operation) int64 { return o.Return })
}

// replay steps through known in order. An unknown operation u may be placed
// before known operation x once u.Call <= key(x), key being the sort key of
// known: every operation after x then has a key, hence a return, at or past
// u's call.
func replay(m model.Machine, h []porcupine.Operation, known, unknown []int32, key func(*porcupine.Operation) int64) bool {
	try := func(i int32) bool { return m.Try(h[i].Input, h[i].Output) == "" }
	applied, avail := 0, 0
	for _, x := range known {
		for avail < len(unknown) && h[unknown[avail]].Call <= key(&h[x]) {
			avail++
		}
		for !try(x) {
			if applied == avail || !try(unknown[applied]) {
				return false
			}
			applied++
		}
	}
	for _, u := range unknown[applied:] {
		if !try(u) {
			return false
		}
	}
	return true
}

// verdict sums up the partitions; for an Illegal one it reruns porcupine
// in verbose mode to explain it.
func (c *checker) verdict() Verdict {
	v := Verdict{Model: c.spec.Name, Result: Ok, Ops: len(c.h), Partitions: len(c.parts)}
	for _, p := range c.parts {
		v.Steps += p.steps
		v.SearchBytes = max(v.SearchBytes, p.bytes)
	}
	var first *part
	unknown := 0
	for i, p := range c.parts {
		switch p.result {
		case Illegal:
			c.explain(&v, p)
			return v
		case Unknown:
			if unknown++; unknown == 1 {
				first = &c.parts[i]
			}
		}
	}
	if first != nil {
		v.Result, v.Partition = Unknown, c.spec.Label(first.key)
		v.Message = fmt.Sprintf("%s hit: %d of %d partitions unfinished", c.limit(first.cut), unknown, len(c.parts))
		v.unknown = gather(c.h, first.idx)
	}
	return v
}

// limit names the limit that cut a partition.
func (c *checker) limit(why cause) string {
	switch why {
	case cutSteps:
		return fmt.Sprintf("step limit %d per partition", c.opt.MaxSteps)
	case cutBytes:
		return fmt.Sprintf("search memory limit %s per partition", size(c.opt.MaxSearchBytes))
	case cutHeap:
		return fmt.Sprintf("heap limit %s of the process (machine-dependent)", size(c.opt.MaxHeap))
	case cutTime:
		return fmt.Sprintf("time limit %s (machine-dependent)", c.opt.Timeout)
	}
	return "a limit"
}

// size is n bytes in MiB when it is a whole number of them.
func size(n int64) string {
	if n > 0 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// failure is what a visualisation of an Illegal partition needs.
type failure struct {
	model porcupine.Model
	info  porcupine.LinearizationInfo
	ops   []porcupine.Operation
}

// explain reruns the Illegal partition's search in verbose mode for its
// longest linearizable prefix. It is the same search under the same
// bounds, so it ends within them as the first did; the partial
// linearizations verbose mode keeps besides are watched by MaxHeap and a
// time limit only, and an explanation cut by them says so (the verdict
// stays Illegal: the first search proved it).
func (c *checker) explain(v *Verdict, p part) {
	v.Result, v.Partition, v.Key = Illegal, c.spec.Label(p.key), p.key
	m, ops := c.single(), gather(c.h, p.idx)
	timeout, _ := c.remaining()
	s := c.newSearch(len(ops))
	res, info := porcupine.CheckOperationsVerbose(s.model, ops, max(timeout, 10*time.Second))
	v.Message, v.At = c.longestPrefix(m, ops, info)
	switch {
	case res == porcupine.Unknown:
		v.Message += fmt.Sprintf(" (the explanation's search was cut by the time limit %s)", max(timeout, 10*time.Second))
	case s.cause() != cutNone:
		v.Message += fmt.Sprintf(" (the explanation's search was cut by the %s)", c.limit(s.cause()))
	}
	info.AddAnnotations([]porcupine.Annotation{banner(ops, v.Model+" "+v.Partition+": illegal", v.Message)})
	v.failure = &failure{model: m, info: info, ops: ops}
}

// banner is an annotation row across the whole partition naming it.
func banner(ops []porcupine.Operation, title, details string) porcupine.Annotation {
	start, end := int64(math.MaxInt64), int64(math.MinInt64)
	for _, op := range ops {
		start = min(start, op.Call)
		if op.Return != math.MaxInt64 {
			end = max(end, op.Return)
		}
	}
	return porcupine.Annotation{Tag: "check", Start: start, End: max(end, start), Description: title,
		Details: details, BackgroundColor: "#f8d7da"}
}

// longestPrefix describes the longest linearizable prefix porcupine found
// and why the earliest operation left out of it cannot follow it; it
// returns that operation's call timestamp too.
func (c *checker) longestPrefix(m porcupine.Model, ops []porcupine.Operation, info porcupine.LinearizationInfo) (string, int64) {
	var best []int
	for _, seq := range firstOr(info.PartialLinearizations()) {
		if len(seq) > len(best) {
			best = seq
		}
	}
	st, in := m.Init(), make([]bool, len(ops))
	for _, i := range best {
		_, st = m.Step(st, ops[i].Input, ops[i].Output)
		in[i] = true
	}
	msg := fmt.Sprintf("no linearization; the longest legal prefix has %d of %d operations, ending in state {%s}",
		len(best), len(ops), m.DescribeState(st))
	next, at := -1, int64(0)
	for i := range ops {
		if !in[i] && (next < 0 || ops[i].Call < ops[next].Call) {
			next = i
		}
	}
	if next >= 0 {
		o := ops[next]
		at = o.Call
		msg += fmt.Sprintf("; next %v by %s at %d: %s", m.DescribeOperation(o.Input, o.Output),
			actorOf(o), o.Call, c.spec.Why(st, o.Input, o.Output))
	}
	return msg, at
}

func actorOf(op porcupine.Operation) string {
	if a, ok := op.Metadata.(string); ok {
		return a
	}
	return fmt.Sprintf("client %d", op.ClientId)
}

func firstOr(x [][][]int) [][]int {
	if len(x) == 0 {
		return nil
	}
	return x[0]
}

// WriteVisualization writes porcupine's HTML visualisation of the failing
// partition to dir/<model>-<partition>.html, records the path in
// v.HTMLPath, and saves the partition's history beside it as
// <model>-<partition>.hist (the history file format, ready to be copied into
// testdata and replayed). It does nothing for a verdict that is not Illegal.
func (v *Verdict) WriteVisualization(dir string) error {
	if v.failure == nil {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	base := filepath.Join(dir, fileName(v.Model+"-"+v.Partition))
	if err := porcupine.VisualizePath(v.failure.model, v.failure.info, base+".html"); err != nil {
		return fmt.Errorf("visualisation of %s %s: %w", v.Model, v.Partition, err)
	}
	v.HTMLPath = base + ".html"
	return v.writeHistory(base + ".hist")
}

func (v *Verdict) writeHistory(path string) error {
	spec, ok := model.ByName(v.Model)
	if !ok {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := WriteHistory(f, spec, "illegal", v.failure.ops); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// fileName keeps letters, digits and '-' and turns the rest into '-'.
func fileName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' {
			return r
		}
		return '-'
	}, s)
}
