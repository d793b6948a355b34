#!/usr/bin/env python3
# Independent check of issue 50's numbers on the real Kineto jobs, from the raw trace files only (no Timesink code):
# NCCL kernels per ProfilerStep, each labelled with the collective its host call names (a SendRecv kernel launched
# inside `record_param_comms` under `nccl:all_to_all` is an all-to-all) and its process group (`Process Group Name` on
# the kernel or its record_param_comms; none = the default group); matched per group by position while the
# operations agree; transfer = the shortest duration of a matched collective, each other rank's waiting = its
# duration above that from its start, counted where no other kernel overlaps it (exposed); the rank with the shortest
# duration caused it. Prints, per step and rank, the waiting and the waiting caused (ns).
# Usage: verify_job_waits.py DIR_WITH_rank-N.json[.gz] ...
import gzip, json, os, re, sys
from decimal import Decimal

def ns(x):
    return int(Decimal(str(x)) * 1000)

def unite(iv):
    out = []
    for s, e in sorted(iv):
        if e <= s:
            continue
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out

def subtract(a, b):
    out = []
    for s, e in a:
        cur = s
        for bs, be in b:
            if be <= cur or bs >= e:
                continue
            if bs > cur:
                out.append([cur, bs])
            cur = max(cur, be)
        if cur < e:
            out.append([cur, e])
    return out

def length(u):
    return sum(e - s for s, e in u)

def host_kind(name):
    s = re.sub(r'[_ -]', '', (name or '').lower())
    for p in ('nccl:', 'gloo:'):
        if s.startswith(p):
            s = s[len(p):]
    if 'isendirecv' in s or 'sendrecv' in s:
        return 'sendrecv'
    for k in ('reducescatter', 'allreduce', 'allgather', 'alltoall', 'broadcast', 'barrier', 'reduce', 'send', 'recv'):
        if k in s:
            return k
    return ''

def kernel_kind(name):
    s = re.sub(r'[_ -]', '', name.lower())
    for k in ('reducescatter', 'allreduce', 'allgather', 'alltoall', 'broadcast', 'sendrecv', 'barrier', 'reduce',
              'send', 'recv'):
        if k in s:
            return k
    return 'collective'

def load_rank(path):
    opener = gzip.open if path.endswith('.gz') else open
    d = json.load(opener(path))
    rank = d.get('distributedInfo', {}).get('rank')
    ev = [e for e in d['traceEvents'] if e.get('ph') == 'X']
    launches = {e['args'].get('correlation'): e for e in ev if e.get('cat') == 'cuda_runtime' and 'args' in e}
    hosts = [e for e in ev if e['name'] == 'record_param_comms' or e['name'].startswith('nccl:')]
    steps = sorted([e for e in ev if e['name'].startswith('ProfilerStep#') and e.get('cat') == 'user_annotation'],
                   key=lambda e: e['ts'])
    kernels = [e for e in ev if e.get('cat') == 'kernel']
    other = unite([[ns(k['ts']), ns(k['ts']) + ns(k['dur'])] for k in kernels if 'nccl' not in k['name'].lower()])
    out = {}
    for st in steps:
        a, b = ns(st['ts']), ns(st['ts']) + ns(st['dur'])
        colls = []
        for k in sorted(kernels, key=lambda k: ns(k['ts'])):
            if 'nccl' not in k['name'].lower():
                continue
            s, e = ns(k['ts']), ns(k['ts']) + ns(k['dur'])
            if not (a <= s < b):
                continue
            kind = kernel_kind(k['name'])
            args = k.get('args', {})
            hk = host_kind(args.get('Collective name'))
            group = args.get('Process Group Name', '')
            launch = launches.get(args.get('correlation'))
            if launch:
                ls, le = ns(launch['ts']), ns(launch['ts']) + ns(launch['dur'])
                for h in hosts:
                    if h['tid'] == launch['tid'] and h['pid'] == launch['pid'] and ns(h['ts']) <= ls \
                            and ns(h['ts']) + ns(h['dur']) >= le:
                        hk = hk or host_kind(h['args'].get('Collective name') if h['name'] == 'record_param_comms'
                                             else h['name'])
                        group = group or h['args'].get('Process Group Name', '')
            if kind in ('sendrecv', 'send', 'recv') and hk and hk not in ('sendrecv', 'send', 'recv'):
                kind = hk
            exposed = subtract([[s, min(e, b)]], other)
            colls.append(dict(kind=kind, group=group, start=s, end=e, exposed=exposed))
        out[int(st['name'].split('#')[1])] = colls
    return rank, out

def job(paths):
    ranks = dict(load_rank(p) for p in paths)
    steps = sorted(set().union(*[set(v) for v in ranks.values()]))
    for n in steps:
        have = [r for r in sorted(ranks) if n in ranks[r]]
        wait = {r: 0 for r in have}
        caused = {r: 0 for r in have}
        lasts = {r: 0 for r in have}
        groups = sorted(set(c['group'] for r in have for c in ranks[r][n] if c['kind'] not in ('sendrecv', 'send', 'recv')))
        matched = 0
        for g in groups:
            seq = {r: [c for c in ranks[r][n] if c['group'] == g and c['kind'] not in ('sendrecv', 'send', 'recv')]
                   for r in have}
            members = [r for r in have if seq[r]] if g else have
            if len(members) < 2:
                continue
            k = 0
            while all(k < len(seq[r]) for r in members) and len(set(seq[r][k]['kind'] for r in members)) == 1:
                dur = {r: seq[r][k]['end'] - seq[r][k]['start'] for r in members}
                last = min(members, key=lambda r: dur[r])
                lasts[last] += 1
                for r in members:
                    lag = dur[r] - dur[last]
                    if r == last or lag <= 0:
                        continue
                    c = seq[r][k]
                    w = length(subtract(c['exposed'], [[c['start'] + lag, 1 << 62]]))
                    wait[r] += w
                    caused[last] += w
                k += 1
            matched += k
        print(f'step {n}: {matched} matched;',
              '; '.join(f'rank {r} wait {wait[r]} caused {caused[r]} last {lasts[r]}' for r in have))

if __name__ == '__main__':
    for d in sys.argv[1:]:
        files = sorted(os.path.join(d, f) for f in os.listdir(d) if re.match(r'rank-\d+\.json(\.gz)?$', f))
        print('==', d)
        job(files)
