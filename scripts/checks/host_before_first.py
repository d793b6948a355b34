#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Independent check of issue 50's late-start evidence (docs/analysis.md "Jobs"), from the raw Kineto trace only
# (standard library, no Timesink code), against what `timesink-cli analyze --format json` wrote.
#
# For each step of the report with collectives: its first collective is the NCCL kernel that starts at the report's
# first collective (which kernel comes first is the report's call, checked to be the earliest NCCL kernel of the
# step's window); the launch is the runtime call with the kernel's correlation; the stretch runs from the step's
# ProfilerStep start (checked against the report's host_start_ns) to the launch's start. On the launching thread,
# every complete event that starts and ends inside the stretch and does not contain the launch counts when no such
# event encloses it (the outermost ones); their durations are summed by name. The report must list the five largest
# (ties: any order) with the same figures, and the stretch's length.
#
#   host_before_first.py TRACE REPORT
import gzip, json, sys
from decimal import Decimal

def fail(msg):
    print('MISMATCH: ' + msg)
    sys.exit(1)

def load(path):
    opener = gzip.open if path.endswith('.gz') else open
    with opener(path, 'rt', encoding='utf-8') as f:
        return json.load(f)

def ns(us):
    return int((Decimal(str(us)) * 1000).to_integral_value())

def main(trace, report):
    d = load(trace)
    rep = load(report)
    base = int(d.get('baseTimeNanoseconds', 0) or 0)
    ev = [e for e in d.get('traceEvents', []) if isinstance(e, dict) and e.get('ph') == 'X' and 'dur' in e]
    runtime = {}
    for e in ev:
        if e.get('cat') in ('cuda_runtime', 'cuda_driver') and 'correlation' in (e.get('args') or {}):
            runtime.setdefault(e['args']['correlation'], e)
    kernels = {}
    for e in ev:
        if e.get('cat') == 'kernel' and 'nccl' in e.get('name', '').lower():
            kernels.setdefault(base + ns(e['ts']), e)
    steps = {base + ns(e['ts']): e for e in ev if e.get('name', '').startswith('ProfilerStep#')}
    checked = 0
    for st in rep['steps']:
        h = st.get('host_before_first_collective')
        if not st['collectives']:
            if h is not None:
                fail('step %d has no collective but host evidence' % st['step'])
            continue
        first = st['start_ns'] + st['collectives'][0]['start_ns']
        k = kernels.get(first)
        if k is None:
            fail('step %d: no NCCL kernel starts at %d' % (st['step'], first))
        w0, w1 = st['start_ns'], st['start_ns'] + st['duration_ns']
        earlier = [t for t in kernels if w0 <= t < first]
        if earlier:
            fail('step %d: an NCCL kernel at %d starts before the first collective' % (st['step'], min(earlier)))
        r = runtime.get((k.get('args') or {}).get('correlation'))
        if r is None:
            if h is not None:
                fail('step %d: no launch, yet host evidence' % st['step'])
            continue
        start = st['host_start_ns']
        if start not in steps:
            fail('step %d: host_start_ns %d is no ProfilerStep start' % (st['step'], start))
        until = base + ns(r['ts'])
        if h is None:
            fail('step %d: the report has no host evidence' % st['step'])
        if h['window_ns'] != until - start:
            fail('step %d: window %d, expected %d' % (st['step'], h['window_ns'], until - start))
        thread = [e for e in ev if (e['pid'], e['tid']) == (r['pid'], r['tid'])]
        span = lambda e: (base + ns(e['ts']), base + ns(e['ts']) + ns(e['dur']))
        lt0, lt1 = span(r)
        holding = [e for e in thread if span(e)[0] <= lt0 and span(e)[1] >= lt1]
        done = [e for e in thread if span(e)[0] >= start and span(e)[1] <= until
                and not any(e is x for x in holding)]
        def inside(a, b):  # a strictly within b (b encloses a and is not a)
            (a0, a1), (b0, b1) = span(a), span(b)
            return a is not b and b0 <= a0 and a1 <= b1 and (b1 - b0) > (a1 - a0)
        sums = {}
        for e in done:
            if any(inside(e, o) for o in done):
                continue
            sums[e['name']] = sums.get(e['name'], 0) + ns(e['dur'])
        ranked = sorted(sums.items(), key=lambda kv: -kv[1])
        got = [(a['name'], a['ns']) for a in h['top']]
        if len(got) != min(5, len(ranked)):
            fail('step %d: %d host activities, expected %d' % (st['step'], len(got), min(5, len(ranked))))
        cutoff = ranked[len(got) - 1][1] if got else 0
        for name, v in got:
            if sums.get(name) != v:
                fail('step %d: %s %r ns, expected %r' % (st['step'], name, v, sums.get(name)))
            if v < cutoff:
                fail('step %d: %s is not among the five largest' % (st['step'], name))
        print('step %d: %d ns to the first collective; %s' % (
            st['step'], until - start, ', '.join('%s %d' % kv for kv in got)))
        checked += 1
    if checked == 0:
        fail('no step with a launched collective')
    print('OK')

if __name__ == '__main__':
    if len(sys.argv) != 3:
        print('usage: host_before_first.py TRACE REPORT')
        sys.exit(2)
    main(sys.argv[1], sys.argv[2])
