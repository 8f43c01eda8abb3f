#!/usr/bin/env bash
# Runs design=shared/pipelines=500 only (600 firings, an execution trace each) for N rounds; each
# round runs the sides back to back: the default env (BenchmarkTriggerPrecise), the same with
# GOMAXPROCS=1, and Wall (BenchmarkTrigger). Prints each run's CPU per firing, p50, p99 and the
# adaptive lead beside the process-wide stalls in its trace (stalls.py).
# Usage: run.sh BENCH_BINARY N
set -euo pipefail
bin=$1; n=$2; here=$(cd "$(dirname "$0")" && pwd); tmp=$(mktemp -d)
run() { # side bench [env...]
  local side=$1 bench=$2; shift 2
  local line
  line=$(env "$@" "$bin" -test.run '^$' -test.bench "^$bench\$/^design=shared\$/^pipelines=500\$" \
    -test.benchtime 600x -test.trace "$tmp/t.out" | grep "^$bench/")
  unit() { echo "$line" | awk -v u="$1" '{for (i = 2; i <= NF; i++) if ($i == u) print $(i-1)}'; }
  st=$(go tool trace -d=parsed "$tmp/t.out" 2>/dev/null | "$here/stalls.py")
  echo "round=$r side=$side cpu-ns/firing=$(unit cpu-ns/op) p50-ns=$(unit p50-ns) p99-ns=$(unit p99-ns) lead-ns=$(unit lead-ns) $st load=$(cut -d' ' -f1 /proc/loadavg)"
}
for r in $(seq 1 "$n"); do
  run precise BenchmarkTriggerPrecise
  run precise-gomaxprocs1 BenchmarkTriggerPrecise GOMAXPROCS=1
  run wall BenchmarkTrigger
done
rm -rf "$tmp"
