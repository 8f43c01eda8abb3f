#!/bin/sh
AB=/work/abl
N=${N:-400}
for r in 2 3; do
for cpu in 2 1; do
for d in shared-inline per-pipeline leader-follower shared; do
 for p in 10 500; do
  case $r in 2) order="pl b" ;; *) order="b pl" ;; esac
  for side in $order; do
   echo "# side $side cpu $cpu round $r load $(cut -d' ' -f1 /proc/loadavg)" >> $AB/out2.txt
   $AB/$side.test -test.run '^$' -test.cpu $cpu -test.bench "^BenchmarkTriggerPrecise\$/^design=$d\$/^pipelines=$p\$" -test.benchtime ${N}x | grep '^Benchmark' | sed "s/^/$side /" >> $AB/out2.txt
  done
 done
done
done
done
echo done > $AB/DONE3
