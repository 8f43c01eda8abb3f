package campaign

import (
	"encoding/json"
	"fmt"
	"math/bits"
	"slices"
	"time"
)

// subBits sets the histogram's precision: 2^subBits buckets per power of
// two, so a bucket is at most 1/128 of its value wide and a quantile read
// at its midpoint is within 0.4% of the true sample.
const subBits = 7

// Hist is a log-linear histogram of non-negative durations (HDR style):
// values below 2^subBits ns have a bucket each, larger ones 2^subBits
// buckets per power of two. The count and the maximum are exact. The zero
// value is empty and ready to use.
type Hist struct {
	count   int64
	max     int64
	buckets map[int32]int64
}

func bucketOf(v int64) int32 {
	if v < 1<<subBits {
		return int32(max(v, 0))
	}
	shift := bits.Len64(uint64(v)) - 1 - subBits
	m := v >> shift
	return int32((shift+1)<<subBits) + int32(m-1<<subBits)
}

// bucketRange returns the lowest value of bucket b and its width.
func bucketRange(b int32) (low, width int64) {
	if b < 1<<subBits {
		return int64(b), 1
	}
	shift := int(b>>subBits) - 1
	m := int64(b&(1<<subBits-1)) + 1<<subBits
	return m << shift, 1 << shift
}

// Add counts one sample.
func (h *Hist) Add(d time.Duration) {
	if h.buckets == nil {
		h.buckets = map[int32]int64{}
	}
	v := max(int64(d), 0)
	h.count++
	h.max = max(h.max, v)
	h.buckets[bucketOf(v)]++
}

// AddAll counts samples.
func (h *Hist) AddAll(ds []time.Duration) {
	for _, d := range ds {
		h.Add(d)
	}
}

// Merge adds o's samples to h.
func (h *Hist) Merge(o *Hist) {
	if o == nil || o.count == 0 {
		return
	}
	if h.buckets == nil {
		h.buckets = map[int32]int64{}
	}
	h.count += o.count
	h.max = max(h.max, o.max)
	for b, n := range o.buckets {
		h.buckets[b] += n
	}
}

// Count is the number of samples.
func (h *Hist) Count() int64 { return h.count }

// Max is the largest sample, exactly.
func (h *Hist) Max() time.Duration { return time.Duration(h.max) }

// Exact reports whether quantiles are exact sample values: every sample
// fell in a bucket one nanosecond wide.
func (h *Hist) Exact() bool {
	for b := range h.buckets {
		if _, w := bucketRange(b); w > 1 {
			return false
		}
	}
	return true
}

// Quantile is the nearest-rank quantile q in [0, 1]: the midpoint of the
// bucket holding the ceil(q x count)-th smallest sample, never above the
// maximum; 0 when empty.
func (h *Hist) Quantile(q float64) time.Duration {
	if h.count == 0 {
		return 0
	}
	rank := int64(q*float64(h.count) + 0.999999)
	rank = min(max(rank, 1), h.count)
	var seen int64
	for _, b := range h.sorted() {
		seen += h.buckets[b]
		if seen >= rank {
			low, w := bucketRange(b)
			return time.Duration(min(low+(w-1)/2, h.max))
		}
	}
	return time.Duration(h.max)
}

func (h *Hist) sorted() []int32 {
	keys := make([]int32, 0, len(h.buckets))
	for b := range h.buckets {
		keys = append(keys, b)
	}
	slices.Sort(keys)
	return keys
}

// histJSON is the stored form: count, max and the non-empty buckets as a
// flat list of (bucket index minus the previous index, count) pairs.
type histJSON struct {
	N   int64   `json:"n"`
	Max int64   `json:"max"`
	B   []int64 `json:"b"`
}

// MarshalJSON writes the compact stored form.
func (h Hist) MarshalJSON() ([]byte, error) {
	j := histJSON{N: h.count, Max: h.max, B: []int64{}}
	prev := int32(0)
	for _, b := range h.sorted() {
		j.B = append(j.B, int64(b-prev), h.buckets[b])
		prev = b
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads the stored form and checks that it adds up.
func (h *Hist) UnmarshalJSON(data []byte) error {
	var j histJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	if len(j.B)%2 != 0 {
		return fmt.Errorf("histogram: odd bucket list (%d numbers)", len(j.B))
	}
	*h = Hist{count: j.N, max: j.Max, buckets: map[int32]int64{}}
	var b, total int64
	for i := 0; i < len(j.B); i += 2 {
		b += j.B[i]
		if j.B[i] <= 0 && i > 0 || b < 0 || b > 1<<30 || j.B[i+1] <= 0 {
			return fmt.Errorf("histogram: bad bucket pair %d (%d, %d)", i/2, j.B[i], j.B[i+1])
		}
		h.buckets[int32(b)] = j.B[i+1]
		total += j.B[i+1]
	}
	if total != j.N {
		return fmt.Errorf("histogram: buckets hold %d samples, n says %d", total, j.N)
	}
	return nil
}
