#!/usr/bin/env bash
# Per cell and side of run.sh's output: CPU % of a core and context switches per firing, the
# median over rounds with the lowest and highest beside it, and each figure's spread (highest
# over lowest); then, per side of ours, the cells at or below the JDK peer on each median.
# Usage: summarize.sh [out.txt]
set -euo pipefail
f=${1:-$(dirname "$0")/idle-switches.txt}
awk '
function kv(s,   a) { split(s, a, "="); return a[2] }
/^side=/ {
  side=kv($1); name=$4
  split(name, parts, "/"); d=kv(parts[3]); p=kv(parts[4]); iv=kv(parts[5]); sub(/-[0-9]+$/, "", iv)
  for (i=5; i<NF; i++) v[$(i+1)]=$i
  cell=d " " p " " iv; key=cell " " side; k=++runs[key]
  CPU[key,k]=v["cpu-%"]; SW[key,k]=v["ctxsw/s"]/v["firings/s"]
  if (!(cell in seen)) { seen[cell]=1; cells[++nc]=cell }
  if (!(side in sseen)) { sseen[side]=1; sides[++ns]=side }
}
function med(A, key, k,   i, j, t, x) {
  for (i=1; i<=k; i++) x[i]=A[key,i]
  for (i=1; i<=k; i++) for (j=i+1; j<=k; j++) if (x[j]<x[i]) { t=x[i]; x[i]=x[j]; x[j]=t }
  lo=x[1]; hi=x[k]
  return (k%2) ? x[(k+1)/2] : (x[k/2]+x[k/2+1])/2
}
END {
  print "| design | pipelines | interval | side | CPU % of a core, median (lowest-highest) | CPU spread | context switches per firing, median (lowest-highest) | switches spread | rounds |"
  print "|---|---|---|---|---|---|---|---|---|"
  for (c=1; c<=nc; c++) for (s=1; s<=ns; s++) {
    key=cells[c] " " sides[s]; k=runs[key]
    if (!k) continue
    split(cells[c], x, " ")
    mc=med(CPU, key, k); cl=lo; ch=hi; MC[key]=mc
    ms=med(SW, key, k); sl=lo; sh=hi; MS[key]=ms
    printf "| %s | %s | %s | %s | %.2f (%.2f-%.2f) | %.2fx | %.2f (%.2f-%.2f) | %.2fx | %d |\n", x[1], x[2], x[3], sides[s], mc, cl, ch, (cl > 0 ? ch/cl : 0), ms, sl, sh, (sl > 0 ? sh/sl : 0), k
  }
  print ""
  print "| side | cells at or below the JDK peer, CPU median | cells at or below the JDK peer, switches per firing median | median CPU spread | median switches spread |"
  print "|---|---|---|---|---|"
  for (s=1; s<=ns; s++) {
    side=sides[s]; if (side == "jdk") continue
    n=0; okc=0; oks=0; delete sc; delete ss
    for (c=1; c<=nc; c++) {
      key=cells[c] " " side; j=cells[c] " jdk"
      if (!(key in MC) || !(j in MC)) continue
      n++; okc+=(MC[key] <= MC[j]); oks+=(MS[key] <= MS[j])
    }
    m=0
    for (c=1; c<=nc; c++) { key=cells[c] " " side; k=runs[key]; if (!k) continue
      med(CPU, key, k); sc[++m]=(lo > 0 ? hi/lo : 0); med(SW, key, k); ss[m]=(lo > 0 ? hi/lo : 0) }
    for (c=1; c<=m; c++) { SC["x",c]=sc[c]; SS["x",c]=ss[c] }
    printf "| %s | %d of %d | %d of %d | %.2fx | %.2fx |\n", side, okc, n, oks, n, med(SC, "x", m), med(SS, "x", m)
  }
  # the JDK spread too
  m=0; for (c=1; c<=nc; c++) { key=cells[c] " jdk"; k=runs[key]; if (!k) continue
    med(CPU, key, k); SC["y",++m]=(lo > 0 ? hi/lo : 0); med(SW, key, k); SS["y",m]=(lo > 0 ? hi/lo : 0) }
  if (m) printf "| jdk | – | – | %.2fx | %.2fx |\n", med(SC, "y", m), med(SS, "y", m)
}' "$f"
