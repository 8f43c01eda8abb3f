package sim

import "time"

// CPUModel charges virtual time for computation: each scheduling point of
// a thread costs PerStep on one of Cores virtual cores. With K cores the
// clock advances PerStep/K per step, so a burst of runnable work delays
// timers the way a busy machine does. Without a model threads run in zero
// virtual time.
type CPUModel struct {
	Cores   int
	PerStep time.Duration
}

type cpuState struct {
	step int64 // ns per step, already divided by cores
	frac int64 // remainder carried between steps
	m    CPUModel
}

func newCPUState(m CPUModel) *cpuState {
	if m.Cores <= 0 {
		m.Cores = 1
	}
	return &cpuState{m: m}
}

func (c *cpuState) charge(w *World, t *thread) {
	c.frac += int64(c.m.PerStep)
	adv := c.frac / int64(c.m.Cores)
	c.frac -= adv * int64(c.m.Cores)
	if adv == 0 {
		return
	}
	w.now += adv
	w.fireDue()
}
