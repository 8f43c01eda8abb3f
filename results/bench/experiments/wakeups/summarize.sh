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
  P50[key,k]=($10 ~ /^p50-ns=[0-9]/) ? kv($10) : -1 # p50 of the longer run, absent before it was recorded
  delete n1[key]
  if (!(d " " p in seen)) { seen[d " " p]=1; cells[++nc]=d " " p }
}
function med(A, key, k,   i, j, t, v) {
  for (i=1; i<=k; i++) v[i]=A[key,i]
  for (i=1; i<=k; i++) for (j=i+1; j<=k; j++) if (v[j]<v[i]) { t=v[i]; v[i]=v[j]; v[j]=t }
  return (k%2) ? v[(k+1)/2] : (v[k/2]+v[k/2+1])/2
}
END {
  print "| design | pipelines | side | context switches per firing | system calls per firing | task-clock per firing (µs) | p50 (µs) | rounds |"
  print "|---|---|---|---|---|---|---|---|"
  ns=split("precise precise1 wall jdk", sides, " ")
  for (c=1; c<=nc; c++) for (s=1; s<=ns; s++) {
    side=sides[s]; key=cells[c] " " side; k=runs[key]
    if (!k) continue
    split(cells[c], dp, " ")
    p50=med(P50,key,k); p50s=(p50 < 0) ? "–" : sprintf("%.1f", p50/1000)
    printf "| %s | %s | %s | %.1f | %.1f | %.0f | %s | %d |\n", dp[1], dp[2], side, med(CS,key,k), med(SC,key,k), med(TC,key,k), p50s, k
  }
}' "$f"
