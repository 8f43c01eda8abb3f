#!/bin/sh
# run.sh [SIMRUN_ARGS...]: what the default campaign reaches in core/.
# Builds simrun with -cover, runs the campaign (default: the default
# campaign; arguments replace it) with BUGGIFY off, then on, then the
# variant runs; measures core's unit tests (a defensive block must be run
# by one) and lists the functions linked into simrun (a function the
# linker leaves out is wall-only); renders results/coverage/README.md and
# uncovered.md with cmd/covreport, which classifies every block never run
# by those rules.
# Run from the repository root (make coverage).
set -eu
GO=${GO:-go}
out=results/coverage
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
commit=$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- core cmd workloads sim 2>/dev/null || echo -dirty)
# First, so that a failing test ends the run before the campaigns: the
# functions linked into simrun, inlining off so that no call is inlined
# away; the unit tests of core/ with their coverage of core/.
$GO build -gcflags=all=-l -o "$tmp/simrun-linked" ./cmd/simrun
$GO tool nm "$tmp/simrun-linked" >"$tmp/linked.txt"
$GO test -count=1 -coverpkg=./core/... -coverprofile="$tmp/unit.txt" ./core/... >"$tmp/unit.log" 2>&1 || { cat "$tmp/unit.log"; exit 1; }
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
# simrun list (whose listing of the variant keys the variant runs rely on)
# counts with the variant runs.
hazards=$(GOCOVERDIR="$tmp/variants" "$tmp/simrun" list 2>&1 | sed -n '/^hazards/,/^$/p' | sed -n 's/^  \(h[0-9][0-9]*-[a-z0-9-]*\)$/--scenario \1/p')
alts=$(GOCOVERDIR="$tmp/variants" "$tmp/simrun" list 2>&1 | sed -n '/^variants/,/^$/p' | sed -n 's/^  \([a-z-]*\)=[^|]*|\(.*\)$/\1 \2/p' |
	awk '$1 != "design" { n = split($2, v, "|"); for (i = 1; i <= n; i++) print "--variant " $1 "=" v[i] }')
nvar=0
printf '%s\n--profile upstream\n' "$alts" >"$tmp/alts"
while read -r flag value; do
	nvar=$((nvar + 1))
	GOCOVERDIR="$tmp/variants" "$tmp/simrun" run "$flag" "$value" --seeds 2 --out "$tmp/var-$nvar" >/dev/null 2>&1 || true
	GOCOVERDIR="$tmp/variants" "$tmp/simrun" run $hazards "$flag" "$value" --seeds 2 --out "$tmp/varh-$nvar" >/dev/null 2>&1 || true
done <"$tmp/alts"
# The control: the same scenarios and seeds under the default values; a
# block it reaches is not a variant's doing (covreport -control).
mkdir "$tmp/control"
GOCOVERDIR="$tmp/control" "$tmp/simrun" run --seeds 2 --out "$tmp/ctl" >/dev/null 2>&1 || true
GOCOVERDIR="$tmp/control" "$tmp/simrun" run $hazards --seeds 2 --out "$tmp/ctlh" >/dev/null 2>&1 || true
$GO tool covdata textfmt -i "$tmp/control" -o "$tmp/control.txt"
$GO tool covdata textfmt -i "$tmp/variants" -o "$tmp/variants.txt"
$GO tool covdata textfmt -i "$tmp/off" -o "$tmp/off.txt"
$GO tool covdata textfmt -i "$tmp/buggify" -o "$tmp/buggify.txt"
header="Commit \`$commit\`, $(date -u +%Y-%m-%dT%H:%MZ). Commands: \`$GO build -cover -coverpkg=./core/...,./cmd/simrun -o simrun ./cmd/simrun\`, then \`GOCOVERDIR=off simrun run${args:+ $args}\` (profile \`off\`: $(summary "$tmp/run-off"), exit $rc) and \`GOCOVERDIR=buggify simrun run${args:+ $args} --buggify on\` (profile \`buggify\`: $(summary "$tmp/run-buggify"), exit $rcb), each converted by \`go tool covdata textfmt\`; \`results/coverage/run.sh${args:+ $args}\` does all of it."
header="$header The unit tests: \`go test -coverpkg=./core/... -coverprofile=unit.txt ./core/...\` (\`-unit\`); the functions linked: \`go build -gcflags=all=-l\` of simrun, \`go tool nm\` (\`-linked\`). The variant runs (\`-aside variants\`, never counted as reached): \`simrun list\`, then \`simrun run --variant KEY=VALUE --seeds 2\` over the default campaign and over the hazard scenarios, for each of the $((nvar - 1)) non-default values of every key but design, then \`--profile upstream\` the same way; the control (\`-control\`): the same runs without \`--variant\`."
$GO run ./cmd/covreport -profile off="$tmp/off.txt" -profile buggify="$tmp/buggify.txt" -aside variants="$tmp/variants.txt" -control "$tmp/control.txt" -unit "$tmp/unit.txt" -linked "$tmp/linked.txt" -out "$out" -header "$header"
echo "coverage: $out/README.md"
