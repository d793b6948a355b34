#!/usr/bin/env python3
# Independent check of the numbers tst_job pins on the real jobs: exposed communication, HCCL wait (Notify_Wait
# minus plane transfer), the cross-rank straggler computation. Reads the raw files only; run from anywhere.
import os
import sqlite3
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'data')
import json, gzip
from decimal import Decimal
def U(iv):
    iv=sorted(iv); out=[]
    for s,e in iv:
        if e<=s: continue
        if out and s<=out[-1][1]: out[-1][1]=max(out[-1][1],e)
        else: out.append([s,e])
    return out
def L(u): return sum(e-s for s,e in u)
def I(a,b):
    i=j=0;out=[]
    while i<len(a) and j<len(b):
        s=max(a[i][0],b[j][0]); e=min(a[i][1],b[j][1])
        if s<e: out.append([s,e])
        if a[i][1]<b[j][1]: i+=1
        else: j+=1
    return out
def S(a,b):
    out=[]; j=0
    for s,e in a:
        cur=s
        for bs,be in b:
            if be<=cur or bs>=e: continue
            if bs>cur: out.append([cur,bs])
            cur=max(cur,be)
        if cur<e: out.append([cur,e])
    return out
def ns(x): return int(Decimal(str(x))*1000)

# communication.json: each op's "Wait Time(ms)" picks the HCCL plane whose Notify_Wait inside the op adds up to it
# (within 1 us + 1 %); inside the op, that plane's Notify_Wait is the waiting. An op matching no plane keeps the task
# rule (Notify_Wait minus plane transfer). Returns the wait, or (mismatched ops, wait) with `tamper`.
def json_wait(r,H,ex,nw,tr,tamper=None):
    cj=json.load(open(DATA+f'/torch_npu/msinsight_text_level1_rank{r}_ascend_pt/ASCEND_PROFILER_OUTPUT/communication.json'))
    jops=[(k.split('@')[0],dict(v['Communication Time Info'])) for st in cj.values() for g in ('collective','p2p') for k,v in st[g].items() if k!='Total Op Info']
    if tamper is not None: jops[0][1]['Wait Time(ms)']=tamper
    planes={}
    for e in H:
        if e['name']=='Notify_Wait': planes.setdefault(e['tid'],[]).append([ns(e['ts']),ns(e['ts'])+ns(e['dur'])])
    planes={t:U(v) for t,v in planes.items()}
    jw=[]; jwin=[]; mism=0
    for n,t in jops:
        st_=round(t['Start Timestamp(us)']*1000)
        op=[o for o in H if o['name']==n and abs(ns(o['ts'])-st_)<=1000][0]; a=ns(op['ts']); b=a+ns(op['dur'])
        want=round(t['Wait Time(ms)']*1e6)
        best=min(planes.values(), key=lambda pl: abs(L(I(pl,[[a,b]]))-want))
        if abs(L(I(best,[[a,b]]))-want) > 1000+want//100:
            mism+=1; continue
        jw+=I(best,[[a,b]]); jwin.append([a,b])
    wi=I(ex,U(S(S(nw,tr),U(jwin))+jw))
    return (mism,L(wi)) if tamper is not None else wi

print("== HTA job (Kineto): exposed = nccl kernels - other kernels, inside ProfilerSteps")
for r in (0,1):
    ev=json.load(gzip.open(DATA+f'/torch/hta_job_2ranks/rank-{r}.json.gz'))['traceEvents']
    X=[e for e in ev if e.get('ph')=='X']
    steps=sorted([[ns(e['ts']),ns(e['ts'])+ns(e['dur']),e['name']] for e in X if e['name'].startswith('ProfilerStep')])
    win=U([[a,b] for a,b,_ in steps])
    k=[e for e in X if e.get('cat')=='kernel']
    comm=U([[ns(e['ts']),ns(e['ts'])+ns(e['dur'])] for e in k if 'nccl' in e['name'].lower()])
    comp=U([[ns(e['ts']),ns(e['ts'])+ns(e['dur'])] for e in k if 'nccl' not in e['name'].lower()])
    ci=I(comm,win); ex=S(ci,comp)
    print(r, 'communication', L(ci), 'exposed', L(ex), [ (n, L(I(ex,[[a,b]]))) for a,b,n in steps])

print("== Ascend text: exposed = HCCL lanes - Ascend Hardware compute; wait = exposed & (Notify_Wait - plane transfer)")
arr={}
for r in (0,1):
    ev=json.load(open(DATA+f'/torch_npu/msinsight_text_level1_rank{r}_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json'))
    pn={e['pid']:e['args']['name'] for e in ev if e.get('ph')=='M' and e.get('name')=='process_name'}
    tn={(e['pid'],e['tid']):e['args']['name'] for e in ev if e.get('ph')=='M' and e.get('name')=='thread_name'}
    hp=[p for p,n in pn.items() if n=='HCCL'][0]; hw=[p for p,n in pn.items() if n=='Ascend Hardware'][0]
    X=[e for e in ev if e.get('ph')=='X']
    st=[e for e in X if e['name'].startswith('ProfilerStep')][0]; s0=ns(st['ts']); s1=s0+ns(st['dur'])
    H=[e for e in X if e['pid']==hp]
    comm=U([[ns(e['ts']),ns(e['ts'])+ns(e['dur'])] for e in H])
    nonc={'EVENT_RECORD','EVENT_WAIT','Notify_Wait','Notify_Record','MEMCPY_ASYNC','Memcpy','EVENT_RECORD_SQE','EVENT_WAIT_SQE','NOTIFY_WAIT_SQE','NOTIFY_RECORD_SQE','WRITE_VALUE_SQE','Write Value','Notify Wait'}
    hwe=[e for e in X if e['pid']==hw]
    tt=set(e.get('args',{}).get('Task Type') for e in hwe)
    comp=U([[ns(e['ts']),ns(e['ts'])+ns(e['dur'])] for e in hwe if e.get('args',{}).get('Task Type') in ('AI_CORE','MIX_AIV','DSA_SQE','AI_VECTOR_CORE')])
    nw=U([[ns(e['ts']),ns(e['ts'])+ns(e['dur'])] for e in H if e['name']=='Notify_Wait'])
    tr=U([[ns(e['ts']),ns(e['ts'])+ns(e['dur'])] for e in H if e['name'] not in ('Notify_Wait','Notify_Record') and not e['name'].startswith('hcom')])
    win=[[s0,s1]]
    ci=I(comm,win); ex=S(ci,comp); w=I(ex,S(nw,tr))
    print(r,'communication',L(ci),'exposed',L(ex),'wait (tasks alone)',L(w))
    jwi=json_wait(r,H,ex,nw,tr)
    print(r,'communication.json: wait',L(jwi))
    # The rest of the exposed time: moving data where a plane runs a transfer task, else idle inside the collective.
    rest=S(ex,jwi); xfer=I(rest,tr)
    print(r,'exposed split: transfer',L(xfer),'wait',L(jwi),'idle',L(S(rest,xfer)))
    cj=json.load(open(DATA+f'/torch_npu/msinsight_text_level1_rank{r}_ascend_pt/ASCEND_PROFILER_OUTPUT/communication.json'))
    tot={k:sum(v['Communication Time Info'][k] for st in cj.values() for g in ('collective','p2p') for n,v in st[g].items() if n!='Total Op Info') for k in ('Elapse Time(ms)','Transit Time(ms)','Wait Time(ms)','Idle Time(ms)')}
    print(r,'msprof-analyze communication.json (whole ops):',{k:round(v,3) for k,v in tot.items()})
    if r==0:
        # tst_job's cross-check case: op 0's Wait Time set to 30 ms matches no plane; it keeps the task rule.
        print(r,'communication.json with op 0 at 30 ms: (mismatched, wait)',json_wait(r,H,ex,nw,tr,tamper=30.0))
    ops=sorted([[ns(e['ts']),ns(e['ts'])+ns(e['dur'])] for e in H if e['name'].startswith('hcom')])
    arr[r]=(s0,ops,ex)
# cross-rank (issue 50): a matched operation's transfer is the shorter duration; the other rank waits its duration above
# that from its start, where exposed; the rank with the shorter one caused it.
def caused_by_duration(o0,o1,ex0,ex1):
    caused={0:0,1:0}
    for a,b in zip(o0,o1):
        d0=a[1]-a[0]; d1=b[1]-b[0]
        if d0==d1: continue
        last,op,ex,lag=(1,a,ex0,d0-d1) if d1<d0 else (0,b,ex1,d1-d0)
        caused[last]+=L(I([[op[0],op[0]+lag]],ex))
    return caused
print('caused', caused_by_duration(arr[0][1],arr[1][1],arr[0][2],arr[1][2]))
for r in (0,1):
    db=sqlite3.connect(DATA+f'/msprof/msinsight_db_level1_rank{r}_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_{r}.db')
    c=db.cursor(); S_=dict(c.execute('select id,value from STRING_IDS'))
    step=c.execute('select startNs,endNs from STEP_TIME').fetchall()
    win=U([list(x) for x in step])
    ops=c.execute('select startNs,endNs,connectionId from COMMUNICATION_OP').fetchall()
    conns={o[2] for o in ops}
    tasks=c.execute('select t.startNs,t.endNs,t.taskType,t.connectionId,ci.globalTaskId is not null,mi.taskType from TASK t left join COMPUTE_TASK_INFO ci on ci.globalTaskId=t.globalTaskId left join COMMUNICATION_TASK_INFO mi on mi.globalTaskId=t.globalTaskId').fetchall()
    comm=U([[a,b] for a,b,_ in ops]+[[a,b] for a,b,tt,cn,isc,mt in tasks if mt is not None]+[[a,b] for a,b,tt,cn,isc,mt in tasks if not isc and mt is None and cn in conns])
    comp=U([[a,b] for a,b,tt,cn,isc,mt in tasks if isc and S_.get(tt) in ('AI_CORE','MIX_AIV','AI_VECTOR_CORE','DSA_SQE','MIX_AIC','KERNEL_AICORE','KERNEL_AIVEC','STARS_COMMON')]+[[a,b] for a,b,tt,cn,isc,mt in tasks if not isc and mt is None and cn not in conns and S_.get(tt) in ('AI_CORE','KERNEL_AICORE','KERNEL_AIVEC')])
    nw=U([[a,b] for a,b,tt,cn,isc,mt in tasks if mt is not None and S_.get(mt)=='Notify_Wait'])
    tr=U([[a,b] for a,b,tt,cn,isc,mt in tasks if mt is not None and S_.get(mt) not in ('Notify_Wait','Notify_Record')])
    ci=I(comm,win); ex=S(ci,comp); w=I(ex,S(nw,tr))
    print('db rank',r,'step',step,'communication',L(ci),'exposed',L(ex),'wait',L(w))
    # Each operation as the importer keeps it: the task on the stream that ran it (same connectionId, neither a
    # compute nor a plane task), which encloses the COMMUNICATION_OP span by a few µs; the longer of the two.
    spans=[]
    for a,b,cn in ops:
        st=[[x,y] for x,y,tt,c2,isc,mt in tasks if c2==cn and not isc and mt is None]
        spans.append([min([a]+[x for x,y in st]),max([b]+[y for x,y in st])])
    arr[('db',r)]=(sorted([o for o in spans if any(ws<=o[0]<we for ws,we in win)]),ex)
print('db caused', caused_by_duration(arr[('db',0)][0],arr[('db',1)][0],arr[('db',0)][1],arr[('db',1)][1]))

print("== Ascend text: step device activity (the rank lanes: tst_jobwindow realAscendLanes)")
# Device busy by the importer's task classes (parsers/ascendcommon/ascendtasktype.cpp): Ascend Hardware AI_CORE,
# MIX_AIV, AI_VECTOR_CORE, DSA_SQE are kernels and PLACE_HOLDER_SQE an uncategorised device task (compute) unless
# its name is a sync (EVENT_RECORD, …);
# PCIE_DMA_SQE, SDMA, SDMA_SQE copies; EVENT_* / Notify Wait / Write Value syncs (not busy); the HCCL lanes
# communication. Exact (resolution 1 ns) while each list has at most 2,048 pieces; else resolution = step / 2048,
# gaps below it filled (closeGaps), idle = step - busy with gaps filled.
# Times as the importer reads them: µs with up to four decimals, rounded half up to whole ns (Python's ns() above
# truncates; a 27.0805 µs task is 27,081 ns here).
from decimal import ROUND_HALF_UP
def nr(x): return int((Decimal(str(x))*1000).quantize(Decimal(1), rounding=ROUND_HALF_UP))
def G(u,gap):
    out=[]
    for s,e in u:
        if out and s-out[-1][1]<gap: out[-1][1]=e
        else: out.append([s,e])
    return out
for r in (0,1):
    ev=json.load(open(DATA+f'/torch_npu/msinsight_text_level1_rank{r}_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json'))
    pn={e['pid']:e['args']['name'] for e in ev if e.get('ph')=='M' and e.get('name')=='process_name'}
    hp=[p for p,n in pn.items() if n=='HCCL'][0]; hw=[p for p,n in pn.items() if n=='Ascend Hardware'][0]
    X=[e for e in ev if e.get('ph')=='X']
    st=[e for e in X if e['name'].startswith('ProfilerStep')][0]; s0=nr(st['ts']); s1=s0+nr(st['dur'])
    iv=lambda es:[[nr(e['ts']),nr(e['ts'])+nr(e['dur'])] for e in es]
    tt=lambda e:e.get('args',{}).get('Task Type')
    hwe=[e for e in X if e['pid']==hw]
    syncn=('EVENT_RECORD','EVENT_WAIT','Notify Wait','Notify_Wait','Notify_Record','Write Value')
    comp=I(U(iv([e for e in hwe if tt(e) in ('AI_CORE','MIX_AIV','DSA_SQE','AI_VECTOR_CORE') or (tt(e)=='PLACE_HOLDER_SQE' and e['name'] not in syncn)])),[[s0,s1]])
    copy=S(I(U(iv([e for e in hwe if tt(e) in ('PCIE_DMA_SQE','SDMA','SDMA_SQE')])),[[s0,s1]]),comp)
    comm=I(U(iv([e for e in X if e['pid']==hp])),[[s0,s1]])
    busy=U(comp+copy+comm)
    res=1 if len(comp)<=2048 and len(copy)<=2048 and len(busy)<2048 else max(1,(s1-s0)//2048)
    gc=G(comp,res); gp=S(G(copy,res),gc); idle=S([[s0,s1]],G(busy,res))
    spans=U([[a,b] for a,b in iv([e for e in X if e['pid']==hp and e['name'].startswith('hcom')])])
    print(r,'step',s0,s1-s0,'resolution',res,'compute',L(comp),'closed',L(gc),len(gc),'copy',L(copy),'closed',L(gp),len(gp),
          'busy',L(busy),'idle',L(idle),len(idle),'| lanes outside collectives: compute',L(S(gc,spans)),'copy',L(S(S(gp,spans),gc)),'idle',L(S(idle,spans)))
