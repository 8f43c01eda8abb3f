#!/bin/sh
# side.sh [-r ROUNDS] [-n SAMPLES] [-d DESIGNS] [-p PIPELINES] [-cpu LIST] [-tails DIR] [-wrap CMD] OUTGO OUTJDK
#
# The default env (env.PreciseWall, BenchmarkTriggerPrecise) and the JDK
# peer side by side, interleaved: each round runs every design x
# pipelines cell once on each side, one fresh process per cell, the Go
# cell and its JDK peer back to back (which goes first alternates from
# round to round), so that both sides see the same machine load. With
# several rounds each file holds one result per round and cell; the
# tables (bench/cmd/plot) and benchstat take the median over rounds.
# Leader-follower has no JDK peer and runs on the Go side only. -cpu LIST
# (comma-separated GOMAXPROCS values, 0: the process's default, which is
# the default list) runs each Go cell once per value, one process each, in
# that order before or after its JDK peer: make bench uses 0,1, the
# machine's Ps and one (the benchmark name's -N suffix says which; none
# for one P).
#
# Each round begins with the bare Go runtime's periodic timed wake
# (BenchmarkWakeFloor, SAMPLES wakes one -trigger.spacing apart), once per
# -cpu value, a fresh process each: the floor under the Go cells' CPU per
# firing, measured in the same run (the tables' goal of issue 46). Both
# sides count CPU with one clock, the sum of /proc/self/task/*/schedstat
# around each cell's window (the files' "cpu-clock: schedstat" line).
#
# Before each result a comment line records the load it ran under
# (/proc/pressure/cpu some avg10 and the 1-minute load average);
# benchfmt ignores it. -tails DIR writes every sample of both sides to
# DIR/tails.csv (bench/cmd/tailattr). -wrap CMD runs both sides' cells
# under CMD (a control, not a result: e.g. 'chrt -f 10' takes the OS run
# queue out of the measurement, 'taskset -c 1' pins both to one CPU).
# Needs a built test binary
# ($BENCH_TEST, default: built here) and javac.
set -eu
rounds=3 n=1000 tails= wrap= cpus=0
designs="per-pipeline shared shared-inline leader-follower" pipelines="10 100 500"
while [ $# -gt 2 ]; do
	case $1 in
	-r) rounds=$2; shift 2 ;;
	-n) n=$2; shift 2 ;;
	-d) designs=$(echo "$2" | tr , ' '); shift 2 ;;
	-p) pipelines=$(echo "$2" | tr , ' '); shift 2 ;;
	-cpu) cpus=$(echo "$2" | tr , ' '); shift 2 ;;
	-tails) tails=$2; shift 2 ;;
	-wrap) wrap=$2; shift 2 ;;
	*) echo "side.sh: unknown flag $1" >&2; exit 64 ;;
	esac
done
[ $# -eq 2 ] || { echo "usage: side.sh [-r ROUNDS] [-n SAMPLES] [-d DESIGNS] [-p PIPELINES] [-cpu LIST] [-tails DIR] [-wrap CMD] OUTGO OUTJDK" >&2; exit 64; }
outgo=$1 outjdk=$2
go=${GO:-go}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
bin=${BENCH_TEST:-$dir/bench.test}
[ -n "${BENCH_TEST:-}" ] || $go test -c -o "$bin" ./bench/
javac -d "$dir" peer/jdk/TriggerPeer.java
gotails= jdktails=
if [ -n "$tails" ]; then
	mkdir -p "$tails"
	gotails="-trigger.tails $tails/tails.csv" jdktails="-tails $tails/tails.csv"
fi
load() { echo "# load: cpu pressure some $(awk '/^some/{print $2}' /proc/pressure/cpu 2>/dev/null || echo avg10=?), loadavg $(cut -d' ' -f1 /proc/loadavg)"; }
gocell() {
	for c in $cpus; do
		cpuflag=
		[ "$c" = 0 ] || cpuflag="-test.cpu $c"
		load >>"$outgo.tmp"
		# shellcheck disable=SC2086
		$wrap "$bin" -test.run '^$' -test.bench "^BenchmarkTriggerPrecise\$/^design=$1\$/^pipelines=$2\$" \
			-test.benchtime "${n}x" -test.timeout 60m $cpuflag $gotails | grep -E '^(Benchmark|goos:|goarch:|pkg:|cpu:)' >>"$outgo.tmp"
	done
}
floorcell() {
	for c in $cpus; do
		cpuflag=
		[ "$c" = 0 ] || cpuflag="-test.cpu $c"
		load >>"$outgo.tmp"
		# shellcheck disable=SC2086
		$wrap "$bin" -test.run '^$' -test.bench '^BenchmarkWakeFloor$' \
			-test.benchtime "${n}x" -test.timeout 60m $cpuflag | grep -E '^(Benchmark|goos:|goarch:|pkg:|cpu:)' >>"$outgo.tmp"
	done
}
jdkcell() {
	load >>"$outjdk.tmp"
	# shellcheck disable=SC2086
	$wrap java -Xms512m -Xmx512m -XX:+UseG1GC -cp "$dir" TriggerPeer -n "$n" -designs "$1" -pipelines "$2" $jdktails |
		grep '^Benchmark' >>"$outjdk.tmp"
}
# Headers: command, commit, machine and date (bench/header.sh), then the
# Go side's units and configuration, the JDK's.
cmd="bench/side.sh -r $rounds -n $n -d $(echo $designs | tr ' ' ,) -p $(echo $pipelines | tr ' ' ,) -cpu $(echo $cpus | tr ' ' ,)${wrap:+ -wrap '$wrap'}"
{
	"$(dirname "$0")/header.sh" "$cmd"
	echo "samples: $n per cell and round, $rounds rounds, Go and JDK interleaved"
	"$bin" -test.run '^$' -test.bench '^$' | grep -v '^PASS' || true
} >"$outgo.tmp"
{
	"$(dirname "$0")/header.sh" "$cmd"
	echo "samples: $n per cell and round, $rounds rounds, Go and JDK interleaved"
	java -cp "$dir" TriggerPeer -n 0
} >"$outjdk.tmp"
for r in $(seq "$rounds"); do
	floorcell
	for d in $designs; do
		for p in $pipelines; do
			if [ "$d" = leader-follower ]; then
				gocell "$d" "$p"
			elif [ $((r % 2)) -eq 1 ]; then
				gocell "$d" "$p"
				jdkcell "$d" "$p"
			else
				jdkcell "$d" "$p"
				gocell "$d" "$p"
			fi
		done
	done
done
mv "$outgo.tmp" "$outgo"
mv "$outjdk.tmp" "$outjdk"
