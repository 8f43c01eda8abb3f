package coord

import (
	"testing"

	"github.com/ckptsim/ckptsim/core/env"
)

// TestArgumentChecks: what the cluster never does, and core answers
// anyway (results/coverage/defensive.txt): ReadyToCloseIdle of a task the
// pipeline does not have is refused, an event with no observer installed
// goes nowhere, a coordinator built from a restored checkpoint starts from
// it, marked restored, and a SCHEMA_CHANGE_AFTER completing while no
// schema change is under way is an error.
func TestArgumentChecks(t *testing.T) {
	inSim(t, 1, func(t testing.TB, e env.Env) {
		r := newRig(t, e, Config{Tasks: 2})
		defer r.close()
		for _, task := range []TaskID{-1, 2} {
			if err := r.c.ReadyToCloseIdle(task); err == nil {
				t.Errorf("ReadyToCloseIdle(%d) of a 2-task pipeline accepted", task)
			}
		}
		r.c.cfg.Observer = nil
		r.c.emit(Event{Kind: EvCompleted})
		if err := r.c.notifyCompleted(&Completed{ID: 3, Type: SchemaChangeAfter}); err == nil {
			t.Errorf("a SCHEMA_CHANGE_AFTER completing outside a schema change accepted")
		}
		c := New(r.c.d, 1, 1, Config{Tasks: 2}, &Completed{ID: 7})
		if l := c.latestCompleted.Load(); l == nil || l.ID != 7 || !l.Restored {
			t.Errorf("New from a restored checkpoint: latest %+v, want id 7, restored", l)
		}
	})
}
