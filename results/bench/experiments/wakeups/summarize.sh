#!/usr/bin/env bash
# Per firing, steady state: (count at N2 - count at N1) / (N2 - N1) for each run pair of
# run.sh's output, the median over rounds, per cell and side. Usage: summarize.sh [out.txt]
set -euo pipefail
f=${1:-$(dirname "$0")/wakeups.txt}
awk '
function kv(s,   a) { split(s, a, "="); return a[2] }
{ side=kv($1); d=kv($2); p=kv($3); n=kv($4); cs=kv($5); mig=kv($6); sc=kv($7); tc=kv($8)
  key=d " " p " " side
  if (!(key in n1)) { n1[key]=n; c1[key]=cs; m1[key]=mig; s1[key]=sc; t1[key]=tc; next }
  dn=n-n1[key]; k=++runs[key]
  CS[key,k]=(cs-c1[key])/dn; SC[key,k]=(sc-s1[key])/dn; TC[key,k]=(tc-t1[key])*1000/dn
  # the own figures of the longer run, absent before they were recorded
  P50[key,k]=($10 ~ /^p50-ns=[0-9]/) ? kv($10) : -1; P99[key,k]=($11 ~ /^p99-ns=[0-9]/) ? kv($11) : -1
  CPU[key,k]=($12 ~ /^cpu-ns\/op=[0-9]/) ? kv($12) : -1
  delete n1[key]
  if (!(d " " p in seen)) { seen[d " " p]=1; cells[++nc]=d " " p }
}
function us(A, key, k, prec,   v) { v=med(A, key, k); return (v < 0) ? "–" : sprintf("%." prec "f", v/1000) }
function med(A, key, k,   i, j, t, v) {
  for (i=1; i<=k; i++) v[i]=A[key,i]
  for (i=1; i<=k; i++) for (j=i+1; j<=k; j++) if (v[j]<v[i]) { t=v[i]; v[i]=v[j]; v[j]=t }
  return (k%2) ? v[(k+1)/2] : (v[k/2]+v[k/2+1])/2
}
END {
  print "| design | pipelines | side | context switches per firing | system calls per firing | task-clock per firing (µs) | CPU per firing, benchmark (µs) | p50 (µs) | p99 (µs) | rounds |"
  print "|---|---|---|---|---|---|---|---|---|---|"
  ns=split("precise precise1 hold poll poll1 wall wall1 jdk", sides, " ")
  for (c=1; c<=nc; c++) for (s=1; s<=ns; s++) {
    side=sides[s]; key=cells[c] " " side; k=runs[key]
    if (!k) continue
    split(cells[c], dp, " ")
    printf "| %s | %s | %s | %.1f | %.1f | %.0f | %s | %s | %s | %d |\n", dp[1], dp[2], side, med(CS,key,k), med(SC,key,k), med(TC,key,k), us(CPU,key,k,0), us(P50,key,k,1), us(P99,key,k,0), k
  }
}' "$f"
