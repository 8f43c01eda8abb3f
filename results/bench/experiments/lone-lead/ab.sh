#!/bin/sh
# ab.sh DIR: BenchmarkTriggerPrecise of two bench binaries, DIR/old.test
# (b2c1319) and DIR/new.test (the lone-entry lead and the empty-heap
# promotion of core/exec's Timer), new.test with no timer lead at all
# (side nolead: -precise.lead=-1ns), beside the JDK peer (TriggerPeer),
# interleaved per cell, the order flipped every round; on -test.cpu 2
# and 1, taskset to CPUs 0,1. Output: DIR/ab.txt, lines prefixed with
# the side (old, new, nolead, jdk).
set -eu
dir=$1
N=${N:-400} ROUNDS=${ROUNDS:-2} # DESIGNS: default per-pipeline shared leader-follower
javac -d "$dir" peer/jdk/TriggerPeer.java
out=$dir/ab.txt
: >"$out"
for r in $(seq "$ROUNDS"); do
	for d in ${DESIGNS:-per-pipeline shared leader-follower}; do
		for p in 10 500; do
			case $((r % 2)) in 1) order="old new nolead jdk" ;; *) order="jdk nolead new old" ;; esac
			for side in $order; do
				echo "# round $r side $side load $(cut -d' ' -f1 /proc/loadavg)" >>"$out"
				if [ "$side" = jdk ]; then
					[ "$d" = leader-follower ] && continue
					taskset -c 0,1 java -Xms512m -Xmx512m -XX:+UseG1GC -cp "$dir" TriggerPeer -n "$N" -designs "$d" -pipelines "$p" |
						grep '^Benchmark' | sed "s/^/jdk /" >>"$out"
					continue
				fi
				bin=$dir/$side.test flags=
				[ "$side" = nolead ] && bin=$dir/new.test flags=-precise.lead=-1ns
				for cpu in 2 1; do
					taskset -c 0,1 "$bin" $flags -test.run '^$' -test.cpu $cpu -test.bench "^BenchmarkTriggerPrecise\$/^design=$d\$/^pipelines=$p\$" \
						-test.benchtime "${N}x" | grep '^Benchmark' | sed "s/^/$side /" >>"$out"
				done
			done
		done
	done
done
echo done >"$dir/DONE"
