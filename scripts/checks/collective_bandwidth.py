#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Independent check of issue 50's collective bandwidth (docs/analysis.md "slow_link"), from the raw trace files only
# (standard library, no Timesink code), against what `timesink-cli analyze|job --format json` wrote.
#
#   kineto TRACE REPORT  NCCL kernels of a Kineto trace: bytes = max(In msg nelems, Out msg nelems) × dtype size from
#                        the kernel or its record_param_comms, else the larger of the first two tensors of the
#                        launching c10d:: call (Input Dims × Input type); group size = Group size, else the
#                        Process Group Ranks count; transfer = the shortest duration among the rank's kernels of
#                        the same operation, bytes and group size (waiting only lengthens one); busbw = algbw × 2(n−1)/n
#                        (all-reduce), (n−1)/n (all-gather, reduce-scatter, all-to-all), 1 (broadcast, reduce,
#                        send/recv); the link peak of the GPU name from a table of our own; the slow_link loss.
#   ascend DIR REPORT    communication.json of a torch_npu rank: per HCCL operation the transport of HCCS, RDMA,
#                        PCIE, SIO with the most Transit Size(MB); bytes = MB × 10^6, transit = ms × 10^6 ns; the
#                        tools' Bandwidth(GB/s) must equal MB / ms.
#   job JOB R0 R1 …      a job over Kineto ranks: per collective matched across ranks (same position among the
#                        rank's collectives of the step with the same operation), transfer = the shortest duration,
#                        bytes the largest the members give.
# Each mode prints its figures and exits 1 on the first disagreement.
import gzip, json, os, re, sys
from decimal import Decimal

MIB = 1 << 20
SLOW_SHARE = 0.25

def fail(msg):
    print('MISMATCH: ' + msg)
    sys.exit(1)

def load(path):
    opener = gzip.open if path.endswith('.gz') else open
    with opener(path, 'rt', encoding='utf-8') as f:
        return json.load(f)

def ns(us):
    return int((Decimal(str(us)) * 1000).to_integral_value())

def elem_bytes(t):
    t = (t or '').lower()
    if t.startswith('c10::'):
        t = t[5:]
    if 'float8' in t or t in ('byte', 'char', 'unsigned char', 'signed char', 'int8', 'uint8', 'bool'):
        return 1
    if t in ('half', 'bfloat16', 'short', 'short int', 'int16', 'float16'):
        return 2
    if t in ('float', 'int', 'int32', 'float32', 'uint32'):
        return 4
    if t in ('double', 'long', 'long int', 'long long int', 'int64', 'float64', 'complexfloat'):
        return 8
    return 0

def kind_of(name):
    s = re.sub(r'[_ -]', '', (name or '').lower())
    for p in ('nccl:', 'gloo:'):
        if s.startswith(p):
            s = s[len(p):]
    for k in ('reducescatter', 'allreduce', 'allgather', 'alltoall', 'broadcast', 'sendrecv', 'barrier', 'reduce',
              'send', 'recv'):
        if k in s:
            return k
    return ''

def factor(kind, n):
    if kind in ('broadcast', 'reduce', 'send', 'recv', 'sendrecv'):
        return 1.0
    if n is None or n < 1:
        return 0.0
    if kind == 'allreduce':
        return 2.0 * (n - 1) / n
    if kind in ('allgather', 'reducescatter', 'alltoall'):
        return (n - 1) / n
    return 0.0

# Our own link table (GB/s per direction): NVIDIA's bidirectional NVLink figure per GPU halved; PCIe x16.
def gpu_peak(name):
    n = (name or '').lower()
    pcie = 'pcie' in n
    rows = [('gb200', False, 'NVLink5', 900.0), ('b200', False, 'NVLink5', 900.0), ('b100', False, 'NVLink5', 900.0),
            ('h800', True, 'PCIe5 x16', 63.0), ('h800', False, 'NVLink4', 200.0), ('h100', True, 'PCIe5 x16', 63.0),
            ('h100', False, 'NVLink4', 450.0), ('h200', False, 'NVLink4', 450.0), ('h20', False, 'NVLink4', 450.0),
            ('a800', False, 'NVLink3', 200.0), ('a100', True, 'PCIe4 x16', 31.5), ('a100', False, 'NVLink3', 300.0),
            ('v100', True, 'PCIe3 x16', 15.75), ('v100', False, 'NVLink2', 150.0)]
    for match, board, link, gbps in rows:
        if match in n and board == pcie:
            return link, gbps
    return None, 0.0

def dims_counts(text):
    # "[[382132224], [419430400], [], []]" → first two element counts; a nested list (TensorList) ends it.
    if isinstance(text, str):
        try:
            text = json.loads(text)
        except ValueError:
            return []
    out = []
    for d in (text or [])[:2]:
        if not isinstance(d, list) or any(isinstance(x, list) for x in d):
            break
        p = 1
        for x in d:
            p *= int(x)
        out.append(p if d else 0)
    return out

def tensor_bytes(args):
    """The larger of a call's first two tensors (Input Dims × Input type), -1 when it lists none."""
    counts = dims_counts(args.get('Input Dims'))
    types = args.get('Input type') or []
    if isinstance(types, str):
        types = json.loads(types)
    best = -1
    for k, n in enumerate(counts):
        b = elem_bytes(types[k]) if k < len(types) else 0
        if n > 0 and b > 0:
            best = max(best, n * b)
    return best

def kineto_collectives(path):
    """Every NCCL kernel with its kind, bytes, group size, start and end (ns)."""
    d = load(path)
    base = int(d.get('baseTimeNanoseconds', 0) or 0)  # Kineto's µs are relative to it when it is given
    ev = [e for e in d.get('traceEvents', []) if isinstance(e, dict)]
    runtime = {}
    for e in ev:
        if e.get('cat') in ('cuda_runtime', 'cuda_driver') and e.get('ph') == 'X':
            c = (e.get('args') or {}).get('correlation')
            if c is not None:
                runtime[c] = e
    cpu = {}
    for e in ev:
        if e.get('cat') in ('cpu_op', 'user_annotation') and e.get('ph') == 'X':
            cpu.setdefault((e['pid'], e['tid']), []).append(e)
    out = []
    for e in ev:
        if e.get('cat') != 'kernel' or 'nccl' not in e.get('name', '').lower() or e.get('ph') != 'X':
            continue
        a = e.get('args') or {}
        kind = kind_of(e['name'])
        bytes_, gsize, hostkind = -1, None, ''
        def take(args):
            nonlocal bytes_, gsize, hostkind
            if not hostkind:
                hostkind = kind_of(args.get('Collective name', ''))
            if gsize is None and isinstance(args.get('Group size'), int) and args['Group size'] > 0:
                gsize = args['Group size']
            if gsize is None and isinstance(args.get('Process Group Ranks'), str):
                r = re.findall(r'\d+', args['Process Group Ranks'])
                gsize = len(r) if r else None
            if bytes_ < 0 and ('In msg nelems' in args or 'Out msg nelems' in args):
                n = max(int(args.get('In msg nelems', 0)), int(args.get('Out msg nelems', 0)))
                b = elem_bytes(args.get('dtype'))
                bytes_ = n * b if n > 0 and b > 0 else -1
        take(a)
        r = runtime.get(a.get('correlation'))
        if r is not None:
            t0 = ns(r['ts'])
            stack = [c for c in cpu.get((r['pid'], r['tid']), []) if ns(c['ts']) <= t0 <= ns(c['ts']) + ns(c['dur'])]
            stack.sort(key=lambda c: (-ns(c['ts']), ns(c['dur'])))  # innermost first
            annotation_bytes = -1
            for c in stack:
                ca = c.get('args') or {}
                if c['name'] == 'record_param_comms':
                    take(ca)
                elif bytes_ < 0 and c['name'].startswith('c10d::'):
                    bytes_ = tensor_bytes(ca)
                if c['name'].startswith(('nccl:', 'gloo:')):
                    if not hostkind:
                        hostkind = kind_of(c['name'])
                    if annotation_bytes < 0:
                        annotation_bytes = tensor_bytes(ca)
            # A c10d:: call over a TensorList lists no dims; its nccl:<op> annotation lists the tensor.
            if bytes_ <= 0 and annotation_bytes > 0:
                bytes_ = annotation_bytes
        if kind in ('sendrecv', 'send', 'recv') and hostkind and hostkind not in ('sendrecv', 'send', 'recv'):
            kind = hostkind
        s = base + ns(e['ts'])
        out.append({'kind': kind, 'bytes': bytes_, 'n': gsize, 'start': s, 'end': s + ns(e['dur'])})
    return d, out

def report_collectives(rep):
    for st in rep['steps']:
        for c in st.get('collectives', []):
            yield st, dict(c, abs_start=st['start_ns'] + c['start_ns'], abs_end=st['start_ns'] + c['end_ns'])

def close(a, b, what):
    if a is None or b is None:
        if a is not b:
            fail('%s: report %r, expected %r' % (what, a, b))
        return
    if abs(a - b) > 1e-9 * max(1.0, abs(b)):
        fail('%s: report %r, expected %r' % (what, a, b))

def check_summary(got, expected):
    got = {b['op']: b for b in got}
    if set(got) != set(expected):
        fail('bandwidth kinds: report %s, expected %s' % (sorted(got), sorted(expected)))
    for op, e in expected.items():
        g = got[op]
        for key in ('collectives', 'bytes', 'transfer_ns'):
            if g[key] != e[key]:
                fail('%s %s: report %r, expected %r' % (op, key, g[key], e[key]))
        close(g['algbw_gbps'], e['bytes'] / e['transfer_ns'], op + ' algbw')
        close(g['busbw_gbps'], e['busbytes'] / e['transfer_ns'] if e['busbytes'] > 0 else None, op + ' busbw')
        if g['link'] != e['link'] or (g['peak_gbps'] or 0.0) != e['peak']:
            fail('%s link: report %r %r, expected %r %r' % (op, g['link'], g['peak_gbps'], e['link'], e['peak']))
        print('  %-13s %3d collectives %14d bytes %12d ns  algbw %8.3f GB/s  busbw %s GB/s  link %s peak %s' % (
            op, e['collectives'], e['bytes'], e['transfer_ns'], e['bytes'] / e['transfer_ns'],
            '%.3f' % (e['busbytes'] / e['transfer_ns']) if e['busbytes'] > 0 else '-', e['link'], e['peak'] or '-'))

def add(summary, kind, bytes_, transfer, fac, link, peak):
    s = summary.setdefault(kind, {'collectives': 0, 'bytes': 0, 'transfer_ns': 0, 'busbytes': 0.0, 'link': link,
                                  'peak': peak})
    s['collectives'] += 1
    s['bytes'] += bytes_
    s['transfer_ns'] += transfer
    s['busbytes'] += bytes_ * fac

def slow_lost(wall, transfer, share, exposed):
    # Only the transfer is held against the link: its time beyond the link at its peak.
    held = min(transfer, wall)
    return min(held - int(round(held * share)), exposed)

def mode_kineto(trace, report):
    d, raw = kineto_collectives(trace)
    rep = load(report)
    device = next((p.get('name') for p in d.get('deviceProperties', []) if p.get('name')), '')
    link, peak = gpu_peak(device)
    by_start = {(c['start'], c['end']): c for c in raw}
    summary, lost, slow = {}, 0, 0
    listed = 0
    fastest = {}
    for st, c in report_collectives(rep):
        r = by_start.get((c['abs_start'], c['abs_end']))
        if r is not None and r['bytes'] > 0:
            key = (c['op'], r['bytes'], r['n'] or -1)
            fastest[key] = min(fastest.get(key, r['end'] - r['start']), r['end'] - r['start'])
    for st, c in report_collectives(rep):
        r = by_start.get((c['abs_start'], c['abs_end']))
        if r is None:
            fail('report collective at %d has no NCCL kernel there' % c['abs_start'])
        listed += 1
        if r['bytes'] != c.get('bytes', -1):
            fail('bytes of the collective at %d: report %r, expected %r' % (r['start'], c.get('bytes'), r['bytes']))
        if (r['n'] or -1) != c.get('group_size', -1):
            fail('group size at %d: report %r, expected %r' % (r['start'], c.get('group_size'), r['n']))
        if r['bytes'] <= 0:
            continue
        wall = r['end'] - r['start']
        transfer = fastest[(c['op'], r['bytes'], r['n'] or -1)]
        fac = factor(c['op'], r['n'])
        add(summary, c['op'], r['bytes'], transfer, fac, link, peak)
        busbw = r['bytes'] / transfer * fac
        if peak > 0 and busbw > 0 and r['bytes'] >= MIB and busbw / peak < SLOW_SHARE:
            exposed = sum(e - s for s, e in c['exposed'])
            lost += max(0, slow_lost(wall, transfer, busbw / peak, exposed))
            slow += 1
    inside = [c for c in raw if any(s['start_ns'] <= c['start'] < s['start_ns'] + s['duration_ns'] for s in rep['steps'])]
    if listed != len(inside):
        fail('the report lists %d collectives, the steps hold %d NCCL kernels' % (listed, len(inside)))
    print('%s: %s (%s %s GB/s), %d NCCL kernels in steps, %d with bytes' % (
        os.path.basename(trace), device, link, peak, len(inside), sum(1 for c in inside if c['bytes'] > 0)))
    check_summary(rep['communication']['bandwidth'], summary)
    got = [f for f in rep['findings'] if f['kind'] == 'slow_link']
    got_lost = got[0]['lost_ns'] if got else 0
    got_n = got[0]['occurrences'] if got else 0
    if got_lost != lost or got_n != slow:
        fail('slow_link: report %d ns over %d, expected %d ns over %d' % (got_lost, got_n, lost, slow))
    print('  slow_link: %d collectives, %d ns lost' % (slow, lost))

def main_link(op):
    best = None
    for t in ('HCCS', 'RDMA', 'PCIE', 'SIO'):
        x = (op.get('Communication Bandwidth Info') or {}).get(t) or {}
        size, time = x.get('Transit Size(MB)', 0) or 0, x.get('Transit Time(ms)', 0) or 0
        if size > 0 and time > 0 and (best is None or size > best[1]):
            best = (t, size, time, x.get('Bandwidth(GB/s)'))
    return best

def mode_ascend(folder, report):
    comm = load(os.path.join(folder, 'ASCEND_PROFILER_OUTPUT', 'communication.json'))
    rep = load(report)
    ops = []
    for step in comm.values():
        for group in ('collective', 'p2p'):
            for key, op in (step.get(group) or {}).items():
                if key == 'Total Op Info':
                    continue
                link = main_link(op)
                start = ns(op['Communication Time Info']['Start Timestamp(us)'])
                ops.append((start, key.split('@')[0], link))
    listed = list(report_collectives(rep))
    summary = {}
    for start, name, link in sorted(ops):
        match = [c for st, c in listed if abs(c['abs_start'] - start) <= 1000]
        if len(match) != 1:
            fail('%s at %d: %d report collectives start there' % (name, start, len(match)))
        c = match[0]
        if link is None:
            if 'link' in c:
                fail('%s: the report has a link, communication.json none' % name)
            continue
        t, size, time, bw = link
        b, transit = int(round(size * 1e6)), int(round(time * 1e6))
        if bw is not None and abs(bw - size / time) > 1e-4 * max(1.0, bw):
            fail('%s: the tools say %r GB/s, MB/ms is %r' % (name, bw, size / time))
        if c.get('bytes') != b or c.get('link') != t or c.get('link_transit_ns') != transit:
            fail('%s: report %r %r %r, expected %r %r %r' % (name, c.get('bytes'), c.get('link'),
                                                            c.get('link_transit_ns'), b, t, transit))
        add(summary, c['op'], b, transit, 1.0, t, 0.0)  # the chip is not named: no peak
        print('  %s %s %.6f MB in %.6f ms = %.4f GB/s' % (name, t, size, time, size / time))
    print('%s: %d operations' % (os.path.basename(folder.rstrip('/')), len(ops)))
    check_summary(rep['communication']['bandwidth'], summary)
    if any(f['kind'] == 'slow_link' for f in rep['findings']):
        fail('slow_link without a known HCCS peak')

def step_windows(path):
    d = load(path)
    base = int(d.get('baseTimeNanoseconds', 0) or 0)
    out = {}
    for e in d.get('traceEvents', []):
        if isinstance(e, dict) and e.get('ph') == 'X' and e.get('cat') == 'user_annotation' \
                and e.get('name', '').startswith('ProfilerStep#'):
            a = base + ns(e['ts'])
            out[int(e['name'].split('#')[1])] = (a, a + ns(e['dur']))
    return out

def mode_job(job_report, traces):
    job = load(job_report)
    loaded = [kineto_collectives(t) for t in traces]
    ranks = [(step_windows(t), raw) for t, (_, raw) in zip(traces, loaded)]
    devices = [next((p.get('name') for p in d.get('deviceProperties', []) if p.get('name')), '') for d, _ in loaded]
    worlds = {(d.get('distributedInfo') or {}).get('world_size') for d, _ in loaded}
    # Without a group size in the trace, a collective of the default group run by every rank of the world has the
    # world's size (the job holds all of them).
    world = worlds.pop() if len(worlds) == 1 else None
    summary = {}
    matched = 0
    for n in sorted(set().union(*[set(w) for w, _ in ranks])):
        # Each rank's collectives of the step in start order (point-to-point left out), matched by position while
        # the operations agree (one default group: these traces name none).
        seq, dev = [], []
        for (windows, raw), device in zip(ranks, devices):
            if n not in windows:
                continue
            a, b = windows[n]
            seq.append(sorted((c for c in raw if a <= c['start'] < b and c['kind'] not in ('sendrecv', 'send', 'recv')),
                              key=lambda c: c['start']))
            dev.append(device)
        if len(seq) < 2:
            continue
        k = 0
        while all(k < len(x) for x in seq) and len(set(x[k]['kind'] for x in seq)) == 1:
            members = [x[k] for x in seq]
            li = min(range(len(members)), key=lambda q: members[q]['end'] - members[q]['start'])
            last = members[li]
            shortest = last['end'] - last['start']
            b = max(c['bytes'] for c in members)
            size = max((c['n'] or -1) for c in members)
            if size < 0 and world and len(members) == world:
                size = world
            link, peak = gpu_peak(dev[li])
            k += 1
            if b <= 0 or shortest <= 0:
                continue
            matched += 1
            add(summary, last['kind'], b, shortest, factor(last['kind'], size if size > 0 else None), link, peak)
    print('job: %d matched collectives with bytes' % matched)
    check_summary(job['bandwidth'], summary)

if __name__ == '__main__':
    if len(sys.argv) >= 4 and sys.argv[1] == 'kineto':
        mode_kineto(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 4 and sys.argv[1] == 'ascend':
        mode_ascend(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 4 and sys.argv[1] == 'job':
        mode_job(sys.argv[2], sys.argv[3:])
    else:
        print(__doc__ or 'usage: collective_bandwidth.py kineto TRACE REPORT | ascend DIR REPORT | job JOB R0 R1 …')
        sys.exit(2)
    print('OK')
