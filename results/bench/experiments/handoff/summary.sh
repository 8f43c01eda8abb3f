#!/bin/sh
# summary.sh AB.TXT: per design x pipelines x Ps, the median over rounds of
# CPU per firing (µs), p50, hop p50 (fired to body start) and p99 (µs) and
# context switches per firing of each side (old, fd, new), the JDK peer's
# beside them (its own threads, the same CPUs), and the new/old and new/JDK
# CPU ratios. Renders summary.md's table.
awk '
/^#/ { next }
{
	side = $1; name = $2
	n = split(name, a, "/")
	d = substr(a[2], 8); p = a[3]; sub(/^pipelines=/, "", p)
	procs = 1
	if (p ~ /-[0-9]+$/) { procs = p; sub(/^.*-/, "", procs); sub(/-[0-9]+$/, "", p) }
	if (side == "jdk") procs = "jdk"
	for (i = 4; i < NF; i += 2) {
		if ($(i+1) == "cpu-ns/op") cpu = $i
		if ($(i+1) == "p50-ns") p50 = $i
		if ($(i+1) == "hop-p50-ns") hop = $i
		if ($(i+1) == "ctxsw/op") sw = $i
		if ($(i+1) == "p99-ns") p99 = $i
	}
	k = d SUBSEP p SUBSEP procs SUBSEP side
	nc[k]++; C[k, nc[k]] = cpu; P[k, nc[k]] = p50; H[k, nc[k]] = hop; S[k, nc[k]] = sw; Q[k, nc[k]] = p99
	cells[d SUBSEP p] = 1
}
function med(arr, k, n,   i, j, t, v) {
	for (i = 1; i <= n; i++) v[i] = arr[k, i]
	for (i = 2; i <= n; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j+1] = v[j]; v[j+1] = t }
	return n % 2 ? v[(n+1)/2] : (v[n/2] + v[n/2+1]) / 2
}
function m(arr, d, p, procs, side,   k) { k = d SUBSEP p SUBSEP procs SUBSEP side; return nc[k] ? med(arr, k, nc[k]) : -1 }
function us(x) { return x < 0 ? "–" : sprintf("%.0f", x / 1000) }
function us1(x) { return x < 0 ? "–" : sprintf("%.1f", x / 1000) }
function sw1(x) { return x < 0 ? "–" : sprintf("%.1f", x) }
function rt(a, b) { return (a < 0 || b <= 0) ? "–" : sprintf("%.2f", a / b) }
function fmt(x, f) { return f == "us" ? us(x) : f == "us1" ? us1(x) : sw1(x) }
function row(arr, d, p, q, f) { return fmt(m(arr, d, p, q, "old"), f) " · " fmt(m(arr, d, p, q, "fd"), f) " · " fmt(m(arr, d, p, q, "new"), f) " · " fmt(m(arr, d, p, "jdk", "jdk"), f) }
END {
	print "| design | pipelines | Ps | CPU/firing µs old · fd · new · JDK | p50 µs old · fd · new · JDK | hop p50 µs old · fd · new · JDK | p99 µs old · fd · new · JDK | ctxsw/firing old · fd · new · JDK | new/old CPU | new/JDK CPU |"
	print "|---|---|---|---|---|---|---|---|---|---|"
	split("shared per-pipeline shared-inline leader-follower", ds, " ")
	split("10 500", ps, " ")
	for (i = 1; i <= 4; i++) for (j = 1; j <= 2; j++) for (q = 2; q >= 1; q--) {
		d = ds[i]; p = ps[j]
		if (!((d SUBSEP p) in cells)) continue
		o = m(C, d, p, q, "old"); nw = m(C, d, p, q, "new"); jc = m(C, d, p, "jdk", "jdk")
		printf "| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s |\n", d, p, q,
			row(C, d, p, q, "us"), row(P, d, p, q, "us1"), row(H, d, p, q, "us1"), row(Q, d, p, q, "us"), row(S, d, p, q, "sw1"),
			rt(nw, o), rt(nw, jc)
	}
}' "$@"
