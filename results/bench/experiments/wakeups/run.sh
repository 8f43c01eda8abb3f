#!/usr/bin/env bash
# Counts, per firing, what a trigger costs in events rather than in time: context switches,
# CPU migrations and system calls (perf stat over the whole process), for the default env
# (BenchmarkTriggerPrecise), Wall (BenchmarkTrigger) and the JDK peer (peer/jdk), per design and
# pipeline count. Each cell runs twice, with N1 and N2 observed firings; the difference of the
# two runs' counts over N2-N1 is the steady state per firing (start-up, warm-up and the JVM's
# compilation cancel). Counts are not times: a run in which the host stopped the virtual machine
# (see ../stalls) makes the same calls.
# Each line also keeps the benchmark's own p50, p99 and CPU per firing (cpu-ns/op, over its timed
# firings only). SIDES picks the sides (default "precise wall jdk"); precise1 is the default env with GOMAXPROCS=1,
# wall1 Wall with GOMAXPROCS=1; poll the default env with Poll (its kernel sleep a timerfd read through
# the runtime's poller) and a fixed lead (POLL_LEAD, default 400us), poll1 the same with GOMAXPROCS=1;
# hold is the default env with Park 1h: a timed wait never parks in the Go runtime, it sleeps on its
# futex in a raw system call (holding its P) from the start whenever a slot is free.
# Usage: run.sh BENCH_BINARY ROUNDS > out.txt   (needs perf and javac; N1=300, N2=900 unless set)
set -euo pipefail
bin=$1; rounds=$2; n1=${N1:-300}; n2=${N2:-900}; sides=${SIDES:-precise wall jdk}
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
root=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
javac -d "$dir" "$root/peer/jdk/TriggerPeer.java"
count() { # side design pipelines n cmd...
  local side=$1 d=$2 p=$3 n=$4; shift 4
  perf stat -x, -e context-switches,cpu-migrations,raw_syscalls:sys_enter,task-clock -o "$dir/perf" "$@" >"$dir/out"
  local m; m=$(awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^(p50-ns|p99-ns|cpu-ns\/op)$/) v[$i] = $(i-1) }
    END { printf "p50-ns=%s p99-ns=%s cpu-ns/op=%s", v["p50-ns"], v["p99-ns"], v["cpu-ns/op"] }' "$dir/out")
  awk -F, -v s="$side" -v d="$d" -v p="$p" -v n="$n" -v l="$(cut -d' ' -f1 /proc/loadavg)" -v m="$m" '
    $3=="context-switches"{cs=$1} $3=="cpu-migrations"{mig=$1} $3=="raw_syscalls:sys_enter"{sc=$1} $3=="task-clock"{tc=$1}
    END{printf "side=%s design=%s pipelines=%s firings=%s context-switches=%s cpu-migrations=%s syscalls=%s task-clock-ms=%.0f load=%s %s\n", s, d, p, n, cs, mig, sc, tc, l, m}' "$dir/perf"
}
for r in $(seq "$rounds"); do
  for d in per-pipeline shared shared-inline; do
    for p in 10 500; do
      for n in $n1 $n2; do
        for side in $sides; do
          case $side in
          precise) count precise "$d" "$p" "$n" "$bin" -test.run '^$' -test.bench "^BenchmarkTriggerPrecise\$/^design=$d\$/^pipelines=$p\$" -test.benchtime "${n}x" ;;
          precise1) count precise1 "$d" "$p" "$n" env GOMAXPROCS=1 "$bin" -test.run '^$' -test.bench "^BenchmarkTriggerPrecise\$/^design=$d\$/^pipelines=$p\$" -test.benchtime "${n}x" ;;
          hold) count hold "$d" "$p" "$n" "$bin" -test.run '^$' -test.bench "^BenchmarkTriggerPrecise\$/^design=$d\$/^pipelines=$p\$" -test.benchtime "${n}x" -precise.park 1h ;;
          wall) count wall "$d" "$p" "$n" "$bin" -test.run '^$' -test.bench "^BenchmarkTrigger\$/^design=$d\$/^pipelines=$p\$" -test.benchtime "${n}x" ;;
          poll) count poll "$d" "$p" "$n" "$bin" -test.run '^$' -test.bench "^BenchmarkTriggerPrecise\$/^design=$d\$/^pipelines=$p\$" -test.benchtime "${n}x" -precise.poll -precise.lead "${POLL_LEAD:-400us}" ;;
          poll1) count poll1 "$d" "$p" "$n" env GOMAXPROCS=1 "$bin" -test.run '^$' -test.bench "^BenchmarkTriggerPrecise\$/^design=$d\$/^pipelines=$p\$" -test.benchtime "${n}x" -precise.poll -precise.lead "${POLL_LEAD:-400us}" ;;
          wall1) count wall1 "$d" "$p" "$n" env GOMAXPROCS=1 "$bin" -test.run '^$' -test.bench "^BenchmarkTrigger\$/^design=$d\$/^pipelines=$p\$" -test.benchtime "${n}x" ;;
          jdk) count jdk "$d" "$p" "$n" java -Xms512m -Xmx512m -XX:+UseG1GC -cp "$dir" TriggerPeer -n "$n" -designs "$d" -pipelines "$p" ;;
          *) echo "run.sh: unknown side $side" >&2; exit 64 ;;
          esac
        done
      done
    done
  done
done
