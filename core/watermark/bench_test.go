package watermark

import (
	"runtime"
	"slices"
	"sort"
	"testing"
	"time"
)

// benchTracker is what the tracker benchmark drives: the ring tracker and a
// naive sorted-slice baseline.
type benchTracker interface {
	register(seq uint64, last int64)
	resolve(seq uint64, last int64)
	advance() (int64, bool)
}

type ringBench struct{ t tracker }

func (r *ringBench) register(seq uint64, last int64) { r.t.register(seq, last, time.Time{}) }
func (r *ringBench) resolve(seq uint64, _ int64)     { r.t.resolve(seq, false) }
func (r *ringBench) advance() (int64, bool) {
	off, _, moved := r.t.advance()
	return off, moved
}

// sortedBench is the common naive design, for comparison only: resolved
// batches are inserted into a slice kept sorted by sequence, and advance
// pops the prefix that continues the watermark. An ack that arrives far
// ahead of the head costs a shift of everything after it.
type sortedBench struct {
	next uint64
	done []naiveEntry
}

type naiveEntry struct {
	seq  uint64
	last int64
}

func (s *sortedBench) register(uint64, int64) {}
func (s *sortedBench) resolve(seq uint64, last int64) {
	i := sort.Search(len(s.done), func(i int) bool { return s.done[i].seq >= seq })
	s.done = slices.Insert(s.done, i, naiveEntry{seq, last})
}
func (s *sortedBench) advance() (int64, bool) {
	k := 0
	for k < len(s.done) && s.done[k].seq == s.next {
		k++
		s.next++
	}
	if k == 0 {
		return 0, false
	}
	off := s.done[k-1].last + 1
	s.done = slices.Delete(s.done, 0, k)
	return off, true
}

const (
	benchBatches = 8192 // batches in flight per round
	benchTick    = 256  // resolutions between advances
)

// benchOrders are resolution orders: position i of a round resolves
// sequence order(i).
var benchOrders = []struct {
	name  string
	order func(i int) int
}{
	{"inorder", func(i int) int { return i }},
	{"scrambled", func(i int) int { return (i * 4093) % benchBatches }}, // odd stride: a permutation
	{"reverse", func(i int) int { return benchBatches - 1 - i }},
}

// BenchmarkTracker registers 8192 batches, resolves them in the given order
// and advances every 256 resolutions; ns/batch is per batch round trip and
// allocs/batch the heap allocations per batch. Implementations: our ring
// tracker, a naive sorted slice, and the peer github.com/Jeffail/checkpoint
// v1.0.1 (Uncapped and Capped).
func BenchmarkTracker(b *testing.B) {
	impls := []struct {
		name string
		make func() benchTracker
	}{
		{"ring", func() benchTracker { return &ringBench{} }},
		{"sorted", func() benchTracker { return &sortedBench{} }},
		{"jeffail-uncapped", func() benchTracker { return newJeffailUncapped() }},
		{"jeffail-capped", func() benchTracker { return newJeffailCapped() }},
	}
	for _, o := range benchOrders {
		for _, impl := range impls {
			b.Run(o.name+"/"+impl.name, func(b *testing.B) {
				benchRounds(b, impl.make(), o.order)
			})
		}
	}
}

func benchRounds(b *testing.B, t benchTracker, order func(int) int) {
	b.ReportAllocs()
	var base uint64
	benchRound(t, base, order) // warm: rings and slices reach their size before measuring
	base += benchBatches
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	mallocs := ms.Mallocs
	for b.Loop() {
		if final := benchRound(t, base, order); final != int64(base)+benchBatches {
			b.Fatalf("round ended at %d, want %d", final, int64(base)+benchBatches)
		}
		base += benchBatches
	}
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchBatches), "ns/batch")
	b.ReportMetric(float64(ms.Mallocs-mallocs)/float64(b.N*benchBatches), "allocs/batch")
}

// benchRound runs one round of batches base.. and returns the last watermark.
// Batch seq covers offset seq, so the final watermark is base+benchBatches.
func benchRound(t benchTracker, base uint64, order func(int) int) int64 {
	for i := range uint64(benchBatches) {
		t.register(base+i, int64(base+i))
	}
	var mark int64
	for i := range benchBatches {
		seq := base + uint64(order(i))
		t.resolve(seq, int64(seq))
		if (i+1)%benchTick == 0 {
			if off, ok := t.advance(); ok {
				mark = off
			}
		}
	}
	return mark
}

// BenchmarkCheckpointer is the whole path on one thread: Issue 8192 acks on
// one partition, resolve them in reverse, Drain and TakeWatermarks every 256.
func BenchmarkCheckpointer(b *testing.B) {
	cp := New(newFakeEnv(), Options{})
	cp.BeginEpoch([]Partition{p0}, 1)
	is := cp.NewIssuer()
	acks := make([]*Ack, benchBatches)
	var next int64
	b.ReportAllocs()
	for b.Loop() {
		for i := range acks {
			acks[i] = is.Issue(p0, next)
			next++
		}
		for i := range acks {
			acks[len(acks)-1-i].Done()
			if (i+1)%benchTick == 0 {
				cp.Drain()
				cp.TakeWatermarks()
			}
		}
	}
	if cp.Pending(p0) != 0 {
		b.Fatalf("pending %d after the last round", cp.Pending(p0))
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchBatches), "ns/batch")
}
