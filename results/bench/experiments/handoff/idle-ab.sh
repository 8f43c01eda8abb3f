#!/bin/sh
# idle-ab.sh DIR: bench/idle.sh (BenchmarkIdleMember, the default env on
# two Ps and on one, beside the JDK peer) for shared and shared-inline at
# 100 and 500 pipelines and a 1 s interval, 15 s windows, with DIR/old.test
# and DIR/new.test in turn (old new new old), one round each. Output:
# DIR/idle-SIDE-N-go.txt and DIR/idle-SIDE-N-jdk.txt (copied here to idle/).
set -eu
dir=$1 n=0
for side in old new new old; do
	n=$((n + 1))
	BENCH_TEST=$dir/$side.test bench/idle.sh -w 15 -r 1 -e precise,precise1 -d shared,shared-inline -p 100,500 -i 1s \
		"$dir/idle-$side-$n-go.txt" "$dir/idle-$side-$n-jdk.txt"
done
echo done >"$dir/DONE.idle"
