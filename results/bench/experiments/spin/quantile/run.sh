#!/bin/sh
AB=/work/abl
N=400
run() { # side bin args...
 side=$1; bin=$2; shift 2
 $AB/$bin.test "$@" > $AB/last.out 2>&1; cat $AB/last.out >> $AB/full4.log
}
for r in 1 2; do
for cpu in 2 1; do
for d in shared-inline per-pipeline leader-follower shared; do
 for p in 10 500; do
  case $r in 1) order="k3 k32" ;; *) order="k32 k3" ;; esac
  for side in $order; do
   echo "# side $side cpu $cpu round $r load $(cut -d' ' -f1 /proc/loadavg)" >> $AB/trig4.txt
   run $side $side -test.run '^$' -test.cpu $cpu -test.bench "^BenchmarkTriggerPrecise\$/^design=$d\$/^pipelines=$p\$" -test.benchtime ${N}x
   grep "^Benchmark" $AB/last.out | sed "s/^/$side /" >> $AB/trig4.txt
  done
 done
done
done
done
echo done > $AB/DONE7
for e in precise1 precise; do
for d in per-pipeline shared shared-inline; do
 for p in 100 500; do
  for side in nob k3 k32; do
   case $side in nob) bin=k3; extra=-precise.budget=-1 ;; *) bin=$side; extra= ;; esac
   echo "# side $side env $e round 1 load $(cut -d' ' -f1 /proc/loadavg)" >> $AB/idle4.txt
   run $side $bin -test.run '^$' $extra -test.bench "^BenchmarkIdleMember\$/^env=$e\$/^design=$d\$/^pipelines=$p\$/^interval=1s\$" -test.benchtime 1x -idle.wall 20s
   grep "^Benchmark" $AB/last.out | sed "s/^/$side /" >> $AB/idle4.txt
  done
 done
done
done
echo done > $AB/DONE8
