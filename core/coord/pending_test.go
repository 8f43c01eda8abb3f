package coord

import (
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/core/env"
)

// TestPendingAcks: a pending checkpoint counts each of its tasks' first ack
// once; a second ack, or one from a task it does not wait for (a closed
// idle task, an unknown id), is a duplicate; the last ack completes it with
// every task's state.
func TestPendingAcks(t *testing.T) {
	p := newPending(env.Wall{}, 1, 0, 7, Checkpoint, time.Unix(0, 0), 1, []TaskID{0, 2, 5})
	step := func(task TaskID, wantLast, wantDup bool) {
		t.Helper()
		last, dup := p.ack(task, []byte{byte(task)})
		if last != wantLast || dup != wantDup {
			t.Fatalf("ack(%d) = last %v dup %v, want %v %v", task, last, dup, wantLast, wantDup)
		}
	}
	step(1, false, true) // not one of its tasks (closed before it was created)
	step(-1, false, true)
	step(6, false, true)
	step(2, false, false)
	step(2, false, true) // a second ack
	if p.FullyAcked() {
		t.Fatal("fully acked after one of three")
	}
	step(0, false, false)
	step(5, true, false)
	step(5, false, true)
	if !p.FullyAcked() {
		t.Fatal("not fully acked after all three")
	}
	cp := p.completed(time.Unix(1, 0))
	if len(cp.States) != 3 || cp.States[0][0] != 0 || cp.States[2][0] != 2 || cp.States[5][0] != 5 {
		t.Fatalf("states %v", cp.States)
	}
	step(0, false, true) // after completion: nothing changes the completed states
	if len(cp.States) != 3 {
		t.Fatalf("states changed after completion: %v", cp.States)
	}
	// The completed states are the receiver's from then on: what it does
	// with them changes nothing in the pending checkpoint.
	delete(cp.States, 2)
	step(2, false, true)
	if _, ok := cp.States[2]; ok || !p.FullyAcked() {
		t.Fatalf("a late ack wrote into the completed states (%v) or the pending forgot it was full", cp.States)
	}

	none := newPending(env.Wall{}, 1, 0, 8, Checkpoint, time.Unix(0, 0), 1, nil)
	if last, dup := none.ack(0, nil); last || !dup || !none.FullyAcked() {
		t.Fatalf("no tasks: ack = last %v dup %v, fully acked %v", last, dup, none.FullyAcked())
	}
}
