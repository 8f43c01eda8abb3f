#!/bin/bash
# After all of session 6's fixes, the clean's fence (fix 5) included: PCT with BUGGIFY at 500
# pipelines first (200 seeds each), then the campaigns that failed before, on new seeds from 5600000: BUGGIFY on for idle-close-late,
# idle-close, saturation (random), savepoint-storm (random), swarm; failovers under PCT without
# BUGGIFY. One process at nice 19, --parallel 1. Resumable: re-run. B: simrun from the clean commit.
B=${B:-$(ls /work/hunt/fixed6/simrun-* | head -1)}
. "$(dirname "$0")/hunt-lib.sh"
PROGRESS=progress6.txt
cd /work/hunt
for s in saturation savepoint-storm; do
  run fixed6-bug-$s-pct --scenario $s --seeds 200 --seed 5600000 --strategy pct --buggify on
done
run fixed6-failovers-pct --scenario failovers --seeds 500 --seed 5600000 --strategy pct
for st in random pct; do
  run fixed6-bug-idle-close-late-$st --scenario idle-close-late --seeds 500 --seed 5600000 --strategy $st --buggify on
done
run fixed6-bug-saturation-random --scenario saturation --seeds 300 --seed 5600000 --strategy random --buggify on
run fixed6-bug-savepoint-storm-random --scenario savepoint-storm --seeds 300 --seed 5600000 --strategy random --buggify on
for st in random pct; do
  run fixed6-bug-idle-close-$st --scenario idle-close --seeds 500 --seed 5600000 --strategy $st --buggify on
  run fixed6-bug-swarm-$st --scenario swarm --seeds 1000 --seed 5600000 --strategy $st --buggify on
done
echo ALLDONE $(date -u +%FT%TZ) >> progress6.txt
