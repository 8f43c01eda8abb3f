#!/bin/bash
# The named (non-hazard) scenarios with the fixed design at scale, random walk and PCT:
# 1000 seeds each from 5000000, one process at nice 19, --parallel 1. Resumable: re-run.
# B is simrun built from a clean commit: go build -o /work/hunt/simrun-$(git rev-parse --short HEAD) ./cmd/simrun
B=${B:-$(ls /work/hunt/simrun-* | head -1)}
cd /work/hunt
for s in smoke idle-close idle-close-late failovers double-failure saturation savepoint-storm expiries watermarks; do
for st in random pct; do
  d=hunt-$s-$st
  if grep -q "^DONE" $d/.done 2>/dev/null; then continue; fi
  if [ -f $d/campaign.json ]; then
    nice -n 19 $B run --resume $d --parallel 1 > $d.log 2>&1
  else
    nice -n 19 $B run --scenario $s --seeds 1000 --seed 5000000 --strategy $st --parallel 1 --out $d > $d.log 2>&1
  fi
  rc=$?
  echo "$d rc=$rc $(date -u +%FT%TZ)" >> progress.txt
  [ $rc -ne 130 ] && [ $rc -ne 137 ] && echo DONE > $d/.done
done; done
echo ALLDONE $(date -u +%FT%TZ) >> progress.txt
