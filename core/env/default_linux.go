//go:build linux

package env

// Default returns the env production code should run on: PreciseWall on
// Linux. Measured side by side (results/README.md, make bench), the Go
// runtime's timers put Wall's trigger delay on a ~0.6 ms floor, about 2x
// behind the JDK's ScheduledThreadPoolExecutor at p50, while PreciseWall
// brings it to a few microseconds (its timed waits end on time, and the
// timer's lead, TimerLeader, takes the follower's wake-up off the path).
// The price is CPU: each firing spins out the lead and the futex phase's
// lateness, so on the project machine a firing costs more process CPU
// than Wall's and, in most cells, than the JDK peer's
// (results/bench/tables.md has the figures per cell;
// results/bench/experiments/stalls why a run's figure also depends on how
// often the host stopped the virtual machine during it). Use Wall where
// CPU matters more than sub-millisecond timing; in a process that runs the
// control plane alone, Wall with GOMAXPROCS=1 cost an idle member less CPU
// than the JDK peer on the same schedule in every cell measured, where the
// default env and Wall on two Ps did not: with one P the runtime has no
// idle P to wake a second thread for on each firing
// (results/bench/experiments/idle-switches).
func Default() Env { return PreciseWall{} }
