package watermark

import (
	"testing"

	"pgregory.net/rapid"
)

// The ring tracker against a map-based reference: registrations in order,
// resolutions in any order, advances at random points. Long runs make the
// ring wrap and grow.
func TestTrackerMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var tr tracker
		ref := map[uint64]*modelBatch{}
		var head, next uint64
		var unresolved []uint64
		var last int64
		t.Repeat(map[string]func(*rapid.T){
			"register": func(t *rapid.T) {
				last += int64(rapid.IntRange(1, 100).Draw(t, "step"))
				tr.register(next, last, t0)
				ref[next] = &modelBatch{last: last}
				unresolved = append(unresolved, next)
				next++
			},
			"resolve": func(t *rapid.T) {
				if len(unresolved) == 0 {
					t.Skip("nothing unresolved")
				}
				i := rapid.IntRange(0, len(unresolved)-1).Draw(t, "i")
				seq := unresolved[i]
				unresolved[i] = unresolved[len(unresolved)-1]
				unresolved = unresolved[:len(unresolved)-1]
				failed := rapid.IntRange(0, 9).Draw(t, "fail?") == 0
				if got := tr.resolve(seq, failed); got != outcomeApplied {
					t.Fatalf("resolve(%d) = %d, want applied", seq, got)
				}
				ref[seq].state = slotDelivered
				if failed {
					ref[seq].state = slotFailed
				}
				if tr.resolve(seq, false) != outcomeDuplicate {
					t.Fatalf("second resolve(%d) not a duplicate", seq)
				}
			},
			"advance": func(t *rapid.T) {
				var want int64
				n := 0
				for b := ref[head]; b != nil && b.state == slotDelivered; b = ref[head] {
					want, n = b.last+1, n+1
					delete(ref, head)
					head++
				}
				got, popped, moved := tr.advance()
				if popped != n || moved != (n > 0) || moved && got != want {
					t.Fatalf("advance() = %d, %d, %v; want %d, %d", got, popped, moved, want, n)
				}
				if head > 0 && tr.resolve(head-1, false) != outcomeAdvanced {
					t.Fatalf("resolve(%d) after advance not reported as advanced", head-1)
				}
			},
			"": func(t *rapid.T) {
				if tr.pending() != len(ref) || tr.headSeq != head || tr.nextSeq() != next {
					t.Fatalf("pending %d head %d next %d; want %d %d %d", tr.pending(), tr.headSeq, tr.nextSeq(), len(ref), head, next)
				}
				if tr.resolve(next, false) != outcomeUnregistered {
					t.Fatalf("resolve(next=%d) not unregistered", next)
				}
			},
		})
	})
}
