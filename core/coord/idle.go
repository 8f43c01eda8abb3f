package coord

import (
	"fmt"
	"slices"

	"github.com/ckptsim/ckptsim/core/env"
	"github.com/ckptsim/ckptsim/core/variant"
)

// idleSets are the idle-task closing state (readyToCloseIdleTask, SPEC 1.5
// and 1.7), guarded by coord.pending.
//
// A non-starting task that has nothing left to read (an idle reader) asks
// to close. The next checkpoint's barrier names it in PrepareClose; when it
// acknowledges that barrier it moves to closed (closedIdleTask) and later
// checkpoints neither send it barriers nor wait for its acknowledgement.
// It closes for good when a checkpoint naming it in Completed.Closed is
// stored: the notify tells it, and done remembers it. A clean clears ready
// and closed as upstream does; a restore rebuilds closed from done (the
// engine's FINISHED task states, #12042), unless idle-restore=forget.
type idleSets struct {
	ready  map[TaskID]bool
	closed map[TaskID]bool
	done   map[TaskID]bool // survives cleans
}

func newIdleSets() idleSets {
	return idleSets{ready: map[TaskID]bool{}, closed: map[TaskID]bool{}, done: map[TaskID]bool{}}
}

// idleEnabled reports whether the pipeline has non-starting tasks, the
// only ones that may close early. Without them nothing here takes a lock,
// so runs without idle tasks keep their schedules.
func (c *Coordinator) idleEnabled() bool {
	return c.cfg.StartingTasks > 0 && c.cfg.StartingTasks < len(c.tasks)
}

// isStarting reports whether t starts the pipeline (a source).
func (c *Coordinator) isStarting(t TaskID) bool {
	return c.cfg.StartingTasks <= 0 || int(t) < c.cfg.StartingTasks
}

// startingTasks returns the tasks that start the pipeline.
func (c *Coordinator) startingTasks() []TaskID {
	if c.cfg.StartingTasks <= 0 || c.cfg.StartingTasks >= len(c.tasks) {
		return c.tasks
	}
	return c.tasks[:c.cfg.StartingTasks]
}

// ReadyToCloseIdle is readyToCloseIdleTask: a non-starting task reports
// that it is idle and may close. The next checkpoint lets it close; a task
// already waiting or closed is ignored. Starting tasks finish through
// ReadyToClose instead.
func (c *Coordinator) ReadyToCloseIdle(task TaskID) error {
	if task < 0 || int(task) >= len(c.tasks) {
		return fmt.Errorf("coord: ready to close unknown task %d", task)
	}
	if c.isStarting(task) {
		return fmt.Errorf("coord: task %d is a starting task: it closes with the pipeline (ReadyToClose), not as idle", task)
	}
	c.mapMu.Lock()
	defer c.mapMu.Unlock()
	if c.idle.ready[task] || c.idle.closed[task] || c.idle.done[task] {
		return nil
	}
	c.idle.ready[task] = true
	return nil
}

// idleSnapshot returns, for a new pending checkpoint of typ, the tasks it
// waits for (and sends barriers to), the idle tasks its barrier prepares
// to close (non-final checkpoints only), and the tasks already closed.
func (c *Coordinator) idleSnapshot(typ Type) (tasks, prepare, closed []TaskID) {
	if !c.idleEnabled() {
		return c.tasks, nil, nil
	}
	c.mapMu.Lock()
	defer c.mapMu.Unlock()
	for _, t := range c.tasks {
		switch {
		case c.idle.closed[t]:
			closed = append(closed, t)
		case c.idle.ready[t] && !typ.Final():
			prepare = append(prepare, t)
			tasks = append(tasks, t)
		default:
			tasks = append(tasks, t)
		}
	}
	return tasks, prepare, closed
}

// idleAcked moves a task that acknowledged a barrier preparing it to close
// to closedIdleTask (SPEC 1.7), while the checkpoint is still pending: the
// acknowledgement found it pending under coord.map, and a clean (a
// restore's) may have taken it and cleared the idle sets before this
// second section. Recorded then, the task stayed closed in the restored
// generation although the checkpoint that prepared it was aborted: no
// barrier reached it again and every later checkpoint was stored without
// it (F043: stored-without-task; windows seeds 17, 44, 61, 63, ... of
// 0-199, BUGGIFY ack-slow).
func (c *Coordinator) idleAcked(p *Pending, task TaskID) {
	if !slices.Contains(p.prepareClose, task) {
		return
	}
	c.mapMu.Lock()
	defer c.mapMu.Unlock()
	if c.pending[p.ID] != p {
		env.Hit(c.e, env.ProbeIdleAckAfterClean)
		return
	}
	delete(c.idle.ready, task)
	c.idle.closed[task] = true
}

// idleStored records, once cp is stored, that the tasks it names closed
// for good. It also marks them closed in the current generation, so that
// a completion straddling a restore and the restore's rebuild agree
// whichever runs first.
func (c *Coordinator) idleStored(cp *Completed) {
	if len(cp.Closed) == 0 {
		return
	}
	c.mapMu.Lock()
	for _, t := range cp.Closed {
		c.idle.done[t] = true
		c.idle.closed[t] = true
		delete(c.idle.ready, t)
	}
	c.mapMu.Unlock()
}

// idleClean clears the per-generation sets; the caller holds coord.pending.
func (c *Coordinator) idleClean() {
	clear(c.idle.ready)
	clear(c.idle.closed)
}

// idleRebuild restores closedIdleTask from the tasks closed for good; the
// caller holds coord.pending. latest is the checkpoint the restore read
// from storage: the tasks it names are closed for good too, even if its
// completion failed after the write (the restore's re-commit tells them;
// found by BUGGIFY, site store-fails-after-write, idle-close seeds 3 and
// 4). idle-restore=forget keeps upstream's loss before #12042: closed
// tasks get barriers again and never acknowledge.
func (c *Coordinator) idleRebuild(latest *Completed) {
	if latest != nil {
		for _, t := range latest.Closed {
			c.idle.done[t] = true
		}
	}
	if c.cfg.Variants.IdleRestore == variant.IdleForget {
		return
	}
	for t := range c.idle.done {
		c.idle.closed[t] = true
	}
}

// ClosedTasks returns the tasks closed for good, sorted.
func (c *Coordinator) ClosedTasks() []TaskID {
	c.mapMu.Lock()
	defer c.mapMu.Unlock()
	var out []TaskID
	for t := range c.idle.done {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}
