// Package bench holds ckptsim's benchmarks (go test -bench, nothing runs
// without -bench): trigger delay of the three scheduler designs and of
// the real coordinator trigger path in wall mode, the timer floor, pool
// saturation measured and predicted by the simulator, and the
// simulator's own speed. See README.md for the commands and
// ../results/README.md for the figures.
package bench
