#!/bin/bash
# Swarm (every fault kind, a random subset per seed) on the designs the 20 000-seed swarm run
# did not cover (it ran the default, shared), and the shared design under PCT: 2000 seeds each
# from 5100000, one process at nice 19, --parallel 1 (beside run-hunt.sh). Resumable: re-run.
B=${B:-$(ls /work/hunt/simrun-* | head -1)}
. "$(dirname "$0")/hunt-lib.sh"
PROGRESS=progress2.txt
cd /work/hunt
for c in "leader-follower random" "leader-follower pct" "per-pipeline random" "per-pipeline pct" "shared pct"; do
  set -- $c
  run hunt-swarm-$1-$2 --scenario swarm --variant design=$1 --seeds 2000 --seed 5100000 --strategy $2
done
echo ALLDONE $(date -u +%FT%TZ) >> progress2.txt
