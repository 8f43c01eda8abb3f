#!/bin/bash
# 5000 fixed-design seeds per hazard scenario and detecting strategy, seeds 4000000-4004999,
# binary built from 1c091b7 (clean tree). Resumable: re-run this script.
# W: the run's folder (it ran outside the repository), holding simrun built from 1c091b7.
W=$(cd "${W:-../long5k}" && pwd) || exit 1
B=$W/simrun-1c091b7
cd "$W"
for st in random pct; do
for s in h1-stale-expiry h2-cancel-after-handoff h3-kill-worker h4-trigger-silent h5-savepoint-under-lock \
         h6-inline-continuation h8-saturation h9-deferred-fence h10-retention h11-step-down; do
  [ $s = h2-cancel-after-handoff ] && [ $st = pct ] && continue   # H2 is detected by the random walk only
  d=fixed-$s-$st
  if [ -f $d/summary.txt ] && grep -q "^DONE" $d/.done 2>/dev/null; then continue; fi
  v=; [ $s = h8-saturation ] && v="--variant design=per-pipeline"
  if [ -f $d/campaign.json ]; then
    $B run --resume $d --parallel 2 > $d.log 2>&1
  else
    $B run --scenario $s --seeds 5000 --seed 4000000 --strategy $st $v --parallel 2 --out $d > $d.log 2>&1
  fi
  rc=$?
  echo "$d rc=$rc $(date -u +%FT%TZ)" >> progress.txt
  [ $rc -ne 130 ] && echo DONE > $d/.done
done; done
echo ALLDONE $(date -u +%FT%TZ) >> progress.txt
