#!/bin/bash
# After fix 8 (a failed store reconciles the retention deque): BUGGIFY idle-close and
# idle-close-late, 1000 seeds per strategy from 6000000. One process at nice 19, --parallel 1.
# Resumable: re-run. B: simrun built from the clean commit.
B=${B:-$(ls /work/hunt/fixed10/simrun-* | head -1)}
. "$(dirname "$0")/hunt-lib.sh"
PROGRESS=progress10.txt
cd /work/hunt
for s in idle-close idle-close-late; do
  for st in random pct; do
    run fixed10-bug-$s-$st --scenario $s --seeds 1000 --seed 6000000 --strategy $st --buggify on
  done
done
echo ALLDONE $(date -u +%FT%TZ) >> progress10.txt
