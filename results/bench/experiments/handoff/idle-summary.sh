#!/bin/sh
# idle-summary.sh DIR: per env x design x pipelines, each side's cpu-%
# (percent of one core), context switches per firing and p50 over its
# rounds (old: runs 1 and 4, new: 2 and 3; the median of two is their mean),
# the JDK peer's (all four sweeps) beside them. Renders idle-summary.md.
cd "$1"
for f in idle-*-go.txt idle-*-jdk.txt; do
	side=${f#idle-}; side=${side%%-*}
	grep '^Benchmark' "$f" | sed "s/^/$side /"
done | awk '
{
	side = $1; split($2, a, "/"); en = substr(a[2], 5); d = substr(a[3], 8); p = substr(a[4], 11)
	if (en == "jdk") side = "jdk"
	for (i = 3; i < NF; i++) {
		if ($(i+1) == "cpu-%") c = $i
		if ($(i+1) == "firings/s") fs = $i
		if ($(i+1) == "ctxsw/s") cs = $i
		if ($(i+1) == "p50-ns") q = $i
	}
	k = en SUBSEP d SUBSEP p SUBSEP side
	if (side == "jdk") { for (e in envs) ; k = "jdk" SUBSEP d SUBSEP p SUBSEP side }
	n[k]++; C[k] += c; S[k] += cs / fs; Q[k] += q
	if (en != "jdk") envs[en] = 1
	cells[d SUBSEP p] = 1
}
function avg(arr, k) { return n[k] ? arr[k] / n[k] : -1 }
function f2(x) { return x < 0 ? "–" : sprintf("%.2f", x) }
function f1(x) { return x < 0 ? "–" : sprintf("%.1f", x) }
END {
	print "| env | design | pipelines | cpu-% old · new · JDK | new/old | ctxsw/firing old · new · JDK | p50 µs old · new |"
	print "|---|---|---|---|---|---|---|"
	split("precise precise1", es, " "); split("shared shared-inline", ds, " "); split("100 500", ps, " ")
	for (i = 1; i <= 2; i++) for (j = 1; j <= 2; j++) for (l = 1; l <= 2; l++) {
		e = es[i]; d = ds[j]; p = ps[l]
		o = e SUBSEP d SUBSEP p SUBSEP "old"; w = e SUBSEP d SUBSEP p SUBSEP "new"; jk = "jdk" SUBSEP d SUBSEP p SUBSEP "jdk"
		printf "| %s | %s | %s | %s · %s · %s | %s | %s · %s · %s | %s · %s |\n", e, d, p,
			f2(avg(C, o)), f2(avg(C, w)), f2(avg(C, jk)), (avg(C, o) > 0 ? sprintf("%.2f", avg(C, w) / avg(C, o)) : "–"),
			f1(avg(S, o)), f1(avg(S, w)), f1(avg(S, jk)), f1(avg(Q, o) / 1000), f1(avg(Q, w) / 1000)
	}
}'
