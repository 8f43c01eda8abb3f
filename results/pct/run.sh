#!/bin/sh
# run.sh [OUT]: PCT's catch rate on a planted short race (README.md, "Drive
# your own code with sim"; sim/doc.go, Strategies): the log of
# go test ./sim -run TestPCTShortRace -v (seeds 0-999 of a 26-step lost
# update under the random walk and PCT with the measured horizon, the
# log-uniform draw, PCTDepth 11 and PCTSteps 26) under bench/header.sh's
# lines (command, commit, machine, date). It fails when the test fails.
set -eu
out=${1:-results/pct/short-race.txt}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
go test ./sim -run '^TestPCTShortRace$' -v -count=1 >"$tmp" 2>&1 || {
	echo "run.sh: TestPCTShortRace failed:" >&2
	cat "$tmp" >&2
	exit 1
}
{
	"$(dirname "$0")/../../bench/header.sh" results/pct/run.sh "$out"
	sed -n 's/^ *pct_horizon_test.go:[0-9]*: //p' "$tmp"
} >"$out.tmp"
mv "$out.tmp" "$out"
cat "$out"
