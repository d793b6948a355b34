#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Independent figures for tests/analysis/tst_rknnadvisor.cpp, straight from an RKNN perf table (toolkit2 ≥ 1.6 /
# rknpu2 layout, or the v1 `Layer ID  Name  Operator  Uid  Time(us)` one), by the formulas of docs/analysis.md "RKNN":
#   rknn_advisor_figures.py TABLE [CORES]
#   rknn_advisor_figures.py --expect EXPECTED TABLE [CORES]   (ctest: the output must equal EXPECTED's text)
# CORES: the run's core count when the table has no WorkLoad column (the chip's). All times in ns.
# memory_bound: a layer taking more than twice the median of its twins (same op type, shapes and DDR/NPU cycles)
# counts the twins' median as its time. fix_all: per layer, each kind's saving s_k of its time t leaves
# t * prod(1 - s_k / t) (exact fractions, rounded half up), summed over the frame: the layers' best case.
import io, re, statistics, sys
from fractions import Fraction
expect = None
if sys.argv[1] == '--expect':
    expect = open(sys.argv[2]).read()
    del sys.argv[1:3]
    sys.stdout = io.StringIO()
path = sys.argv[1]
lines = open(path).read().splitlines()
hdr = next(i for i, l in enumerate(lines) if 'Time(us)' in l)
head = lines[hdr]
v1 = head.startswith('Layer ID')
rows = []
for l in lines[hdr + 1:]:
    if not l.strip() or l.startswith('-') or l.startswith('='):
        if rows: break
        continue
    t = l.split()
    if v1:
        rows.append(dict(id=int(t[0]), op=t[2], target='NPU', t=int(t[4]) * 1000))
    else:
        rows.append(dict(id=int(t[0]), op=t[1], target=t[3], inshape=t[4], outshape=t[5],
                         cyc=[int(x) for x in t[6].split('/')],
                         t=int(t[7]) * 1000, mac=t[8], wl=[float(x.rstrip('%')) for x in t[9].split('/')]))
frame = sum(r['t'] for r in rows)
npu = [r for r in rows if r['target'] == 'NPU']
def ok_wl(r): return 'wl' in r and all(0 <= w <= 100 for w in r['wl']) and abs(sum(r['wl']) - 100) <= 1.5
def ok_cyc(r):
    d, n, tot = r['cyc']; return 0 <= d <= 1e13 and 0 <= n <= 1e13 and tot == max(d, n) and tot > 0
movement = {'split','concat','reshape','transpose','resize','slice','stridedslice','permute','tensortrans','flatten',
            'squeeze','unsqueeze','upsample','depthtospace','spacetodepth','pixelshuffle'}
def moves(op): return re.sub('[^a-z]', '', op.lower()) in movement
widest = max([sum(1 for w in r['wl'] if w > 0) for r in npu if ok_wl(r)] or [0])
cores = widest if widest else int(sys.argv[2]) if len(sys.argv) > 2 else 1
busy = [0.0] * max(cores, 3 if widest else 1)
for r in npu:
    if ok_wl(r):
        top = max(r['wl'])
        for c, w in enumerate(r['wl']):
            if w > 0: busy[c] += round(r['t'] * w / top)
    else: busy[0] += r['t']
print('frame_ns', frame, 'cores', cores, 'core_busy_ns', busy, 'npu_core_busy_fraction', sum(busy) / (cores * frame))
saved = {}  # layer id -> [saving of each kind that touches it]
def book(r, l): saved.setdefault(r['id'], []).append(l)
if widest > 1:
    lost = n = 0
    for r in npu:
        if not ok_wl(r): continue
        top = max(r['wl']); ran = sum(1 for w in r['wl'] if w > 0)
        if ran >= cores: continue
        l = r['t'] - round(r['t'] * sum(w / top for w in r['wl'] if w > 0) / cores)
        if l > 0: lost += l; n += 1; book(r, l)
    print('core_imbalance lost', lost, 'layers', n)
if not v1:
    ddr_bound = [r for r in npu if ok_cyc(r) and not moves(r['op']) and r['cyc'][0] > r['cyc'][1]]
    def twin(r): return (r['op'], r['inshape'], r['outshape'], r['cyc'][0], r['cyc'][1])
    outlier = 0
    def explained(r):
        global outlier
        others = [o['t'] for o in ddr_bound if o is not r and twin(o) == twin(r)]
        if others:
            others.sort(); k = len(others)
            typical = others[k // 2] if k % 2 else others[k // 2 - 1] + (others[k // 2] - others[k // 2 - 1]) // 2
            if r['t'] > 2 * typical: outlier += r['t'] - typical; return typical
        return r['t']
    mb = [(r, round(explained(r) * (r['cyc'][0] - r['cyc'][1]) / r['cyc'][0])) for r in ddr_bound]
    mb = [(r, l) for r, l in mb if l > 0]
    for r, l in mb: book(r, l)
    worst = max(mb, key=lambda x: x[1]) if mb else (dict(id=None), None)
    print('memory_bound lost', sum(l for _, l in mb), 'layers', len(mb), 'worst', worst[0]['id'], 'worst_lost', worst[1],
          'outlier_ns', outlier)
    def mac(r):
        if r['mac'] == '\\': return None
        v = [float(x) for x in r['mac'].split('/')]
        ran = [c for c, w in enumerate(r['wl']) if w > 0] if ok_wl(r) else [c for c, x in enumerate(v) if x > 0 or c == 0]
        return sum(v[c] for c in ran) / len(ran)
    convs = [(r, mac(r)) for r in npu if r['op'].startswith('Conv') and mac(r) is not None]
    med = statistics.median([m for _, m in convs])
    low = [(r, round(r['t'] * (1 - m / med))) for r, m in convs if m < med / 4 and not (ok_cyc(r) and r['cyc'][0] > r['cyc'][1])]
    low = [(r, l) for r, l in low if l > 0]
    for r, l in low: book(r, l)
    print('median_mac', med, 'low_mac_usage lost', sum(l for _, l in low), 'layers', [r['id'] for r, _ in low])
dm = [r for r in npu if moves(r['op']) and r['t'] > 0]
for r in dm: book(r, r['t'])
print('data_movement lost', sum(r['t'] for r in dm), 'layers', len(dm), 'share', sum(r['t'] for r in dm) / frame)
fix = added = 0
for r in rows:
    if r['id'] not in saved: continue
    t = r['t']; left = Fraction(t)
    for s_k in saved[r['id']]:
        assert 0 <= s_k <= t, (r['id'], s_k, t)
        left *= 1 - Fraction(s_k, t)
    fix += t - int(left + Fraction(1, 2)); added += sum(saved[r['id']])
assert fix <= frame
print('fix_all', fix, 'of frame', frame, 'layers', len(saved), 'sum_of_kinds', added)
if expect is not None:
    got = sys.stdout.getvalue(); sys.stdout = sys.__stdout__
    print(got, end='')
    if got != expect: sys.exit('differs from the expected figures:\n' + expect)
