#!/bin/bash
# usage: hop429.sh NODE LABEL [FLAGS]
cd /work/main && cp dist/bench/express-hop-redis.js /tmp/ehr.js.orig && python3 - <<'PY'
p='/work/main/dist/bench/express-hop-redis.js'; s=open(p).read()
s=s.replace("redis.rlGatewayConsume(...args).then(() => next(), next);","redis.rlGatewayConsume(...args).then(() => { _res.statusCode = 429; _res.setHeader('Content-Type', 'application/json'); _res.setHeader('Content-Length', 2); _res.end('{}'); }, next);")
open(p,'w').write(s)
PY
d=/work/exp/s-$2; rm -rf $d; mkdir -p $d; BENCH_STDOUT_DIR=$d BENCH_NODE=$1 timeout 600 node dist/bench/gc.js express-hop-redis list --rounds 2 --flags "--trace-gc-nvp $3" > $d/gc.out 2>&1; cp /tmp/ehr.js.orig dist/bench/express-hop-redis.js
grep "^round" $d/gc.out | cut -c1-220
grep "gc=s" $d/express-hop-redis.log | awk '{match($0,/\[([0-9]+):/,a); match($0,/promoted=([0-9]+)/,p); match($0,/allocated=([0-9]+)/,s); if (!(a[1] in n)) order[++k]=a[1]; n[a[1]]++; P[a[1]]+=p[1]; S[a[1]]+=s[1]} END {for (i=1;i<=k;i++) {x=order[i]; printf "pid %s promoted/allocated %.3f (%d scavenges)\n", x, P[x]/S[x], n[x]}}'
