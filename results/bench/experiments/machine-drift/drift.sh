#!/bin/sh
# drift.sh OLDREV [NEWREV]: the simulator's benchmarks in the record at
# OLDREV against the record at NEWREV (default: the working tree), by
# benchstat. The simulator's code did not change between b2c1319 and
# 3bfd5ed (git diff b2c1319 3bfd5ed -- sim/ bench/sim_test.go
# bench/timedwake_test.go is empty), so what moved between those two
# records is the machine (each file's machine: and cpu: lines say which;
# benchstat is told to ignore them, with commit, date and command, so
# that the two records fall in one table): a control for the rest of the
# record.
# Run from the repository root. drift.txt is the record at b2c1319 (as
# committed in 3bfd5ed) against the record at 3bfd5ed (committed in
# fc0948c); both revisions are named, so that it comes from commits alone:
#   results/bench/experiments/machine-drift/drift.sh 3bfd5ed fc0948c > results/bench/experiments/machine-drift/drift.txt
set -eu
old=$1 new=${2:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in sim-switch.txt sim.txt timedwake.txt; do
	git show "$old:results/bench/$f" > "$tmp/old-$f"
	if [ -n "$new" ]; then git show "$new:results/bench/$f" > "$tmp/new-$f"; else cp "results/bench/$f" "$tmp/new-$f"; fi
	for s in old new; do
		echo "$s: results/bench/$f, $(grep -m1 '^commit:' "$tmp/$s-$f"), $(grep -m1 '^date:' "$tmp/$s-$f"), $(grep -m1 '^machine:' "$tmp/$s-$f")"
	done
	echo
	go run golang.org/x/perf/cmd/benchstat -ignore commit,date,command,machine,cpu "old=$tmp/old-$f" "new=$tmp/new-$f"
	echo
done
