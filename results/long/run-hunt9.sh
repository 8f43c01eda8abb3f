#!/bin/bash
# The head at the end of session 6 (binary from 845f3c1, core as at the head): BUGGIFY swarm,
# 2000 seeds per strategy from 5900000, and the named scenarios with BUGGIFY, 200 per strategy.
# One process at nice 19, --parallel 1. Resumable: re-run.
B=${B:-$(ls /work/hunt/fixed8/simrun-* | head -1)}
. "$(dirname "$0")/hunt-lib.sh"
PROGRESS=progress9.txt
cd /work/hunt
for st in random pct; do
  run final-bug-swarm-$st --scenario swarm --seeds 2000 --seed 5900000 --strategy $st --buggify on
done
for s in smoke failovers double-failure idle-close expiries; do
  for st in random pct; do
    run final-bug-$s-$st --scenario $s --seeds 200 --seed 5900000 --strategy $st --buggify on
  done
done
echo ALLDONE $(date -u +%FT%TZ) >> progress9.txt
