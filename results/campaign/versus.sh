#!/bin/sh
# versus.sh BASE [ROUNDS] [OUT]: the default campaign of commit BASE against
# the working tree's, on this machine in one run: each side's simrun is
# built once, then the two campaigns alternate ROUNDS times (default 2),
# base first, so that a host that slows down during the run slows both
# alike. Each campaign is measured by cost.sh (SIMRUN, NAME): one line per
# campaign in the Go benchmark format under bench/header.sh's lines
# (seeds, CPU seconds of the simrun process, user + sys from
# /usr/bin/time, wall, seeds per CPU-second, peak RSS), the commit in the name
# (BenchmarkDefaultCampaign/commit=...). Each side's seeds per CPU-second,
# one figure per round, is printed at the end; the file holds the lines.
# Run from the repository root (issue 46: seeds per CPU-second against
# 81e9f4a's, both measured in one run).
set -eu
base=${1:?usage: versus.sh BASE [ROUNDS] [OUT]}
rounds=${2:-2}
out=${3:-results/campaign/versus-$base.txt}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
head=$(git rev-parse --short HEAD)
mkdir "$tmp/base"
git archive "$base" | tar x -C "$tmp/base"
(cd "$tmp/base" && go build -o "$tmp/simrun-base" ./cmd/simrun)
go build -o "$tmp/simrun-head" ./cmd/simrun
run() { # side round: cost.sh on that side's simrun, its line kept
	name=$base
	[ "$1" = head ] && name=$head
	SIMRUN="$tmp/simrun-$1" NAME="BenchmarkDefaultCampaign/commit=$name" \
		"$(dirname "$0")/cost.sh" "$tmp/cost-$1-$2.txt" >/dev/null
	grep '^BenchmarkDefaultCampaign' "$tmp/cost-$1-$2.txt" >>"$tmp/lines"
}
i=1
while [ "$i" -le "$rounds" ]; do
	run base "$i"
	run head "$i"
	i=$((i + 1))
done
{
	"$(dirname "$0")/../../bench/header.sh" results/campaign/versus.sh "$base" "$rounds" "$out"
	cat "$tmp/lines"
} >"$out.tmp"
mv "$out.tmp" "$out"
cat "$out"
awk '/^BenchmarkDefaultCampaign/ { split($1, a, "="); v[a[2]] = v[a[2]] " " $9 }
END { for (k in v) print k ": seeds/cpu-s" v[k] }' "$out"
