#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Independent figures for tests/analysis/tst_efficiency.cpp (stdlib only; run from the repository root).

1. Convolution FLOPs of the Ascend ResNet-style fixture (torch_npu level1 rank 0): every Conv2D row of
   kernel_details.csv, 2 * prod(output) * prod(weight) / C_out, with C_out = C1 * C0 of the NC1HWC0 output.
2. Convolution FLOPs and bytes of the Falconsai ViT patch embedding (Kineto, H100 and MI300X): the output size
   from the convolution arithmetic (stride, padding, dilation from Concrete Inputs), 2 * prod(out) * prod(w[1:]).
3. RKNN: for every Conv* layer with a MacUsage of the two rknpu2 tables, 2 * MACs / time against 3 cores x 1024
   INT8 MACs x 1 GHz, beside the table's own MacUsage.
"""
import csv
import gzip
import json
import math
import re

DATA = "tests/data"


def prod(xs):
    return math.prod(xs) if xs else 1


def shapes(cell):
    cell = cell.strip().strip('"')
    return [[int(v) for v in part.split(",")] if part else [] for part in cell.split(";")]


def ascend_conv():
    path = DATA + "/torch_npu/msinsight_text_level1_rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv"
    total = 0
    rows = 0
    for r in csv.DictReader(open(path)):
        if r["Type"] != "Conv2D":
            continue
        ins, outs = shapes(r["Input Shapes"]), shapes(r["Output Shapes"])
        out = outs[0]
        cout = out[1] * out[4] if len(out) == 5 else out[1]
        flops = 2 * prod(out) * prod(ins[1]) // cout
        if len(ins) > 2 and ins[2]:
            flops += prod(out)
        total += flops
        rows += 1
    print(f"ascend Conv2D rows={rows} flops={total}")


def kineto_conv(fixture):
    trace = json.load(gzip.open(DATA + "/torch/" + fixture))
    for e in trace["traceEvents"]:
        if e.get("cat") != "cpu_op" or e["name"] not in ("aten::cudnn_convolution", "aten::miopen_convolution"):
            continue
        a = e["args"]
        x, w = a["Input Dims"][0], a["Input Dims"][1]
        c = a["Concrete Inputs"]
        if e["name"] == "aten::cudnn_convolution":
            pad, stride, dil, bias = json.loads(c[2]), json.loads(c[3]), json.loads(c[4]), []
        else:
            bias, pad, stride, dil = a["Input Dims"][2], json.loads(c[3]), json.loads(c[4]), json.loads(c[5])
        spatial = [(x[2 + i] + 2 * pad[i] - dil[i] * (w[2 + i] - 1) - 1) // stride[i] + 1 for i in range(len(x) - 2)]
        out = [x[0], w[0]] + spatial
        flops = 2 * prod(out) * prod(w[1:]) + (prod(out) if bias else 0)
        nbytes = (prod(x) + prod(w) + (out[1] if bias else 0) + prod(out)) * 2
        print(f"{fixture} {e['name']} flops={flops} bytes={nbytes}")
        return


def rknn_mac():
    peak = 3 * 1024 * 1e9 * 2  # ops per second
    for name in ("rknpu2_2.0.0b0_rk3588_perf_detail_yolov8n_1920x1088_multicore.txt",
                 "toolkit2_2.3.2_rk3588_eval_perf_layers_yolov8n_640.txt"):
        worst = 0.0
        n = 0
        for line in open(DATA + "/rknn/" + name):
            m = re.match(r"\s*\d+\s+(Conv\w*)\s+\w+\s+NPU\s+(\S+)\s+(\(\S+\))\s+\S+\s+(\d+)\s+([\d./]+)\s", line)
            if not m:
                continue
            ins = [[int(v) for v in t.split(",")] for t in re.findall(r"\(([\d,]+)\)", m.group(2))]
            out = [int(v) for v in m.group(3).strip("()").split(",")]
            us = int(m.group(4))
            usage = [float(v) for v in m.group(5).split("/")]
            table = usage[0] if len(set(usage)) == 1 else sum(usage) / len(usage)
            ours = 2 * prod(out) * prod(ins[1][1:]) / (us * 1e-6) / peak * 100
            if us >= 100 and table >= 1.0:
                worst = max(worst, abs(ours - table) / table)
                n += 1
        print(f"{name}: {n} conv layers >= 100 us and >= 1 % MacUsage, max relative difference {worst:.4f}")


if __name__ == "__main__":
    ascend_conv()
    kineto_conv("tracelens_h100_Falconsai_nsfw_image_detection__1016002.json.gz")
    kineto_conv("tracelens_mi300_Falconsai_nsfw_image_detection__1016002.json.gz")
    rknn_mac()
