#!/usr/bin/env bash
# Summarizes stalls.txt (run.sh's output): per side, and over every run split by whether its
# trace held 10 or more process-wide stalls, the runs' median and range of CPU per firing.
set -euo pipefail
f=${1:-$(dirname "$0")/stalls.txt}
field() { sed -n "s|.* $1=\([0-9.]*\).*|\1|p"; }
med() { sort -n | awk '{a[NR]=$1} END{if (NR==0) {print "-"; exit} m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.0f µs (%.0f-%.0f, %d runs)", m/1000, a[1]/1000, a[NR]/1000, NR}'; }
echo "| runs | CPU per firing, median (range, runs) | stalls per run |"
echo "|---|---|---|"
for side in $(sed -n 's/.* side=\([^ ]*\).*/\1/p' "$f" | sort -u); do
  echo "| side=$side | $(grep " side=$side " "$f" | field cpu-ns/firing | med) | $(grep " side=$side " "$f" | field stalls | sort -n | tr '\n' ' ')|"
done
echo "| every run with >= 10 stalls | $(awk '{for(i=1;i<=NF;i++) if ($i ~ /^stalls=/) {split($i,a,"="); if (a[2]>=10) print}}' "$f" | field cpu-ns/firing | med) | |"
echo "| every run with < 10 stalls | $(awk '{for(i=1;i<=NF;i++) if ($i ~ /^stalls=/) {split($i,a,"="); if (a[2]<10) print}}' "$f" | field cpu-ns/firing | med) | |"
