// Package bench holds ckptsim's benchmarks (go test -bench, nothing runs
// without -bench): trigger delay of the four scheduler designs and of
// the real coordinator trigger path in wall mode, on env.Wall and on
// env.PreciseWall (env.Default() in production on Linux), the timer
// floor, pool saturation measured and predicted by the simulator, and the
// simulator's own speed. Delays are measured from the intended schedule
// (t0 + k x interval per pipeline), after one full interval of warm-up.
// See README.md for the commands and ../results/README.md for the
// figures.
package bench
