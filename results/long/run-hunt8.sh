#!/bin/bash
# After fix 7 (a periodic re-arm checks its generation): new seeds from 5800000 for the BUGGIFY
# campaigns that still failed: savepoint-storm (random, 300), idle-close-late (both, 500 each),
# saturation (PCT, 200). One process at nice 19, --parallel 1. Resumable: re-run.
B=${B:-$(ls /work/hunt/fixed8/simrun-* | head -1)}
. "$(dirname "$0")/hunt-lib.sh"
PROGRESS=progress8.txt
cd /work/hunt
run fixed8-bug-savepoint-storm-random --scenario savepoint-storm --seeds 300 --seed 5800000 --strategy random --buggify on
for st in pct random; do
  run fixed8-bug-idle-close-late-$st --scenario idle-close-late --seeds 500 --seed 5800000 --strategy $st --buggify on
done
run fixed8-bug-saturation-pct --scenario saturation --seeds 200 --seed 5800000 --strategy pct --buggify on
echo ALLDONE $(date -u +%FT%TZ) >> progress8.txt
