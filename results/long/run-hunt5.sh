#!/bin/bash
# After all of session 6's fixes (the CancelAll one moved every interleaving): the campaigns that
# failed before, on new seeds, 500 per strategy from 5500000: BUGGIFY on for idle-close-late,
# idle-close, saturation (random), savepoint-storm (random), swarm; failovers under PCT without
# BUGGIFY. One process at nice 19, --parallel 1. Resumable: re-run. B: simrun from the clean commit.
B=${B:-$(ls /work/hunt/fixed5/simrun-* | head -1)}
. "$(dirname "$0")/hunt-lib.sh"
PROGRESS=progress5.txt
cd /work/hunt
run fixed5-failovers-pct --scenario failovers --seeds 500 --seed 5500000 --strategy pct
for st in random pct; do
  run fixed5-bug-idle-close-late-$st --scenario idle-close-late --seeds 500 --seed 5500000 --strategy $st --buggify on
done
run fixed5-bug-saturation-random --scenario saturation --seeds 300 --seed 5500000 --strategy random --buggify on
run fixed5-bug-savepoint-storm-random --scenario savepoint-storm --seeds 300 --seed 5500000 --strategy random --buggify on
for st in random pct; do
  run fixed5-bug-idle-close-$st --scenario idle-close --seeds 500 --seed 5500000 --strategy $st --buggify on
  run fixed5-bug-swarm-$st --scenario swarm --seeds 1000 --seed 5500000 --strategy $st --buggify on
done
echo ALLDONE $(date -u +%FT%TZ) >> progress5.txt
