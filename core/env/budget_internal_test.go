//go:build linux

package env

import (
	"testing"
	"time"
)

// The budget lets a wait spin while the spin charged so far, paid off at
// its rate, is at most spinBurst ahead of now; a charge from an idle
// stretch starts from now, not from the last charge (unused budget does
// not pile up beyond the burst).
func TestSpinBudgetRate(t *testing.T) {
	var b spinBudget
	const r = 0.01 // 1% of a core: 10 ms of spin per second
	now := int64(time.Hour)
	if !b.allow(now) {
		t.Fatal("a fresh budget does not allow a spin")
	}
	// 10 ms of spin is 1 s of budget: at the burst, still allowed.
	b.charge(now, 10*time.Millisecond, r)
	if !b.allow(now) {
		t.Fatal("a spin within the burst spent the budget")
	}
	b.charge(now, time.Microsecond, r) // 100 µs of budget past the burst
	if b.allow(now) {
		t.Fatal("a spin past the burst did not spend the budget")
	}
	if !b.allow(now + int64(100*time.Microsecond)) {
		t.Fatal("the budget did not refill at its rate")
	}
	// An hour later the charge starts from then: one more second of
	// budget is what 10 ms of spin takes, and the next microsecond is over.
	later := now + int64(time.Hour)
	b.charge(later, 10*time.Millisecond, r)
	if !b.allow(later) {
		t.Fatal("an idle hour did not refill the budget")
	}
	b.charge(later, time.Microsecond, r)
	if b.allow(later) {
		t.Fatal("unused budget piled up beyond the burst")
	}
}

// With the budget spent, a PreciseWall wait has no spin phase (counted
// as over budget) and still never ends early, the timer lead is 0, and a
// negative SpinBudget has no budget at all. The process's budget is
// restored afterwards.
func TestSpinBudgetSpent(t *testing.T) {
	saved := budget.tat.Load()
	defer budget.tat.Store(saved)
	for _, poll := range []bool{true, false} {
		p := PreciseWall{Poll: poll}
		budget.tat.Store(budgetNow() + int64(time.Hour)) // an hour of spin to pay off
		if got := p.TimerLead(); got != 0 {
			t.Errorf("Poll %v: TimerLead with the budget spent = %v, want 0", poll, got)
		}
		s0 := ReadSpinStats()
		for range 5 {
			t0 := time.Now()
			p.Sleep(time.Millisecond)
			if el := time.Since(t0); el < time.Millisecond {
				t.Fatalf("Poll %v: Sleep(1ms) over budget ended after %v", poll, el)
			}
			t0 = time.Now()
			p.Sleep(5 * time.Microsecond) // within the spin-only length
			if el := time.Since(t0); el < 5*time.Microsecond {
				t.Fatalf("Poll %v: Sleep(5µs) over budget ended after %v", poll, el)
			}
		}
		s1 := ReadSpinStats()
		if over := s1.OverBudget - s0.OverBudget; over != 10 {
			t.Errorf("Poll %v: %d of 10 sleeps counted over budget", poll, over)
		}
		if w := s1.Waits - s0.Waits; w != 0 {
			t.Errorf("Poll %v: %d sleeps spun with the budget spent", poll, w)
		}
		// No budget: the same sleeps spin (or may: each counts as a wait).
		nb := PreciseWall{Poll: poll, SpinBudget: -1}
		if nb.TimerLead() == 0 {
			t.Errorf("Poll %v: SpinBudget -1 has no timer lead while the budget is spent", poll)
		}
		s0 = ReadSpinStats()
		nb.Sleep(time.Millisecond)
		nb.Sleep(5 * time.Microsecond)
		s1 = ReadSpinStats()
		if w, over := s1.Waits-s0.Waits, s1.OverBudget-s0.OverBudget; w != 2 || over != 0 {
			t.Errorf("Poll %v, SpinBudget -1: %d waits spun, %d over budget; want 2, 0", poll, w, over)
		}
	}
}
