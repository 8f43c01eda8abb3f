#!/bin/sh
# summarize.sh [wake-floor.txt]: per side and period, CPU (task-clock) and
# context switches per wake over the N2-N1 extra wakes of each round's pair,
# the median over rounds, and the lateness p50 of the N2 runs (median).
f=${1:-results/bench/experiments/wake-floor/wake-floor.txt}
awk '
function val(k,   i, a) { for (i = 1; i <= NF; i++) { split($i, a, "="); if (a[1] == k) return a[2] } return "" }
function med(s,   a, n, i, j, t) { n = split(s, a, " "); for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t } return a[int((n + 1) / 2)] }
/^round=/ {
	k = val("side") SUBSEP val("period"); r = val("round"); n = val("n") + 0
	if (!(k in seen)) { seen[k] = 1; order[++no] = k }
	tc[k, r, n] = val("task-clock-ms"); cs[k, r, n] = val("ctxsw"); ns[k, r] = ns[k, r] " " n
	if (n > hi[k, r]) { hi[k, r] = n; lp[k, r] = val("late-p50") }
	rounds[k] = rounds[k] " " r
}
END {
	print "| period | side | CPU per wake (µs) | context switches per wake | lateness p50 | rounds |"
	print "|---|---|---|---|---|---|"
	for (o = 1; o <= no; o++) {
		k = order[o]; split(k, kk, SUBSEP); cpu = ""; sw = ""; lat = ""; nr = 0; delete done
		m = split(rounds[k], rr, " ")
		for (i = 1; i <= m; i++) {
			r = rr[i]; if (r in done) continue; done[r] = 1
			split(ns[k, r], nn, " "); a = nn[1] + 0; b = nn[2] + 0; if (a > b) { t = a; a = b; b = t }
			cpu = cpu " " (tc[k, r, b] - tc[k, r, a]) * 1000 / (b - a)
			sw = sw " " (cs[k, r, b] - cs[k, r, a]) / (b - a)
			lat = lat " " lp[k, r]; nr++
		}
		printf "| %s | %s | %.1f | %.2f | %s | %d |\n", kk[2], kk[1], med(cpu), med(sw), med(lat), nr
	}
}' "$f"
