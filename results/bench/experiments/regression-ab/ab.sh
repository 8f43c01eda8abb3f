#!/bin/sh
# interleaved A/B of BenchmarkTriggerPrecise: af809d3 (old) vs head (new)
# AB: the folder holding old.test and new.test (the two commits' bench
# binaries, go test -c ./bench/) and the outputs; /work/ab when it ran.
AB=${AB:-/work/ab}
cd "$(git rev-parse --show-toplevel)"
for r in 1 2 3; do
 for d in shared per-pipeline leader-follower; do
  for p in 10 500; do
   for side in old new; do
    [ $((r%2)) -eq 0 ] && side=$( [ $side = old ] && echo new || echo old )
    echo "# round $r side $side load $(cut -d' ' -f1 /proc/loadavg)" >> $AB/$side.txt
    $AB/$side.test -test.run '^$' -test.bench "^BenchmarkTriggerPrecise\$/^design=$d\$/^pipelines=$p\$" -test.benchtime 600x | grep '^Benchmark' >> $AB/$side.txt
   done
  done
 done
done
echo done > $AB/DONE
