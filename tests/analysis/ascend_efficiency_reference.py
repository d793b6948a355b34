#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Independent Ascend figures for tests/analysis/tst_ascendefficiency.cpp (stdlib only; run from the repository
root, or pass it as the first argument).

For each fixture, from the raw kernel_details.csv or the msprof database (never through Timesink):

1. The AI-core clock: aic_total_cycles / (aicore_time x Block Dim) per AI-core task (the cycles of all its cores
   over its time per core), the median; the database's AICORE_FREQ samples beside it.
2. The AI-core count: aic_total_cycles / (Duration x clock x cube_utilization(%) / 100) per task, the median
   (text exports only: the database has no cube_utilization).
3. msprof-analyze's operator_mfu (cluster_kernels_analysis/operator_mfu, the "legacy" path that derives FLOPs
   from the kernel shapes), reproduced: only MatMulV2/MatMulV3; ND shapes: m, n = output[0]; k = a[0] if a[0] != m
   else a[1]; FLOPs = 2mnk; FLOAT, FLOAT16, BF16, DT_BF16 judged at the FLOAT16 peak (INT8 at its own);
   peak = ai_core_num x aic_frequency (MHz) x 1e6 x 16*16*16*2 (x 16*32*16*2 for INT8); per kernel
   MFU = FLOPs / (task duration in s) / peak. Here ai_core_num and aic_frequency are 1. and 2. (the fixtures have no
   info.json, which is where msprof-analyze reads them).
5. FlashAttentionScore and its Grad, by the textbook count (Dao et al.'s benchmark): forward 4·B·N·S1·S2·D (Q·Kᵀ
   and P·V), backward 2.5 times that, halved under a causal mask; B, N and S1 from the [B, N, S1, 8] softmax_max
   (an output of the forward, an input of the Grad), D = H / N for a 3-D query, S2 from the key where the query
   holds S1 (a hidden size that no head count divides is no real call: left out). Per operator: calls, FLOPs, device time and TFLOP/s.
4. Per operator as Timesink groups them (op type, input shapes, data type): calls, FLOPs, the duration-weighted
   mean of the kernels' MFU (= sum FLOPs / peak / sum duration, Timesink's roofline fraction without a memory
   bandwidth) and the duration-weighted aic_mac_ratio of the AI-core tasks.
"""
import csv
import sqlite3
import statistics
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else "."
DATA = ROOT + "/tests/data"
# With --check FILE: compare the output with FILE (the figures tst_ascendefficiency.cpp holds) and fail on a change.
CHECK = sys.argv[3] if len(sys.argv) > 3 and sys.argv[2] == "--check" else None
OUT = []


def emit(line):
    OUT.append(line)
OPS_PER_CYCLE = {"FLOAT16": 16 * 16 * 16 * 2, "INT8": 16 * 32 * 16 * 2}
DTYPE_MAP = {"FLOAT": "FLOAT16", "FLOAT16": "FLOAT16", "BF16": "FLOAT16", "DT_BF16": "FLOAT16", "INT8": "INT8"}


def parse_shapes(cell):
    cell = cell.strip().strip('"')
    return [[int(d) for d in part.split(",") if d.strip()] for part in cell.split(";")]


def operator_mfu_flops(in_shapes, out_shapes):
    """msprof-analyze MatmulFLOPs.calculate_flops, ND format (every MatMul of these fixtures is ND)."""
    ins, outs = parse_shapes(in_shapes), parse_shapes(out_shapes)
    if len(outs) != 1 or len(outs[0]) != 2 or len(ins) < 2 or len(ins[0]) != 2 or len(ins[1]) != 2:
        return None
    m, n = outs[0]
    a = ins[0]
    k = a[0] if a[0] != m else a[1]
    return 2 * m * n * k


def attention_flops(op, in_shapes, out_shapes):
    """Textbook FlashAttention FLOPs for the SBH/BSH and BNSD/BSND layouts; None for anything else (TND)."""
    ins, outs = parse_shapes(in_shapes), parse_shapes(out_shapes)
    grad = op == "FlashAttentionScoreGrad"
    stats = [s for s in (ins[3:] if grad else outs) if len(s) == 4 and s[3] == 8]
    if len(ins) < 3 or not stats:
        return None
    b, heads, s1, _ = stats[0]
    q, k = ins[0], ins[1]
    if len(q) == 3 and q[:2] in ([b, s1], [s1, b]):
        if q[2] % heads:
            return None  # a hidden size that is no multiple of the head count: the shapes are not the kernel's
        s2 = k[q[:2].index(s1)] if q[0] != q[1] else k[1]
        d = q[2] // heads
    elif len(q) == 4 and q[:3] in ([b, heads, s1], [b, s1, heads]):
        s2 = k[q[:3].index(s1)]
        d = q[3]
    else:
        return None
    masks = [m for m in ins[3:] if len(m) == 2]
    causal = bool(masks) and masks[0] == [2048, 2048] and (s1 != 2048 or s2 != 2048)
    forward = 4 * b * heads * s1 * s2 * d / (2 if causal else 1)
    return forward * 2.5 if grad else forward


def number(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return 0.0


def report(name, tasks, clock_note="", info_json=None):
    """tasks: dicts with op, in_shapes, out_shapes, types, dur_ns, aicore_us, cycles, block, cube, mac."""
    clocks = [t["cycles"] / (t["aicore_us"] * t["block"]) for t in tasks
              if t["cycles"] > 0 and t["aicore_us"] > 0 and t["block"] > 0]
    clock = round(statistics.median(clocks)) if clocks else 0
    cores_each = [t["cycles"] / (t["dur_ns"] / 1000 * clock * t["cube"] / 100) for t in tasks
                  if clock and t["cube"] > 0 and t["cycles"] > 0 and t["dur_ns"] > 0]
    cores = round(statistics.median(cores_each)) if cores_each else 0
    if info_json:  # what msprof-analyze reads from PROF_*/device_N/info.json.N
        cores, clock = info_json
        clock_note += f"; planted info.json: ai_core_num {cores}, aic_frequency {clock}"
    emit(f"{name}: clock {clock} MHz from {len(clocks)} AI-core tasks{clock_note}; "
          f"AI cores {cores if cores else 'unknown'} from {len(cores_each)} tasks")
    peak = cores * clock * 1e6 * OPS_PER_CYCLE["FLOAT16"] if cores and clock else 0
    if peak:
        emit(f"  peak FP16/BF16 {peak:.0f} FLOP/s, INT8 {cores * clock * 1e6 * OPS_PER_CYCLE['INT8']:.0f}")
    groups = {}
    for t in tasks:
        if t["op"] not in ("MatMulV2", "MatMulV3"):
            continue
        flops = operator_mfu_flops(t["in_shapes"], t["out_shapes"])
        first_type = t["types"].split(";")[0].strip().upper()
        if flops is None or first_type not in DTYPE_MAP:
            continue
        mfu = flops / (t["dur_ns"] * 1e-9) / peak if peak else None
        key = (t["op"], t["in_shapes"].strip('"'), first_type)
        g = groups.setdefault(key, {"calls": 0, "flops": 0, "dur": 0, "mfu_dur": 0.0, "mac_dur": 0.0, "mac_ns": 0})
        g["calls"] += 1
        g["flops"] += flops
        g["dur"] += t["dur_ns"]
        if mfu is not None:
            g["mfu_dur"] += mfu * t["dur_ns"]
            emit(f"  kernel {t['op']} [{t['in_shapes'].strip(chr(34))}] {first_type} dur {t['dur_ns']} ns "
                  f"flops {flops} operator_mfu {mfu:.6f}")
        if t["aicore_us"] > 0 and t["mac"] is not None:
            g["mac_dur"] += t["mac"] * t["dur_ns"]
            g["mac_ns"] += t["dur_ns"]
    attention = {}
    for t in tasks:
        if t["op"] not in ("FlashAttentionScore", "FlashAttentionScoreGrad"):
            continue
        flops = attention_flops(t["op"], t["in_shapes"], t["out_shapes"])
        if flops is None:
            continue
        a = attention.setdefault((t["op"], t["in_shapes"].strip('"')), {"calls": 0, "flops": 0, "dur": 0})
        a["calls"] += 1
        a["flops"] += flops
        a["dur"] += t["dur_ns"]
    for (op, shapes), a in sorted(attention.items()):
        emit(f"  attention {op} [{shapes}]: calls {a['calls']} flops {a['flops']:.0f} device_ns {a['dur']} "
             f"tflops {a['flops'] / (a['dur'] * 1e-9) / 1e12:.4f}")
    for (op, shapes, dtype), g in sorted(groups.items()):
        mfu = f"{g['mfu_dur'] / g['dur']:.6f}" if peak else "n/a"
        mac = f"{g['mac_dur'] / g['mac_ns']:.6f}" if g["mac_ns"] else "n/a"
        emit(f"  operator {op} [{shapes}] {dtype}: calls {g['calls']} flops {g['flops']} device_ns {g['dur']} "
              f"mfu {mfu} aic_mac_ratio {mac}")


def text_fixture(name, path):
    tasks = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            dur_us = r.get("Duration(us)", "")
            tasks.append({
                "op": r.get("Type", ""), "in_shapes": r.get("Input Shapes", ""), "out_shapes": r.get("Output Shapes", ""),
                "types": r.get("Input Data Types", ""),
                # µs with three decimals → whole ns, as Timesink parses it (never through a float product)
                "dur_ns": int(round(float(dur_us) * 1000)) if dur_us and dur_us != "N/A" else 0,
                "aicore_us": number(r.get("aicore_time(us)")), "cycles": number(r.get("aic_total_cycles")),
                "block": number(r.get("Block Dim")), "cube": number(r.get("cube_utilization(%)")),
                "mac": number(r["aic_mac_ratio"]) if r.get("aic_mac_ratio") not in (None, "", "N/A") else None,
            })
    report(name, tasks)


def db_fixture(name, path, info_json=None):
    db = sqlite3.connect(path)
    s = dict(db.execute("SELECT id, value FROM STRING_IDS"))
    pmu = {}
    for task, key, value in db.execute("SELECT globalTaskId, name, value FROM TASK_PMU_INFO"):
        pmu.setdefault(task, {})[s.get(key)] = value
    freq = [f for (f,) in db.execute("SELECT freq FROM AICORE_FREQ")]
    tasks = []
    for start, end, task, op, shapes, outs, types, block in db.execute(
            "SELECT t.startNs, t.endNs, t.globalTaskId, c.opType, c.inputShapes, c.outputShapes, c.inputDataTypes, "
            "c.blockDim FROM TASK t JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = t.globalTaskId"):
        p = pmu.get(task, {})
        tasks.append({
            "op": s.get(op, ""), "in_shapes": s.get(shapes, ""), "out_shapes": s.get(outs, ""), "types": s.get(types, ""),
            "dur_ns": end - start, "aicore_us": number(p.get("aic_total_time")) / 1000,
            "cycles": number(p.get("aic_total_cycles")), "block": number(block), "cube": 0.0,
            "mac": p.get("aic_mac_ratio"),
        })
    npu = [n for (n,) in db.execute("SELECT name FROM NPU_INFO")]
    report(name, tasks, f"; AICORE_FREQ samples {sorted(set(freq))} MHz; NPU_INFO {npu}", info_json)


text_fixture("torch_npu level1 rank0",
             DATA + "/torch_npu/msinsight_text_level1_rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv")
text_fixture("torch_npu level1 rank1",
             DATA + "/torch_npu/msinsight_text_level1_rank1_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv")
text_fixture("msprof-analyze 2025 table", DATA + "/torch_npu/mstt_advisor_ut_2025_kernel_details.csv")
db_fixture("msprof db level1 rank0",
           DATA + "/msprof/msinsight_db_level1_rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db")
db_fixture("msprof db level1 rank1",
           DATA + "/msprof/msinsight_db_level1_rank1_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_1.db")
# msprof-analyze's own setting: the database with a PROF folder's info.json (tst_ascendefficiency plants one with
# the 910B figures the text export's counters give: 24 AI cores at 1800 MHz).
db_fixture("msprof db level1 rank0 + info.json",
           DATA + "/msprof/msinsight_db_level1_rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db",
           (24, 1800))

text = "\n".join(OUT) + "\n"
if CHECK:
    with open(CHECK) as f:
        expected = f.read()
    if expected != text:
        sys.stdout.write(text)
        sys.exit("the figures differ from " + CHECK + ": update it and tst_ascendefficiency.cpp together")
    print("figures as in " + CHECK)
else:
    sys.stdout.write(text)
