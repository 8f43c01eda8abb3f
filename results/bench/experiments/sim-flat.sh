#!/bin/sh
# sim-flat.sh OUT [ROUNDS]: the simulator's per-step and per-wake cost
# before and after the sim-flat changes (timer FIFO, PCT heap, replay by
# id). Two test binaries of ./bench built from the same benchmark code:
# sim=base with sim/ as at a27ce22 (the commit that added the timed-wake
# benchmark, before any change to sim/), sim=head with sim/ as at HEAD.
# ROUNDS rounds (default 10), each running both binaries back to back
# (which goes first alternates), -count 1 each: BenchmarkSchedPointThreads,
# BenchmarkTimedWake (sim and synctest arms) and BenchmarkTimedWakeRatio
# (-benchtime 10x). OUT gets both in the Go benchmark format, the arm in
# the name. Run from the repository root on a clean tree; compare with
#   go run golang.org/x/perf/cmd/benchstat -col /sim OUT
set -eu
out=$1
rounds=${2:-10}
root=$(git rev-parse --show-toplevel)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git worktree add -q --detach "$tmp/wt" HEAD
(cd "$tmp/wt" && rm -rf sim && git checkout -q a27ce22 -- sim && go test -c -o "$tmp/base.test" ./bench/)
git worktree remove --force "$tmp/wt"
go test -c -o "$tmp/head.test" ./bench/
run() { # run ARM ARGS...: one benchmark run of an arm, names tagged with it
	arm=$1
	shift
	(cd "$root/bench" && nice "$tmp/$arm.test" -test.run '^$' "$@") |
		sed -n "s|^\(Benchmark[A-Za-z]*\)/|\1/sim=$arm/|p"
}
{
	"$root/bench/header.sh" "$0" "$@"
	(cd "$root/bench" && "$tmp/head.test" -test.run '^$' -test.bench '^$' | grep '^Unit' || true)
	for i in $(seq "$rounds"); do
		if [ $((i % 2)) = 1 ]; then arms="base head"; else arms="head base"; fi
		for a in $arms; do
			run "$a" -test.bench '^BenchmarkSchedPointThreads$|^BenchmarkTimedWake$'
			run "$a" -test.bench '^BenchmarkTimedWakeRatio$' -test.benchtime 10x
		done
	done
} >"$out.tmp"
mv "$out.tmp" "$out"
