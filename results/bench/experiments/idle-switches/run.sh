#!/usr/bin/env bash
# What an idle member costs, run after run: BenchmarkIdleMember's cells on the default env
# (precise), Wall (wall), Wall with one P (wall1: GOMAXPROCS=1), the default env with one P
# (precise1) or with PreciseWall.Poll on one P (poll1) and the JDK peer's idle mode (jdk), one
# fresh process per cell and side, every side of a cell back to back, the whole sweep ROUNDS times. Each output line is the benchmark's own line with side= and round= in front;
# summarize.sh puts each figure's spread over the rounds beside its median. The question is
# whether one window's CPU figure measures the member or the host: a host that stops the
# virtual machine charges the stopped time as CPU to whichever thread the guest thought was
# running (../stalls), and context switches are a count it does not move.
# Usage: run.sh BENCH_BINARY ROUNDS > out.txt   (needs javac; W=10 seconds per window,
# DESIGNS, PIPELINES, INTERVALS and SIDES as below unless set)
set -euo pipefail
bin=$1; rounds=$2; w=${W:-10}
designs=${DESIGNS:-per-pipeline shared shared-inline}; pipelines=${PIPELINES:-100 500}
intervals=${INTERVALS:-1s 10s}; sides=${SIDES:-precise wall wall1 jdk}
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
root=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
javac -d "$dir" "$root/peer/jdk/TriggerPeer.java"
echo "# run.sh $bin $rounds W=$w at $(git -C "$root" rev-parse --short HEAD), $(date -u +%FT%TZ)"
gocell() { # env gomaxprocs design pipelines interval [flags]
  GOMAXPROCS=$2 "$bin" -test.run '^$' -test.bench "^BenchmarkIdleMember\$/^env=$1\$/^design=$3\$/^pipelines=$4\$/^interval=$5\$" \
    -test.benchtime 1x -idle.wall "${w}s" "${@:6}" | grep '^Benchmark'
}
for r in $(seq "$rounds"); do
  for d in $designs; do
    for p in $pipelines; do
      for i in $intervals; do
        for side in $sides; do
          l="load=$(cut -d' ' -f1 /proc/loadavg)"
          case $side in
          precise) line=$(gocell precise 2 "$d" "$p" "$i") ;;
          wall) line=$(gocell wall 2 "$d" "$p" "$i") ;;
          wall1) line=$(gocell wall 1 "$d" "$p" "$i") ;;
          precise1) line=$(gocell precise 1 "$d" "$p" "$i") ;;
          poll1) line=$(gocell precise 1 "$d" "$p" "$i" -precise.poll) ;;
          jdk) line=$(java -Xms512m -Xmx512m -XX:+UseG1GC -cp "$dir" TriggerPeer -idle "$w" -designs "$d" \
                 -pipelines "$p" -intervals "$(( ${i%s} * 1000 ))" | grep '^Benchmark') ;;
          *) echo "run.sh: unknown side $side" >&2; exit 64 ;;
          esac
          echo "side=$side round=$r $l $line"
        done
      done
    done
  done
done
