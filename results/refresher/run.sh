#!/bin/sh
# run.sh [OUT]: the refresher example's detection figures (README.md, "Drive
# your own code with sim"): go test -v of TestBuggyCacheIsCaught and
# TestCorrectCacheIsLinearizable, turned into the Go benchmark format under
# bench/header.sh's lines (command, commit, machine, date), so that
# cmd/resultsdoc reads it as it reads results/bench: per cache and strategy,
# the seeds caught (porcupine Illegal), the seeds run and, for the buggy
# cache, the longest run of consecutive seeds not caught. It fails when the
# tests fail. make refresher-figures runs it into results/refresher/caught.txt.
set -eu
out=${1:-results/refresher/caught.txt}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
go test ./sim/example/refresher -run '^(TestBuggyCacheIsCaught|TestCorrectCacheIsLinearizable)$' -v -count=1 >"$tmp" 2>&1 || {
	echo "run.sh: the refresher tests failed:" >&2
	cat "$tmp" >&2
	exit 1
}
{
	"$(dirname "$0")/../../bench/header.sh" results/refresher/run.sh "$out"
	awk '
	/: buggy cache caught in [0-9]+ of seeds 0-[0-9]+; longest run of seeds not caught: [0-9]+$/ {
		st = $2; sub(/:$/, "", st); split($10, r, "-")
		printf "BenchmarkRefresher/cache=buggy/strategy=%s 1 %d caught %d seeds %d longest-miss\n", st, $7, r[2] + 1, $NF
	}
	/: correct cache linearizable in [0-9]+ of seeds 0-[0-9]+$/ {
		st = $2; sub(/:$/, "", st); split($NF, r, "-")
		printf "BenchmarkRefresher/cache=correct/strategy=%s 1 0 caught %d seeds\n", st, r[2] + 1
	}' "$tmp"
} >"$out.tmp"
mv "$out.tmp" "$out"
cat "$out"
