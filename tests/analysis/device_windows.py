#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Independent check of the device-side step accounting (analysis/core/stepclock.h) over a raw Kineto trace.

Usage: python3 tests/analysis/device_windows.py tests/data/torch/FIXTURE.json.gz

Reads the JSON itself (ts/dur as Decimal us -> ns, rounded half up, + baseTimeNanoseconds): host steps =
ProfilerStep#N that are not gpu_user_annotation; device work = cat kernel (communication when the name holds
nccl/rccl), gpu_memcpy, gpu_memset; a step's device window = device operations whose runtime/driver call (same
args.correlation) starts in its host step, widened to its gpu_user_annotation ProfilerStep#N. Analysis windows:
start(N) = max(host start(N), min(D(N-1), device start(N))), end(N) = min(start(N+1), max(host end(N), D(N))).
Prints the device summary over the analysis windows and the per-step breakdown (compute > communication > copy >
dataloader, the rest idle). tst_breakdown pins what it prints.
"""
import gzip, json, sys
from decimal import Decimal, ROUND_HALF_UP
def ns(x): return int((Decimal(x) * 1000).quantize(Decimal(1), rounding=ROUND_HALF_UP))
def union(iv):
    out = []
    for s, e in sorted(iv):
        if out and s <= out[-1][1]: out[-1][1] = max(out[-1][1], e)
        else: out.append([s, e])
    return out
def inter(a, b):
    i = j = 0; out = []
    while i < len(a) and j < len(b):
        s = max(a[i][0], b[j][0]); e = min(a[i][1], b[j][1])
        if s < e: out.append([s, e])
        if a[i][1] < b[j][1]: i += 1
        else: j += 1
    return out
def length(u): return sum(e - s for s, e in u)
p = sys.argv[1]
with gzip.open(p, 'rt') as f: d = json.load(f, parse_float=Decimal)
base = int(d.get('baseTimeNanoseconds', 0)) if isinstance(d, dict) else 0
ev = d['traceEvents']
steps, kern, copy, ann, launch, comm, loader = [], [], [], {}, {}, [], []
devops = []
for e in ev:
    if e.get('ph') != 'X': continue
    n, c = e.get('name', ''), e.get('cat', '')
    ts = ns(e['ts']) + base; du = ns(e.get('dur', 0)); te = ts + du
    corr = e.get('args', {}).get('correlation')
    if n.startswith('ProfilerStep#'):
        (ann.setdefault(int(n[13:]), []) if c == 'gpu_user_annotation' else steps).append((int(n[13:]), ts, te) if c != 'gpu_user_annotation' else (ts, te))
    elif n.startswith('enumerate(DataLoader)') and du > 0:
        loader.append((ts, te))
    elif c in ('kernel', 'gpu_memcpy', 'gpu_memset') and du > 0:
        if c == 'kernel' and ('nccl' in n.lower() or 'rccl' in n.lower()): comm.append((ts, te))
        else: (kern if c == 'kernel' else copy).append((ts, te))
        devops.append((ts, te, corr))
    elif c in ('cuda_runtime', 'cuda_driver') and corr is not None:
        launch[corr] = ts
steps.sort(key=lambda s: s[1])
host = [(s, e) for _, s, e in steps]
dev = [None] * len(steps)
for s, e, corr in devops:
    t = launch.get(corr)
    if t is None: continue
    for i, (a, b) in enumerate(host):
        if a <= t < b:
            dev[i] = (min(dev[i][0], s), max(dev[i][1], e)) if dev[i] else (s, e)
for i, (num, _, _) in enumerate(steps):
    for s, e in ann.get(num, []):
        dev[i] = (min(dev[i][0], s), max(dev[i][1], e)) if dev[i] else (s, e)
# analysis windows: a(N) = max(host start, min(D(N-1), dev start N)); end = min(a(N+1), max(host end, D(N)))
NEG = -(1 << 80)
starts, D = [], NEG
for i, (a, b) in enumerate(host):
    earlier = D
    if dev[i] and earlier != NEG: earlier = min(earlier, dev[i][0])
    starts.append(max(a, earlier))
    if dev[i]: D = max(D, dev[i][1])
wins, D, floor = [], NEG, starts[0]
for i, (a, b) in enumerate(host):
    if dev[i]: D = max(D, dev[i][1])
    s = max(starts[i], floor); e = max(s, b, D)
    if i + 1 < len(host): e = min(e, max(s, starts[i + 1]))
    wins.append((s, e)); floor = e
K, C, M, L = union(kern), union(copy), union(comm), union(loader)
busy = union(K + C + M)
W = union(wins)
Kw, Mw, Cw, Bw = inter(K, W), inter(M, W), inter(C, W), inter(busy, W)
an = sum(e - s for s, e in wins)
ov = length(inter(Mw, Kw))
print('summary window', an, 'busy', length(Bw), 'compute', length(Kw), 'comm', length(Mw), 'exposed', length(Mw) - ov,
      'copy', length(Cw), 'idle', an - length(Bw), 'overlap', ov / length(Mw) if Mw else None)
print(p.split('/')[-1], 'device busy total', length(busy), 'in host windows', length(inter(busy, union(host))),
      'in analysis windows', length(inter(busy, union(wins))), 'analysed', sum(e - s for s, e in wins))
for i, (num, a, b) in enumerate(steps):
    w = [list(wins[i])]
    cov = []; sh = []
    for cls in (K, M, C, L):
        before = length(cov); cov = union(cov + inter(cls, w)); sh.append(length(cov) - before)
    dur = wins[i][1] - wins[i][0]; b_ = length(inter(busy, w))
    print(f'  step {num} host [{a}, {b}) device {dev[i]} window [{wins[i][0]}, {wins[i][1]}) dur {dur}'
          f' compute {sh[0]} comm {sh[1]} copy {sh[2]} dataloader {sh[3]} idle {dur - length(cov)} busy {b_}')
