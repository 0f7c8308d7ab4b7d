#!/bin/bash
# usage: surv.sh VARIANT [ROUNDS]  — promoted/allocated per count, from --trace-gc-nvp
v=$1; r=${2:-3}; d=/work/exp/s-$v; rm -rf $d; mkdir -p $d
cd /work/main
if [ "$v" = "built" ]; then extra=""; else extra="--variant $v"; fi
BENCH_STDOUT_DIR=$d BENCH_NODE=/work/node24/bin/node timeout 1500 node dist/bench/gc.js gateway-redis list --rounds $r --flags "--trace-gc-nvp" $extra > $d/gc.out 2>&1
grep "^round" $d/gc.out | sed -E 's/.*(GC [0-9.]+ µs\/req, CPU [0-9.]+).*threads (main [0-9.]+, V8Worker [0-9.]+).*/\1 \2/' | sed "s/^/$v: /"
for f in $d/gateway-*.log; do grep "gc=s" $f | awk -v v=$v '{match($0,/\[([0-9]+):/,a); match($0,/promoted=([0-9]+)/,p); match($0,/allocated=([0-9]+)/,s); if (!(a[1] in n)) order[++k]=a[1]; n[a[1]]++; P[a[1]]+=p[1]; S[a[1]]+=s[1]} END {for (i=1;i<=k;i++) {x=order[i]; printf "%s: pid %s promoted/allocated %.3f (%d scavenges)\n", v, x, P[x]/S[x], n[x]}}'; done
