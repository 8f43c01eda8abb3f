#!/bin/sh
# ab.sh DIR: BenchmarkTriggerPrecise of three bench binaries beside the JDK
# peer (TriggerPeer), interleaved per cell, the order flipped every round;
# on -test.cpu 2 and 1, taskset to CPUs 0,1. DIR/old.test is 0ee1465;
# DIR/new.test adds the two changes (a timerfd goes back to the pool with
# no system call, and the shared design's timer thread yields to the
# dispatcher it woke, env.HandedOff); DIR/fd.test has the first alone
# (side fd, shared only: the second changes nothing else). Output:
# DIR/ab.txt (or DIR/$OUT), lines prefixed with the side (old, fd, new,
# jdk).
set -eu
dir=$1
N=${N:-400} ROUNDS=${ROUNDS:-2}
javac -d "$dir" peer/jdk/TriggerPeer.java
out=$dir/${OUT:-ab.txt}
: >"$out"
for r in $(seq "$ROUNDS"); do
	for d in ${DESIGNS:-shared per-pipeline shared-inline leader-follower}; do
		for p in 10 500; do
			case $((r % 2)) in 1) order="old fd new jdk" ;; *) order="jdk new fd old" ;; esac
			for side in $order; do
				[ "$side" = fd ] && [ "$d" != shared ] && continue
				echo "# round $r side $side load $(cut -d' ' -f1 /proc/loadavg)" >>"$out"
				if [ "$side" = jdk ]; then
					[ "$d" = leader-follower ] && continue
					taskset -c 0,1 java -Xms512m -Xmx512m -XX:+UseG1GC -cp "$dir" TriggerPeer -n "$N" -designs "$d" -pipelines "$p" |
						grep '^Benchmark' | sed "s/^/jdk /" >>"$out"
					continue
				fi
				for cpu in 2 1; do
					taskset -c 0,1 "$dir/$side.test" -test.run '^$' -test.cpu $cpu -test.bench "^BenchmarkTriggerPrecise\$/^design=$d\$/^pipelines=$p\$" \
						-test.benchtime "${N}x" | grep '^Benchmark' | sed "s/^/$side /" >>"$out"
				done
			done
		done
	done
done
echo done >"$dir/DONE.${OUT:-ab.txt}"
