#!/bin/bash
# After the two core fixes of session 6: the failovers/PCT campaign again (1000 seeds from
# 5000000, where the self-deadlock was found), then BUGGIFY on at scale: swarm 2000 seeds per
# strategy from 5200000 and the named scenarios 300 seeds per strategy from 5300000. One
# process at nice 19, --parallel 1. Resumable: re-run. B: simrun built from the clean commit.
B=${B:-$(ls /work/hunt/fixed/simrun-* | head -1)}
. "$(dirname "$0")/hunt-lib.sh"
PROGRESS=progress3.txt
cd /work/hunt
run fixed-failovers-pct --scenario failovers --seeds 1000 --seed 5000000 --strategy pct
for st in random pct; do
  run bug-swarm-$st --scenario swarm --seeds 2000 --seed 5200000 --strategy $st --buggify on
done
for s in smoke idle-close idle-close-late failovers double-failure saturation savepoint-storm expiries; do
  for st in random pct; do
    run bug-$s-$st --scenario $s --seeds 300 --seed 5300000 --strategy $st --buggify on
  done
done
echo ALLDONE $(date -u +%FT%TZ) >> progress3.txt
