#!/bin/sh
# fewer-points.sh OUT: BenchmarkSim/pipelines=500 as it is (sim=base) and
# with fewer-points.diff applied (sim=fewer-points: no scheduling point
# after Unlock nor in Now, 41% fewer points), two test binaries built from
# the same commit and alternated five times, 3 runs each. OUT gets both in
# the Go benchmark format (the name carries the arm), with the commit and
# the machine, and the user+sys CPU seconds per run of each process as
# cpu-s/op (the process's CPU over its 4 runs: the warm-up and the 3).
# Run from the repository root on a clean tree.
set -eu
out=$1
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git worktree add -q --detach "$tmp/wt" HEAD
go test -c -o "$tmp/base.test" ./bench/
(cd "$tmp/wt" && git apply "$dir/fewer-points.diff" && go test -c -o "$tmp/fewer-points.test" ./bench/)
git worktree remove --force "$tmp/wt"
{
	"$(git rev-parse --show-toplevel)/bench/header.sh" "$0" "$out"
	for i in 1 2 3 4 5; do
		for v in base fewer-points; do
			/usr/bin/time -f '%U %S' -o "$tmp/cpu" "$tmp/$v.test" -test.run '^$' \
				-test.bench 'BenchmarkSim$/pipelines=500' -test.benchtime 3x -test.benchmem >"$tmp/o"
			cpu=$(awk '{printf "%.3f", ($1+$2)/4}' "$tmp/cpu")
			grep '^BenchmarkSim' "$tmp/o" | sed "s|^BenchmarkSim/|BenchmarkSim/sim=$v/|; s|\$|\t$cpu cpu-s/op|"
		done
	done
} >"$out.tmp"
mv "$out.tmp" "$out"
