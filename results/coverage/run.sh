#!/bin/sh
# run.sh [SIMRUN_ARGS...]: what the default campaign reaches in core/.
# Builds simrun with -cover, runs the campaign (default: the default
# campaign; arguments replace it) with BUGGIFY off, then on, and renders
# results/coverage/README.md and uncovered.md with cmd/covreport.
# Run from the repository root (make coverage).
set -eu
GO=${GO:-go}
out=results/coverage
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
commit=$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- core cmd workloads sim 2>/dev/null || echo -dirty)
$GO build -cover -coverpkg=./core/...,./cmd/simrun -o "$tmp/simrun" ./cmd/simrun
mkdir "$tmp/off" "$tmp/buggify"
args=${*:-}
summary() { # the campaign's first line: seeds, failures, time
	grep -m1 '^simrun: ' "$1/summary.txt" | sed 's/^simrun: //; s/; exit [0-9]*$//'
}
rc=0
GOCOVERDIR="$tmp/off" "$tmp/simrun" run $args --out "$tmp/run-off" >"$tmp/off.log" 2>&1 || rc=$?
rcb=0
GOCOVERDIR="$tmp/buggify" "$tmp/simrun" run $args --buggify on --out "$tmp/run-buggify" >"$tmp/buggify.log" 2>&1 || rcb=$?
$GO tool covdata textfmt -i "$tmp/off" -o "$tmp/off.txt"
$GO tool covdata textfmt -i "$tmp/buggify" -o "$tmp/buggify.txt"
header="Commit \`$commit\`, $(date -u +%Y-%m-%dT%H:%MZ). Commands: \`$GO build -cover -coverpkg=./core/...,./cmd/simrun -o simrun ./cmd/simrun\`, then \`GOCOVERDIR=off simrun run${args:+ $args}\` (profile \`off\`: $(summary "$tmp/run-off"), exit $rc) and \`GOCOVERDIR=buggify simrun run${args:+ $args} --buggify on\` (profile \`buggify\`: $(summary "$tmp/run-buggify"), exit $rcb), each converted by \`go tool covdata textfmt\`; \`results/coverage/run.sh${args:+ $args}\` does all of it."
$GO run ./cmd/covreport -profile off="$tmp/off.txt" -profile buggify="$tmp/buggify.txt" -out "$out" -header "$header"
echo "coverage: $out/README.md"
