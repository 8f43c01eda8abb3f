#!/bin/sh
AB=/work/abl
N=${N:-400}
for cpu in 2 1; do
for d in shared-inline per-pipeline leader-follower shared; do
 for p in 10 500; do
  for side in b pl; do
   echo "# side $side cpu $cpu load $(cut -d' ' -f1 /proc/loadavg)" >> $AB/out2.txt
   $AB/$side.test -test.run '^$' -test.cpu $cpu -test.bench "^BenchmarkTriggerPrecise\$/^design=$d\$/^pipelines=$p\$" -test.benchtime ${N}x | grep '^Benchmark' | sed "s/^/$side /" >> $AB/out2.txt
  done
 done
done
done
echo done > $AB/DONE2
