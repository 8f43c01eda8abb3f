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
# The variant runs: never counted as reached, they check the reasons that
# say "variant" (code only a non-default variant value runs). Each
# non-default value of every key but design (the default campaign runs
# every design), then the upstream profile, over the default campaign
# and the hazard scenarios, two seeds each.
mkdir "$tmp/variants"
hazards=$("$tmp/simrun" list 2>&1 | sed -n '/^hazards/,/^$/p' | sed -n 's/^  \(h[0-9][0-9]*-[a-z0-9-]*\)$/--scenario \1/p')
alts=$("$tmp/simrun" list 2>&1 | sed -n '/^variants/,/^$/p' | sed -n 's/^  \([a-z-]*\)=[^|]*|\(.*\)$/\1 \2/p' |
	awk '$1 != "design" { n = split($2, v, "|"); for (i = 1; i <= n; i++) print "--variant " $1 "=" v[i] }')
nvar=0
printf '%s\n--profile upstream\n' "$alts" >"$tmp/alts"
while read -r flag value; do
	nvar=$((nvar + 1))
	GOCOVERDIR="$tmp/variants" "$tmp/simrun" run "$flag" "$value" --seeds 2 --out "$tmp/var-$nvar" >/dev/null 2>&1 || true
	GOCOVERDIR="$tmp/variants" "$tmp/simrun" run $hazards "$flag" "$value" --seeds 2 --out "$tmp/varh-$nvar" >/dev/null 2>&1 || true
done <"$tmp/alts"
$GO tool covdata textfmt -i "$tmp/variants" -o "$tmp/variants.txt"
$GO tool covdata textfmt -i "$tmp/off" -o "$tmp/off.txt"
$GO tool covdata textfmt -i "$tmp/buggify" -o "$tmp/buggify.txt"
header="Commit \`$commit\`, $(date -u +%Y-%m-%dT%H:%MZ). Commands: \`$GO build -cover -coverpkg=./core/...,./cmd/simrun -o simrun ./cmd/simrun\`, then \`GOCOVERDIR=off simrun run${args:+ $args}\` (profile \`off\`: $(summary "$tmp/run-off"), exit $rc) and \`GOCOVERDIR=buggify simrun run${args:+ $args} --buggify on\` (profile \`buggify\`: $(summary "$tmp/run-buggify"), exit $rcb), each converted by \`go tool covdata textfmt\`; \`results/coverage/run.sh${args:+ $args}\` does all of it."
header="$header The variant runs (\`-aside variants\`, never counted as reached): \`simrun run --variant KEY=VALUE --seeds 2\` over the default campaign and over the hazard scenarios, for each of the $((nvar - 1)) non-default values of every key but design, then \`--profile upstream\` the same way."
$GO run ./cmd/covreport -profile off="$tmp/off.txt" -profile buggify="$tmp/buggify.txt" -aside variants="$tmp/variants.txt" -out "$out" -header "$header"
echo "coverage: $out/README.md"
