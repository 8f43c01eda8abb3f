#!/bin/bash
# The named (non-hazard) scenarios with the fixed design at scale, random walk and PCT:
# 1000 seeds each from 5000000, one process at nice 19, --parallel 1. Resumable: re-run.
# B is simrun built from a clean commit: go build -o /work/hunt/simrun-$(git rev-parse --short HEAD) ./cmd/simrun
B=${B:-$(ls /work/hunt/simrun-* | head -1)}
. "$(dirname "$0")/hunt-lib.sh"
PROGRESS=progress.txt
cd /work/hunt
for s in smoke idle-close idle-close-late failovers double-failure saturation savepoint-storm expiries watermarks; do
for st in random pct; do
  run hunt-$s-$st --scenario $s --seeds 1000 --seed 5000000 --strategy $st
done; done
echo ALLDONE $(date -u +%FT%TZ) >> progress.txt
