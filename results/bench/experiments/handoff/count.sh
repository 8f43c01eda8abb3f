#!/bin/sh
# count.sh DIR: system calls and context switches per firing (perf stat over
# the whole process) of DIR/old.test and DIR/new.test, BenchmarkTriggerPrecise
# shared and shared-inline at 10 pipelines, on -test.cpu 2 and 1; each cell
# runs at N1 and N2 firings and the difference over N2-N1 is the steady state
# per firing (as ../wakeups/run.sh). Counts, which the host's stops do not
# move. Output: one line per cell and side.
set -eu
dir=$1 n1=${N1:-200} n2=${N2:-600}
for d in shared shared-inline; do
	for cpu in 2 1; do
		for side in old new; do
			for n in $n1 $n2; do
				taskset -c 0,1 perf stat -x, -e context-switches,raw_syscalls:sys_enter -o "$dir/perf.$n" \
					"$dir/$side.test" -test.run '^$' -test.cpu $cpu -test.bench "^BenchmarkTriggerPrecise\$/^design=$d\$/^pipelines=10\$" \
					-test.benchtime "${n}x" >/dev/null
			done
			awk -F, -v d="$d" -v cpu="$cpu" -v side="$side" -v n=$((n2 - n1)) '
				$3 == "context-switches" { cs[FILENAME] = $1 } $3 == "raw_syscalls:sys_enter" { sc[FILENAME] = $1 }
				END { for (f in cs) if (f ~ /'"$n1"'$/) { a = f } else { b = f }
					printf "design=%s cpu=%s side=%s ctxsw/firing=%.2f syscalls/firing=%.2f\n", d, cpu, side, (cs[b] - cs[a]) / n, (sc[b] - sc[a]) / n }' \
				"$dir/perf.$n1" "$dir/perf.$n2"
		done
	done
done
