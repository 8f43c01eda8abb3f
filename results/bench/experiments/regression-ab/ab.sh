#!/bin/sh
# interleaved A/B of BenchmarkTriggerPrecise: af809d3 (old) vs head (new)
cd /work/main
for r in 1 2 3; do
 for d in shared per-pipeline leader-follower; do
  for p in 10 500; do
   for side in old new; do
    [ $((r%2)) -eq 0 ] && side=$( [ $side = old ] && echo new || echo old )
    echo "# round $r side $side load $(cut -d' ' -f1 /proc/loadavg)" >> /work/ab/$side.txt
    /work/ab/$side.test -test.run '^$' -test.bench "^BenchmarkTriggerPrecise\$/^design=$d\$/^pipelines=$p\$" -test.benchtime 600x | grep '^Benchmark' >> /work/ab/$side.txt
   done
  done
 done
done
echo done > /work/ab/DONE
