#!/bin/bash
# After the third core fix of session 6 (a final checkpoint during a restore in flight): the
# BUGGIFY idle-close-late campaigns that found it again (300 seeds per strategy from 5300000),
# then idle-close-late and idle-close with BUGGIFY on, 1000 seeds per strategy from 5400000.
# One process at nice 19, --parallel 1. Resumable: re-run. B: simrun built from the clean commit.
B=${B:-$(ls /work/hunt/fixed3/simrun-* | head -1)}
. "$(dirname "$0")/hunt-lib.sh"
PROGRESS=progress4.txt
cd /work/hunt
for st in random pct; do
  run fixed3-bug-idle-close-late-$st --scenario idle-close-late --seeds 300 --seed 5300000 --strategy $st --buggify on
done
for s in idle-close-late idle-close; do
  for st in random pct; do
    run fixed3-bug1000-$s-$st --scenario $s --seeds 1000 --seed 5400000 --strategy $st --buggify on
  done
done
echo ALLDONE $(date -u +%FT%TZ) >> progress4.txt
