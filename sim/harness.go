package sim

// Harness is the part of a World that ckptsim's own harness uses and a
// user driving a component of their own does not need: BUGGIFY's hooks and
// report, the lock-order graph, spawn and note hooks, and the thread
// table (w.Harness().Threads()). Keeping them off World leaves its
// method set the world a user needs: threads (Go, GoRunner), the clock
// (Now, Sleep, Elapsed), locks and conditions, random streams, notes, the
// trace, and Run's outcome and trace hash.
//
// Harness is World under another name (a defined type over the same
// struct), so a Harness and its World are one value.
type Harness World

// Harness returns w's harness view.
func (w *World) Harness() *Harness { return (*Harness)(w) }
