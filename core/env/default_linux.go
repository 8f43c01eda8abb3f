//go:build linux

package env

// Default returns the env production code should run on: PreciseWall on
// Linux. Measured side by side (results/README.md, make bench), the Go
// runtime's timers put Wall's trigger delay on a ~0.6 ms floor, about 2x
// behind the JDK's ScheduledThreadPoolExecutor at p50, while PreciseWall
// brings it to 3-4 µs (its timed waits end on time, and the timer's lead,
// TimerLeader, takes the follower's wake-up off the path) for 0.4-0.55 ms
// of process CPU per firing on the (heavily loaded) project machine, at or
// below the JDK peer's in 7 of 9 cells measured in the same run
// (results/bench/experiments/firing-cost: most of it is the Go runtime's
// thread wake-ups, the spins being adaptive), about 2% of one core at one
// firing per 20 ms. Use Wall where CPU matters more than sub-millisecond
// timing.
func Default() Env { return PreciseWall{} }
