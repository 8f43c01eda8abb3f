#!/bin/sh
# run.sh ROUNDS > wake-floor.txt: the least a periodic timed wake costs,
# Go against the JDK, each side a process that only wakes (bench/cmd/wakefloor,
# Wake.java), counted by perf stat over the whole process (task-clock: CPU;
# context-switches). Each side runs N1 and N2 wakes; summarize.sh takes the
# difference over the N2-N1 extra wakes (start-up, the JVM's compilation and
# exit cancel). Sides: go-sleep (time.Sleep, the machine's Ps), go-sleep1
# (the same, GOMAXPROCS=1), go-raw (a raw nanosleep, the machine's Ps),
# jdk-park (LockSupport.parkNanos), jdk-stpe (a one-thread
# ScheduledThreadPoolExecutor at a fixed rate). Periods: 2 ms and 10 ms (an
# idle member's firing rate at 500 and 100 pipelines on a 1 s interval).
# Run from the repository root.
set -eu
rounds=${1:-2}
N1=${N1:-300}
N2=${N2:-1200}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/wakefloor" ./bench/cmd/wakefloor
javac -d "$dir" results/bench/experiments/wake-floor/Wake.java
sh bench/header.sh "results/bench/experiments/wake-floor/run.sh $rounds"
echo "# N1=$N1 N2=$N2"
for r in $(seq "$rounds"); do
	for period in 2 10; do
		for side in go-sleep go-sleep1 go-raw jdk-park jdk-stpe; do
			for n in $N1 $N2; do
				case $side in
				go-sleep) cmd="$dir/wakefloor -mode sleep -period ${period}ms -n $n" ;;
				go-sleep1) cmd="env GOMAXPROCS=1 $dir/wakefloor -mode sleep -period ${period}ms -n $n" ;;
				go-raw) cmd="$dir/wakefloor -mode raw -period ${period}ms -n $n" ;;
				jdk-park) cmd="java -Xms64m -Xmx64m -cp $dir Wake park $((period * 1000)) $n" ;;
				jdk-stpe) cmd="java -Xms64m -Xmx64m -cp $dir Wake stpe $((period * 1000)) $n" ;;
				esac
				out=$(perf stat -x, -e task-clock,context-switches -o "$dir/perf" $cmd)
				tc=$(awk -F, '$3=="task-clock"{print $1}' "$dir/perf")
				cs=$(awk -F, '$3=="context-switches"{print $1}' "$dir/perf")
				echo "round=$r side=$side period=${period}ms n=$n task-clock-ms=$tc ctxsw=$cs load=$(cut -d' ' -f1 /proc/loadavg) $out"
			done
		done
	done
done
