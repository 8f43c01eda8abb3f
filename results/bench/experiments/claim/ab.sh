#!/bin/sh
# ab.sh DIR: BenchmarkTriggerPrecise of the bench binaries DIR/<side>.test
# for each side in SIDES (default "old new") beside the JDK peer
# (TriggerPeer), interleaved per cell (design x pipelines), the order of
# the sides reversed every other round; on -test.cpu 2 and 1, taskset to
# CPUs 0,1. Output: DIR/${OUT:-ab.txt}, each line prefixed with its side
# (a "# round ... load ..." line before each run).
set -eu
dir=$1
N=${N:-400} ROUNDS=${ROUNDS:-4} SIDES=${SIDES:-old new}
javac -d "$dir" peer/jdk/TriggerPeer.java
out=$dir/${OUT:-ab.txt}
: >"$out"
rev() { r=; for s in "$@"; do r="$s $r"; done; echo "$r"; }
for r in $(seq "$ROUNDS"); do
	for d in ${DESIGNS:-shared per-pipeline}; do
		for p in 10 500; do
			case $((r % 2)) in 1) order="$SIDES jdk" ;; *) order=$(rev $SIDES jdk) ;; esac
			for side in $order; do
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
