#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Independent figures for tests/analysis/tst_explore.cpp, straight from a Kineto JSON file:
#   explore_figures.py ops FILE            per cpu_op name: calls, host µs, launched device µs, max µs
#   explore_figures.py range FILE A B      per name inside [A, B] µs: count, clipped total, self, max (ns)
import sys
import collections, gzip, json
mode = sys.argv.pop(1)
if mode == "ops":
    d=json.load(gzip.open(sys.argv[1]))
    ev=d['traceEvents'] if isinstance(d,dict) else d
    X=[e for e in ev if e.get('ph')=='X']
    ops=[e for e in X if e.get('cat')=='cpu_op']
    rt={e['args']['correlation']:e for e in X if e.get('cat')=='cuda_runtime' and 'correlation' in e.get('args',{})}
    dev=[e for e in X if e.get('cat') in ('kernel','gpu_memcpy','gpu_memset')]
    def contains(o,r): return o['pid']==r['pid'] and o['tid']==r['tid'] and o['ts']<=r['ts'] and r['ts']+r['dur']<=o['ts']+o['dur']
    host=collections.defaultdict(int); calls=collections.Counter(); devt=collections.defaultdict(int); mx=collections.defaultdict(int)
    for o in ops:
        calls[o['name']]+=1; mx[o['name']]=max(mx[o['name']],o['dur'])
        if not any(p is not o and p['name']==o['name'] and contains(p,o) and (p['dur']>o['dur'] or p['ts']<o['ts']) for p in ops): host[o['name']]+=o['dur']
    unatt=0
    for k in dev:
        r=rt.get(k['args'].get('correlation'))
        if r is None: continue
        names={o['name'] for o in ops if contains(o,r)}
        if not names: unatt+=k['dur']
        for n in names: devt[n]+=k['dur']
    top=sorted(host,key=lambda n:-host[n])[:5]
    for n in top: print('host',n,calls[n],host[n],devt[n],mx[n])
    for n in sorted(devt,key=lambda n:-devt[n])[:5]: print('dev',n,calls[n],host[n],devt[n])
    print('unattributed',unatt, 'total dev', sum(k['dur'] for k in dev))
else:
    d=json.load(gzip.open(sys.argv[1]))
    ev=d['traceEvents'] if isinstance(d,dict) else d
    a=int(sys.argv[2])*1000; b=int(sys.argv[3])*1000  # ns
    X=[e for e in ev if e.get('ph')=='X']
    def cl(e): return max(0,min(e['ts']*1000+e['dur']*1000,b)-max(e['ts']*1000,a))
    st=collections.defaultdict(lambda:[0,0,0,0])
    idx={id(e): n for n, e in enumerate(X)}
    host=[e for e in X if e.get('cat') in ('cpu_op','cuda_runtime','user_annotation','cuda_sync') and e['pid']!=0]
    for e in X:
        s,t=e['ts']*1000,(e['ts']+e['dur'])*1000
        if t< a or s> b or (t>s and (t==a or s==b)): continue
        c=cl(e); r=st[e['name']]; r[0]+=1; r[1]+=c; r[3]=max(r[3],c)
        # self: subtract direct children on the same thread
        if e in host:
            # k nests in e when e covers it; identical spans nest in file order (the first is the parent)
            kids=[k for k in host if k is not e and k['tid']==e['tid'] and k['ts']>=e['ts'] and k['ts']+k['dur']<=e['ts']+e['dur'] and (k['dur']<e['dur'] or k['ts']>e['ts'] or idx[id(k)]>idx[id(e)])]
            direct=[k for k in kids if not any(m is not k and m['ts']<=k['ts'] and k['ts']+k['dur']<=m['ts']+m['dur'] and (m['dur']>k['dur'] or m['ts']<k['ts'] or idx[id(m)]<idx[id(k)]) for m in kids)]
            r[2]+=c-sum(cl(k) for k in direct)
        else: r[2]+=c
    for n,r in sorted(st.items(),key=lambda x:-x[1][1])[:8]: print(repr(n[:40]),r)
    print('slices',sum(r[0] for r in st.values()),'total',sum(r[1] for r in st.values()))
