#!/usr/bin/env python3
"""Independent check of "unrecorded device work" (issue 46) from a raw Kineto JSON, not from Timesink.

A launch whose operation starts at least 1 ms after its runtime call returned, while no recorded device operation
runs, means the device ran (or its stream waited on) work the trace does not hold. Prints the union of those
stretches (ns) and the launches behind them.

Usage: unrecorded_work.py TRACE.json.gz
"""
import gzip
import json
import sys

DEVICE = {"kernel", "gpu_memset", "gpu_memcpy"}
MIN_NS = 1_000_000


def ns(us):
    return round(us * 1000)


def unite(intervals):
    out = []
    for a, b in sorted(intervals):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def subtract(a, b, busy):
    pieces, cur = [], a
    for s, e in busy:
        if e <= cur or s >= b:
            continue
        if s > cur:
            pieces.append((cur, s))
        cur = max(cur, e)
    if cur < b:
        pieces.append((cur, b))
    return pieces


def main(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        events = json.load(f)["traceEvents"]
    calls = {e["args"]["correlation"]: e for e in events if e.get("cat") == "cuda_runtime" and "correlation" in e.get("args", {})}
    device = [e for e in events if e.get("cat") in DEVICE and e.get("ph") == "X"]
    busy = unite((ns(e["ts"]), ns(e["ts"] + e["dur"])) for e in device if e.get("dur", 0) > 0)
    held = []
    for e in device:
        call = calls.get(e.get("args", {}).get("correlation"))
        if call is None:
            continue
        returned, started = ns(call["ts"] + call["dur"]), ns(e["ts"])
        if started - returned < MIN_NS:
            continue
        for piece in subtract(returned, started, busy):
            if piece[1] - piece[0] >= MIN_NS:
                held.append(piece)
                print(f"held launch: {call['name']} correlation {e['args']['correlation']} → {e['name'][:60]}: {piece[1] - piece[0]} ns")
    total = sum(b - a for a, b in unite(held))
    print(f"unrecorded_ns {total}")


if __name__ == "__main__":
    main(sys.argv[1])
