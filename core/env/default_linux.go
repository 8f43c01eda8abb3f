//go:build linux

package env

// Default returns the env production code should run on: PreciseWall
// with Poll on Linux. Measured side by side (results/README.md, make
// bench), the Go runtime's timers put Wall's trigger delay on a ~0.6 ms
// floor, about 2x behind the JDK's ScheduledThreadPoolExecutor at p50,
// while PreciseWall brings it to a few microseconds (its timed waits end
// on time, and the timer's lead, TimerLeader, takes the follower's
// wake-up off the path). With Poll its kernel sleep is a timerfd read
// through the runtime's poller: no Go-park phase, no slot, no P held, so
// a firing makes fewer context switches (5-6 against 8-10 on two Ps,
// about 3 on one, the JDK peer's count; results/bench/experiments/README.md, wakeups,
// "The poller instead") and, in most cells, costs less CPU.
//
// The price is still CPU: each firing spins out what is left of the lead
// (results/bench/tables.md has the figures per cell, on the machine's Ps
// and on one; results/bench/experiments/README.md, stalls why a run's figure also
// depends on how often the host stopped the virtual machine during it).
// In a process that runs the control plane alone, GOMAXPROCS=1 takes away
// the idle P the runtime otherwise wakes a second thread for on each
// firing (results/bench/experiments/README.md, idle-switches). Use Wall where CPU
// matters more than sub-millisecond timing.
func Default() Env { return PreciseWall{Poll: true} }
