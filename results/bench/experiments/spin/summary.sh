#!/bin/sh
# summary.sh trigger FILE A B | summary.sh idle FILE A B [C]
#
# Renders a markdown table from an interleaved A/B file of this folder:
# each line "SIDE Benchmark... value unit ...", after a comment line
# "# side SIDE cpu N ..." (trigger: GOMAXPROCS) or "# side SIDE env E ..."
# (idle). A cell's figure is the median over its runs (rounds); the last
# line counts the cells where B (and C) is at or below A. Run from this
# folder; README.md says which output went where.
set -eu
kind=$1 file=$2
shift 2
awk -v kind="$kind" -v sides="$*" '
function med(s,  a,n,i,j,t){n=split(s,a," "); if(n==0)return "nan"; for(i=1;i<=n;i++)for(j=i+1;j<=n;j++)if(a[j]+0<a[i]+0){t=a[i];a[i]=a[j];a[j]=t} return (n%2)?a[(n+1)/2]:(a[n/2]+a[n/2+1])/2}
function us(x){if(x=="nan")return "–"; return (x>=1e6)?sprintf("%.1f ms",x/1e6):(x>=1e4)?sprintf("%.0f µs",x/1e3):sprintf("%.1f µs",x/1e3)}
function num(x,f){return (x=="nan")?"–":sprintf(f,x)}
/^# side/{for(i=1;i<=NF;i++){if($i=="cpu")p="GOMAXPROCS "$(i+1); if($i=="env")p=($(i+1)=="precise1")?"GOMAXPROCS 1":"GOMAXPROCS 2"}}
/Benchmark/{side=$1; name=$2; sub(/^Benchmark[A-Za-z]*\//,"",name); sub(/-[0-9]+$/,"",name); gsub(/design=|pipelines=|interval=|env=precise1?\//,"",name)
 k=p", "name; keys[k]=1; for(i=3;i<NF;i++) if($i ~ /^[-0-9.e+]+$/) v[side"|"k"|"$(i+1)]=v[side"|"k"|"$(i+1)]" "$i}
function f(s,k,m){return med(v[s"|"k"|"m])}
function cells(m,fmt,  s,o){o=""; for(s=1;s<=ns;s++){o=o (s>1?" / ":"") ((fmt=="us")?us(f(S[s],k,m)):num(f(S[s],k,m),fmt))} return o}
END{ns=split(sides,S," "); n=0; for(k in keys)ks[++n]=k
 for(i=1;i<=n;i++)for(j=i+1;j<=n;j++)if(ks[j]<ks[i]){t=ks[i];ks[i]=ks[j];ks[j]=t}
 hdr=S[1]; for(s=2;s<=ns;s++)hdr=hdr" / "S[s]
 if(kind=="trigger"){
  print "| cell | p50 ("hdr") | p99 | CPU per firing | spin per firing | over budget per firing | context switches per firing | lead at the end |"
  print "|---|---|---|---|---|---|---|---|"
  for(i=1;i<=n;i++){k=ks[i]; printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", k, cells("p50-ns","us"), cells("p99-ns","us"), cells("cpu-ns/op","us"), cells("spin-ns/op","us"), cells("over-budget/op","%.2f"), cells("ctxsw/op","%.1f"), cells("lead-ns","us")}
  for(s=2;s<=ns;s++){c=0;r="";q=0;p5=0;p5a=0; for(i=1;i<=n;i++){k=ks[i]; a=f(S[1],k,"cpu-ns/op"); b=f(S[s],k,"cpu-ns/op"); if(b<=a)c++; r=r" "b/a; if(f(S[s],k,"p99-ns")<=f(S[1],k,"p99-ns"))q++; if(f(S[s],k,"p50-ns")<5000)p5++; if(f(S[1],k,"p50-ns")<5000)p5a++}
   printf "\n%s against %s, %d cells: CPU per firing at or below in %d (median ratio %.2f); p99 at or below in %d; p50 under 5 µs in %d (%s: %d).\n", S[s], S[1], n, c, med(r), q, p5, S[1], p5a}
 } else {
  print "| cell | CPU % of a core ("hdr") | spin % of a core | over budget % | p50 | p99 | context switches per firing |"
  print "|---|---|---|---|---|---|---|"
  for(i=1;i<=n;i++){k=ks[i]; o=""; for(s=1;s<=ns;s++){sw=f(S[s],k,"ctxsw/s"); fr=f(S[s],k,"firings/s"); o=o (s>1?" / ":"") ((sw=="nan"||fr=="nan")?"–":sprintf("%.1f",sw/fr))}
   printf "| %s | %s | %s | %s | %s | %s | %s |\n", k, cells("cpu-%","%.2f"), cells("spin-%","%.2f"), cells("over-budget-%","%.1f"), cells("p50-ns","us"), cells("p99-ns","us"), o}
  for(s=2;s<=ns;s++){c=0;r=""; for(i=1;i<=n;i++){k=ks[i]; a=f(S[1],k,"cpu-%"); b=f(S[s],k,"cpu-%"); if(b<=a)c++; r=r" "b/a}
   printf "\n%s against %s, %d cells: CPU %% of a core at or below in %d (median ratio %.2f).\n", S[s], S[1], n, c, med(r)}
 }}' "$file"
