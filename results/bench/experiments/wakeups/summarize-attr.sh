#!/usr/bin/env bash
# Per firing, steady state, by cause: (count at N2 - count at N1) / (N2 - N1) for each run pair of
# attribute.sh's output, the median over rounds; one table of switches and one of wake-ups made from
# a Go stack, causes as rows and cell/side as columns. Usage: summarize-attr.sh [attr.txt]
set -euo pipefail
f=${1:-$(dirname "$0")/attr.txt}
awk '
function kv(s,   a) { split(s, a, "="); return a[2] }
{
  side=kv($1); d=kv($2); p=kv($3); n=kv($4); col=d "/" p " " side
  if (!(col in seen)) { seen[col]=1; cols[++nc]=col }
  delete cur
  for (i=5; i<=NF; i++) { split($i, a, "="); cur[a[1]]=a[2]; if (!(a[1] in isc)) { isc[a[1]]=1; causes[++ncause]=a[1] } }
  if (!(col in n1)) { n1[col]=n; for (c in cur) first[col, c]=cur[c]; firstset[col]=1; next }
  dn=n-n1[col]; k=++runs[col]
  for (j=1; j<=ncause; j++) { c=causes[j]; V[col, c, k]=(cur[c]-first[col, c])/dn }
  delete n1[col]
  for (j=1; j<=ncause; j++) delete first[col, causes[j]]
}
function med(col, c, k,   i, j, t, v) {
  for (i=1; i<=k; i++) v[i]=V[col, c, i]+0
  for (i=1; i<=k; i++) for (j=i+1; j<=k; j++) if (v[j]<v[i]) { t=v[i]; v[i]=v[j]; v[j]=t }
  return (k%2) ? v[(k+1)/2] : (v[k/2]+v[k/2+1])/2
}
function table(prefix, title,   j, i, c, line, tot, col) {
  line="| " title " |"; for (i=1; i<=nc; i++) line=line " " cols[i] " |"; print line
  line="|---|"; for (i=1; i<=nc; i++) line=line "---|"; print line
  for (i=1; i<=nc; i++) tot[i]=0
  for (j=1; j<=ncause; j++) {
    c=causes[j]; if (index(c, prefix) != 1) continue
    line="| " substr(c, length(prefix)+1) " |"
    for (i=1; i<=nc; i++) { v=med(cols[i], c, runs[cols[i]]); tot[i]+=v; line=line sprintf(" %.2f |", v) }
    print line
  }
  line="| **total** |"; for (i=1; i<=nc; i++) line=line sprintf(" **%.2f** |", tot[i]); print line
  print ""
}
END {
  # causes in a fixed order, so that the tables do not depend on awk hash order
  for (i=1; i<=ncause; i++) for (j=i+1; j<=ncause; j++) if (causes[j] < causes[i]) { t=causes[i]; causes[i]=causes[j]; causes[j]=t }
  table("sw.", "switch out of a thread, by cause (per firing)")
  table("wk.", "wake-up made by a thread, by cause (per firing)")
}' "$f"
