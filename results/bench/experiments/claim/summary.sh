#!/bin/sh
# summary.sh AB.TXT: per design x pipelines x Ps, the median over rounds of
# CPU per firing (µs), p50, timer-late p50, hop p50 (fired to body start),
# p99 (µs) and context switches per firing of each side (old, new), the JDK
# peer's beside them (its own threads, the same CPUs), and the new/old and
# new/JDK CPU ratios. Renders summary.md's table.
awk '
/^#/ { next }
{
	side = $1; name = $2
	n = split(name, a, "/")
	d = substr(a[2], 8); p = a[3]; sub(/^pipelines=/, "", p)
	procs = 1
	if (p ~ /-[0-9]+$/) { procs = p; sub(/^.*-/, "", procs); sub(/-[0-9]+$/, "", p) }
	if (side == "jdk") procs = "jdk"
	cpu = p50 = late = hop = sw = p99 = -1
	for (i = 4; i < NF; i += 2) {
		if ($(i+1) == "cpu-ns/op") cpu = $i
		if ($(i+1) == "p50-ns") p50 = $i
		if ($(i+1) == "timer-late-p50-ns") late = $i
		if ($(i+1) == "hop-p50-ns") hop = $i
		if ($(i+1) == "ctxsw/op") sw = $i
		if ($(i+1) == "p99-ns") p99 = $i
	}
	k = d SUBSEP p SUBSEP procs SUBSEP side
	nc[k]++; C[k, nc[k]] = cpu; P[k, nc[k]] = p50; L[k, nc[k]] = late; H[k, nc[k]] = hop; S[k, nc[k]] = sw; Q[k, nc[k]] = p99
	if (!((d, p) in seen)) { seen[d, p] = 1; order[++ncell] = d SUBSEP p }
}
function med(arr, k, n,   i, j, t, v) {
	for (i = 1; i <= n; i++) v[i] = arr[k, i]
	for (i = 2; i <= n; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j+1] = v[j]; v[j+1] = t }
	return n % 2 ? v[(n+1)/2] : (v[n/2] + v[n/2+1]) / 2
}
function m(arr, d, p, procs, side,   k) { k = d SUBSEP p SUBSEP procs SUBSEP side; return nc[k] ? med(arr, k, nc[k]) : -1 }
function f(x, digits) { return x < 0 ? "–" : sprintf("%." digits "f", x) }
function us(x, digits) { return x < 0 ? "–" : f(x / 1000, digits) }
function rt(a, b) { return (a < 0 || b <= 0) ? "–" : sprintf("%.2f", a / b) }
function row3(arr, d, p, q, digits, scale) {
	if (scale) return us(m(arr, d, p, q, "old"), digits) " · " us(m(arr, d, p, q, "new"), digits) " · " us(m(arr, d, p, "jdk", "jdk"), digits)
	return f(m(arr, d, p, q, "old"), digits) " · " f(m(arr, d, p, q, "new"), digits) " · " f(m(arr, d, p, "jdk", "jdk"), digits)
}
END {
	print "| design | pipelines | Ps | CPU/firing µs old · new · JDK | p50 µs old · new · JDK | timer late p50 µs old · new · JDK | hop p50 µs old · new · JDK | p99 µs old · new · JDK | ctxsw/firing old · new · JDK | new/old CPU | new/JDK CPU | rounds |"
	print "|---|---|---|---|---|---|---|---|---|---|---|---|"
	for (c = 1; c <= ncell; c++) {
		split(order[c], dp, SUBSEP); d = dp[1]; p = dp[2]
		for (q = 2; q >= 1; q--) {
			k = d SUBSEP p SUBSEP q SUBSEP "new"
			printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d |\n", d, p, q,
				row3(C, d, p, q, 0, 1), row3(P, d, p, q, 1, 1), row3(L, d, p, q, 1, 1), row3(H, d, p, q, 1, 1), row3(Q, d, p, q, 0, 1), row3(S, d, p, q, 1, 0),
				rt(m(C, d, p, q, "new"), m(C, d, p, q, "old")), rt(m(C, d, p, q, "new"), m(C, d, p, "jdk", "jdk")), nc[k]
		}
	}
}' "$1"
