#!/bin/sh
# idle.sh [-w SECONDS] [-r ROUNDS] [-e ENVS] [-d DESIGNS] [-p PIPELINES] [-i INTERVALS] OUTGO OUTJDK
#
# What an idle member costs (issue 27): BenchmarkIdleMember on the default
# env (env=precise) and on it with one P (env=precise1), env.Wall
# (env=wall) and env.Wall on one P (env=wall1) (-e: which of them,
# default all four) and the JDK peer's idle mode
# (TriggerPeer -idle, env=jdk) on the same schedule, one fresh process per
# design x pipelines x interval cell and side (threads and RSS are the
# process's), all sides back to back per cell so that they see the same
# machine load. Each cell waits one interval, then measures SECONDS of
# wall time (default 60; a few seconds for a look). With -r ROUNDS
# (default 1) the whole sweep runs ROUNDS times, one round after the
# other, so that a cell's runs see different moments of the machine; the
# tables take the median over them (make bench-idle: 3 rounds of 20 s, as
# one window's CPU figure swings with the host's stops,
# results/bench/experiments/README.md, idle-switches).
# INTERVALS in Go duration syntax (default 1s,10s). Leader-follower has no
# JDK peer. Before each result a comment line records the load (as
# side.sh). Needs a built test binary ($BENCH_TEST, default: built here)
# and javac.
set -eu
wall=60 rounds=1 envs="precise precise1 wall wall1" designs="per-pipeline shared shared-inline leader-follower" pipelines="10 100 500" intervals="1s 10s"
while [ $# -gt 2 ]; do
	case $1 in
	-w) wall=$2; shift 2 ;;
	-r) rounds=$2; shift 2 ;;
	-e) envs=$(echo "$2" | tr , ' '); shift 2 ;;
	-d) designs=$(echo "$2" | tr , ' '); shift 2 ;;
	-p) pipelines=$(echo "$2" | tr , ' '); shift 2 ;;
	-i) intervals=$(echo "$2" | tr , ' '); shift 2 ;;
	*) echo "idle.sh: unknown flag $1" >&2; exit 64 ;;
	esac
done
[ $# -eq 2 ] || { echo "usage: idle.sh [-w SECONDS] [-r ROUNDS] [-e ENVS] [-d DESIGNS] [-p PIPELINES] [-i INTERVALS] OUTGO OUTJDK" >&2; exit 64; }
outgo=$1 outjdk=$2
go=${GO:-go}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
bin=${BENCH_TEST:-$dir/bench.test}
[ -n "${BENCH_TEST:-}" ] || $go test -c -o "$bin" ./bench/
javac -d "$dir" peer/jdk/TriggerPeer.java
load() { echo "# load: cpu pressure some $(awk '/^some/{print $2}' /proc/pressure/cpu 2>/dev/null || echo avg10=?), loadavg $(cut -d' ' -f1 /proc/loadavg)"; }
ms() { # a Go duration of whole seconds or milliseconds, in ms
	case $1 in
	*ms) echo "${1%ms}" ;;
	*s) echo $((${1%s} * 1000)) ;;
	*) echo "idle.sh: interval $1: want Ns or Nms" >&2; exit 64 ;;
	esac
}
gocell() { # gocell ENV DESIGN PIPELINES INTERVAL
	load >>"$outgo.tmp"
	"$bin" -test.run '^$' -test.bench "^BenchmarkIdleMember\$/^env=$1\$/^design=$2\$/^pipelines=$3\$/^interval=$4\$" \
		-test.benchtime 1x -test.timeout 60m -idle.wall "${wall}s" | grep '^Benchmark' >>"$outgo.tmp"
}
jdkcell() { # jdkcell DESIGN PIPELINES INTERVAL
	load >>"$outjdk.tmp"
	rm -f "$dir/safepoint.log"
	java -Xms512m -Xmx512m -XX:+UseG1GC -Xlog:safepoint=info:file="$dir/safepoint.log" -cp "$dir" TriggerPeer \
		-idle "$wall" -designs "$1" -pipelines "$2" -intervals "$(ms "$3")" -safepointlog "$dir/safepoint.log" |
		grep '^Benchmark' >>"$outjdk.tmp"
}
cmd="bench/idle.sh -w $wall -r $rounds -e $(echo $envs | tr ' ' ,) -d $(echo $designs | tr ' ' ,) -p $(echo $pipelines | tr ' ' ,) -i $(echo $intervals | tr ' ' ,)"
{
	"$(dirname "$0")/header.sh" "$cmd"
	echo "window: ${wall}s per cell after one interval of warm-up, one process per cell and side, $rounds round(s)"
	"$bin" -test.run '^$' -test.bench '^$' | grep -v '^PASS' || true
} >"$outgo.tmp"
{
	"$(dirname "$0")/header.sh" "$cmd"
	echo "window: ${wall}s per cell after one interval of warm-up, one process per cell, $rounds round(s)"
	java -cp "$dir" TriggerPeer -n 0
} >"$outjdk.tmp"
r=0
while [ $r -lt "$rounds" ]; do
	r=$((r + 1))
	for d in $designs; do
		for p in $pipelines; do
			for i in $intervals; do
				for e in $envs; do
					gocell "$e" "$d" "$p" "$i"
				done
				[ "$d" = leader-follower ] || jdkcell "$d" "$p" "$i"
			done
		done
	done
done
mv "$outgo.tmp" "$outgo"
mv "$outjdk.tmp" "$outjdk"
