#!/bin/sh
# sim-lines.sh OUT [ROUNDS] [BASE]: the simulator's per-step cost against
# the number of live threads, before and after a change to sim/. Three test
# binaries: sim=base, ./bench with sim/ as at BASE (default 892a0e5, the
# commit before the cache-line layout of thread and coro); sim=head,
# ./bench as at HEAD; sim=floor, a benchmark of iter.Pull alone (written
# below into a scratch module): one op calls next() of one of n
# coroutines, drawn uniformly at random, which yields straight back (two
# hand-offs, the first into a coroutine that is cold when n is large), the
# runtime's share of a switch among n threads, which no change to sim/
# can make cheaper. ROUNDS rounds (default 8), each running the three
# back to back (the order rotates), -count 1 each:
# BenchmarkSchedPointThreads (ns/op and cpu-ns/op, the process's CPU time
# per point over the measured window: the machine is shared, and CPU time
# counts no time spent waiting for a core) and BenchmarkTimedWakeRatio
# (-benchtime 10x; its cpu- figures are the process's CPU too). OUT gets them in the Go benchmark format, the arm in
# the name, then OUT.summary the medians over the rounds, the head/base
# ratios and the 1000/2 and 1000/10 ratios of each arm (summarize below).
# Run from the repository root on a clean tree.
set -eu
out=$1
rounds=${2:-8}
base=${3:-892a0e5}
root=$(git rev-parse --show-toplevel)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git worktree add -q --detach "$tmp/wt" HEAD
(cd "$tmp/wt" && rm -rf sim && git checkout -q "$base" -- sim && go test -c -o "$tmp/base.test" ./bench/)
git worktree remove --force "$tmp/wt"
go test -c -o "$tmp/head.test" ./bench/
mkdir "$tmp/floor"
cat >"$tmp/floor/floor_test.go" <<'EOF'
package floor

import (
	"fmt"
	"iter"
	"math/rand/v2"
	"syscall"
	"testing"
)

func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

func BenchmarkSchedPointThreads(b *testing.B) {
	for _, n := range []int{2, 10, 100, 1000} {
		b.Run(fmt.Sprintf("threads=%d", n), func(b *testing.B) {
			nexts := make([]func() (struct{}, bool), n)
			for i := range nexts {
				next, stop := iter.Pull(func(yield func(struct{}) bool) {
					for yield(struct{}{}) {
					}
				})
				defer stop()
				nexts[i] = next
			}
			r := rand.New(rand.NewPCG(1, 2))
			b.ResetTimer()
			cpu := cpuTime()
			for range b.N {
				nexts[r.IntN(n)]()
			}
			b.StopTimer()
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}
EOF
(cd "$tmp/floor" && printf 'module floor\n\ngo 1.26\n' >go.mod && go test -c -o "$tmp/floor.test" .)
run() { # run ARM ARGS...: one benchmark run of an arm, names tagged with it
	arm=$1
	shift
	dir=$root/bench
	[ "$arm" = floor ] && dir=$tmp/floor
	(cd "$dir" && nice "$tmp/$arm.test" -test.run '^$' "$@") |
		sed -n "s|^\(Benchmark[A-Za-z]*\)/|\1/sim=$arm/|p"
}
summarize() { # summarize FILE: medians per benchmark and arm, then ratios
	awk '
	/^Benchmark/ {
		split($1, p, "/"); arm = p[2]; sub(/^sim=/, "", arm)
		name = p[1]; for (i = 3; i <= length(p); i++) name = name "/" p[i]
		sub(/-[0-9]+$/, "", name)
		for (i = 3; i < NF; i += 2) if ((name ~ /SchedPoint/ && $(i+1) ~ /^(cpu-)?ns\/op$/) || $(i+1) ~ /^(sim-cpu-ns\/wake|synctest\/sim|cpu-synctest\/sim)$/) {
			k = name SUBSEP arm SUBSEP $(i+1); n[k]++; v[k, n[k]] = $i; keys[k] = 1
		}
	}
	function median(k,   m, i, j, t, a) {
		m = n[k]; for (i = 1; i <= m; i++) a[i] = v[k, i]
		for (i = 2; i <= m; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
		return m % 2 ? a[(m+1)/2] : (a[m/2] + a[m/2+1]) / 2
	}
	END {
		for (k in keys) { split(k, f, SUBSEP); med[f[1], f[2], f[3]] = median(k); names[f[1] SUBSEP f[3]] = 1; runs = n[k] }
		print "median over " runs " rounds (ns/op, cpu-ns/op, sim-cpu-ns/wake: lower is better; synctest/sim, cpu-synctest/sim: higher)"
		printf "%-56s %10s %10s %10s %10s\n", "benchmark", "base", "head", "head/base", "floor"
		for (nu in names) { split(nu, f, SUBSEP); line[nu] = f[1] SUBSEP f[2] }
		cmd = "sort -V"
		for (nu in names) {
			split(nu, f, SUBSEP); b = med[f[1], "base", f[2]]; h = med[f[1], "head", f[2]]; fl = med[f[1], "floor", f[2]]
			printf "%-56s %10.4g %10.4g %10.3f %10s\n", f[1] " " f[2], b, h, (b ? h / b : 0), (fl == "" ? "-" : sprintf("%.4g", fl)) | cmd
		}
		close(cmd)
		print ""
		print "BenchmarkSchedPointThreads, ratio of the medians (goal: 1000/2 <= 1.3)"
		printf "%-8s %-10s %10s %10s\n", "arm", "unit", "1000/2", "1000/10"
		split("base head floor", arms, " ")
		split("ns/op cpu-ns/op", units, " ")
		for (a = 1; a <= 3; a++) for (u = 1; u <= 2; u++) {
			s = "BenchmarkSchedPointThreads/threads="; m = med[s "1000", arms[a], units[u]]
			printf "%-8s %-10s %10.3f %10.3f\n", arms[a], units[u], m / med[s "2", arms[a], units[u]], m / med[s "10", arms[a], units[u]]
		}
	}' "$1"
}
{
	"$root/bench/header.sh" "$0" "$@"
	echo "base: sim/ at $base"
	for i in $(seq "$rounds"); do
		case $((i % 3)) in
		1) arms="base head floor" ;;
		2) arms="head floor base" ;;
		0) arms="floor base head" ;;
		esac
		for a in $arms; do
			run "$a" -test.bench '^BenchmarkSchedPointThreads$'
			[ "$a" = floor ] || run "$a" -test.bench '^BenchmarkTimedWakeRatio$' -test.benchtime 10x
		done
	done
} >"$out.tmp"
mv "$out.tmp" "$out"
{
	"$root/bench/header.sh" "$0" "$@"
	summarize "$out"
} >"$out.summary"
