#!/bin/bash
# Swarm (every fault kind, a random subset per seed) on the designs the 20 000-seed swarm run
# did not cover (it ran the default, shared), and the shared design under PCT: 2000 seeds each
# from 5100000, one process at nice 19, --parallel 1 (beside run-hunt.sh). Resumable: re-run.
B=${B:-$(ls /work/hunt/simrun-* | head -1)}
cd /work/hunt
for c in "leader-follower random" "leader-follower pct" "per-pipeline random" "per-pipeline pct" "shared pct"; do
  set -- $c
  d=hunt-swarm-$1-$2
  if grep -q "^DONE" $d/.done 2>/dev/null; then continue; fi
  if [ -f $d/campaign.json ]; then
    nice -n 19 $B run --resume $d --parallel 1 > $d.log 2>&1
  else
    nice -n 19 $B run --scenario swarm --variant design=$1 --seeds 2000 --seed 5100000 --strategy $2 --parallel 1 --out $d > $d.log 2>&1
  fi
  rc=$?
  echo "$d rc=$rc $(date -u +%FT%TZ)" >> progress2.txt
  [ $rc -ne 130 ] && [ $rc -ne 137 ] && echo DONE > $d/.done
done
echo ALLDONE $(date -u +%FT%TZ) >> progress2.txt
