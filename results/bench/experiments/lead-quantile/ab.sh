#!/bin/sh
# ab.sh: the adaptive spin and lead's quantile, interleaved A/B/C of
# BenchmarkTriggerPrecise (issue 27, CPU per firing). k3, k13 and k26 are
# bench binaries (go test -c ./bench/) built from one commit with adaptK
# (core/env/adapt.go: the estimate is the K-th largest of the last 128
# samples) set to 3 (about the 98th percentile), 13 (about the 90th) and
# 26 (about the 80th). Each round runs every cell once per side, one fresh
# process per cell, the sides back to back in an order that rotates per
# round, so that they see the same machine load.
# AB: the folder holding k3.test, k13.test, k26.test and the outputs.
AB=${AB:-/work/abq}
N=${N:-600}
for r in 1 2; do
 for d in per-pipeline shared shared-inline leader-follower; do
  for p in 10 500; do
   case $r in 1) order="k3 k13 k26" ;; *) order="k26 k13 k3" ;; esac
   for side in $order; do
    echo "# round $r side $side load $(cut -d' ' -f1 /proc/loadavg)" >> $AB/$side.txt
    $AB/$side.test -test.run '^$' -test.bench "^BenchmarkTriggerPrecise\$/^design=$d\$/^pipelines=$p\$" -test.benchtime ${N}x | grep '^Benchmark' >> $AB/$side.txt
   done
  done
 done
done
echo done > $AB/DONE
