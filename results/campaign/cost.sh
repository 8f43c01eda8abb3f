#!/bin/sh
# cost.sh [OUT]: what the default campaign costs on this machine, in the Go
# benchmark format under bench/header.sh's lines (command, commit, machine,
# date), so cmd/resultsdoc reads it as it reads results/bench: seeds, CPU
# seconds (user + sys of the simrun process, from /usr/bin/time), wall
# seconds, seeds per CPU-second and peak RSS. It fails when the campaign
# does not pass: a failing campaign's cost is not the figure.
# make campaign-cost runs it into results/campaign/default-cost.txt. Beside
# OUT it writes default-probes.txt: the same header, then the campaign
# summary's code-probe table (each probe's hits, seeds and the rows that
# hit it; workloads.ProbeTable names the row that must hit each).
# SIMRUN=BINARY measures that simrun instead of building the tree's, and
# NAME=... names the line (default BenchmarkDefaultCampaign; versus.sh
# runs it so for each side).
set -eu
out=${1:-results/campaign/default-cost.txt}
name=${NAME:-BenchmarkDefaultCampaign}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
simrun=${SIMRUN:-$tmp/simrun}
[ -n "${SIMRUN:-}" ] || go build -o "$simrun" ./cmd/simrun
/usr/bin/time -f '%U %S %e %M' -o "$tmp/time" "$simrun" --out "$tmp/run" >"$tmp/log" 2>&1 || {
	echo "cost.sh: the default campaign did not pass; see its summary:" >&2
	tail -20 "$tmp/log" >&2
	exit 1
}
read -r user sys wall rss <"$tmp/time"
seeds=$(sed -n 's/.*"seeds": *\([0-9]*\).*/\1/p' "$tmp/run/summary.json" | head -1)
{
	"$(dirname "$0")/../../bench/header.sh" results/campaign/cost.sh "$out"
	awk -v n="$name" -v s="$seeds" -v u="$user" -v y="$sys" -v w="$wall" -v r="$rss" 'BEGIN {
		cpu = u + y
		printf "%s 1 %.0f ns/op %d seeds %.2f cpu-s %.3f seeds/cpu-s %.0f peak-rss-kb\n", n, w * 1e9, s, cpu, s / cpu, r
	}'
} >"$out.tmp"
mv "$out.tmp" "$out"
probes="$(dirname "$out")/default-probes.txt"
{
	"$(dirname "$0")/../../bench/header.sh" results/campaign/cost.sh "$probes"
	sed -n '/^code probes/,/^unhit:/p' "$tmp/run/summary.txt"
} >"$probes.tmp"
mv "$probes.tmp" "$probes"
cat "$out"
