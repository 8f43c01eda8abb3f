#!/usr/bin/env bash
# Where a firing's context switches come from: records every switch out of and every wake-up made
# by the benchmark's threads (perf record -e sched:sched_switch,sched:sched_wakeup with frame-pointer
# call chains) and names each by the Go frames on its stack. Same cells and steady-state
# differencing as run.sh (N1 and N2 observed firings; summarize-attr.sh takes the difference), for
# the default env (BenchmarkTriggerPrecise) and Wall (BenchmarkTrigger); the JDK peer is left out
# (its frames are JIT code perf cannot name).
# Usage: attribute.sh BENCH_BINARY ROUNDS > attr.txt   (needs perf; N1=300, N2=900 unless set)
set -euo pipefail
bin=$1; rounds=$2; n1=${N1:-300}; n2=${N2:-900}
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
# classify: one line per run, "side= design= pipelines= firings=" then cause=count for switches
# (sw.CAUSE) and wake-ups made from a Go stack (wk.CAUSE). The first rule that matches names it.
classify() {
  perf script -i "$dir/data" -F event,trace,ip,sym 2>/dev/null | awk -v head="$1" '
  function swcause(st, s) {
    if (st != "S" && st != "D") return "preempted"
    if (s ~ / core\/env\.futexWait/) return "env-futex-phase"
    if (s ~ / runtime\.sysmon/) return "sysmon-sleep"
    if (s ~ / runtime\.(gcStart|gcMarkDone|gcMarkTermination|stopTheWorld|forEachP|gcstopm|gcBgMarkWorker)/) return "gc"
    if (s ~ / runtime\.netpoll /) return "idle-M-epoll"
    if (s ~ / runtime\.stopm/) return "idle-M-futex"
    if (s ~ / runtime\.runqgrab/) return "steal-usleep"
    return "other"
  }
  function wkcause(s) {
    if (s !~ / (runtime|core|bench|sync|internal|time|testing)[\/.]/) return "no-go-stack"
    if (s ~ / runtime\.resetspinning/) return "spinning-M-wakes-another"
    if (s ~ / core\/exec\.\(\*Timer\)\.(nextDue|scheduleAt)/ && s ~ / runtime\.wakep/) return "timer-promotion-starts-M"
    if (s ~ / runtime\.wakep/ && s ~ / runtime\.ready /) return "goroutine-ready-starts-M"
    if (s ~ / runtime\.wakep/) return "other-wakep"
    if (s ~ / core\/env\.futexWake/) return "env-futex-wake"
    if (s ~ / runtime\.sysmon/) return "sysmon"
    if (s ~ / runtime\.netpollBreak/) return "netpoll-break"
    if (s ~ / runtime\.runqgrab/) return "steal-usleep"
    if (s ~ / runtime\.(gcDrain|gcBgMarkWorker|gcStart|gcMarkDone|gcMarkTermination|startTheWorld|gcstopm)/) return "gc-or-stw"
    return "other"
  }
  function flush() {
    if (ev == "sw") sw[swcause(st, stack)]++
    else if (ev == "wk") wk[wkcause(stack)]++
    ev = ""
  }
  /sched:sched_switch:/ { flush(); ev = "sw"; stack = " "; st = $0; sub(/.*prev_state=/, "", st); sub(/ .*/, "", st); next }
  /sched:sched_wakeup:/ { flush(); ev = "wk"; stack = " "; next }
  NF >= 2 { f = $2; sub(/\+0x.*/, "", f); sub(/^github\.com\/ckptsim\/ckptsim\//, "", f); stack = stack f " " }
  END {
    flush(); line = head
    for (c in sw) line = line " sw." c "=" sw[c]
    for (c in wk) line = line " wk." c "=" wk[c]
    print line
  }'
}
for r in $(seq "$rounds"); do
  for d in per-pipeline shared shared-inline; do
    for p in 10 500; do
      for n in $n1 $n2; do
        for side in precise wall; do
          b=BenchmarkTrigger; [ "$side" = precise ] && b=BenchmarkTriggerPrecise
          perf record -q -e sched:sched_switch -e sched:sched_wakeup -g -o "$dir/data" \
            "$bin" -test.run '^$' -test.bench "^$b\$/^design=$d\$/^pipelines=$p\$" -test.benchtime "${n}x" >/dev/null 2>&1
          classify "side=$side design=$d pipelines=$p firings=$n"
        done
      done
    done
  done
done
