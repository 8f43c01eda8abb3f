#!/bin/bash
# After fix 6 (a finished pipeline whose current generation failed is restored again): the
# BUGGIFY idle-close-late campaigns on new seeds, 500 per strategy from 5700000. One process at
# nice 19, --parallel 1. Resumable: re-run. B: simrun built from the clean commit.
B=${B:-$(ls /work/hunt/fixed7/simrun-* | head -1)}
. "$(dirname "$0")/hunt-lib.sh"
PROGRESS=progress7.txt
cd /work/hunt
for st in pct random; do
  run fixed7-bug-idle-close-late-$st --scenario idle-close-late --seeds 500 --seed 5700000 --strategy $st --buggify on
done
echo ALLDONE $(date -u +%FT%TZ) >> progress7.txt
