#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Issue 46, the seed story: the same ResNet-50 run with num_workers=0 and num_workers=4 (stdlib only).

For each trace: its ProfilerStep#N spans (host steps) and the DataLoader fetches inside them, summed. The difference
of the two runs' step totals is what more DataLoader workers saved: the measured saving that the num_workers=0
run's dataloader_starvation finding projects (tests/analysis/tst_savingbounds.cpp).

Usage: kineto_seed_dataloader.py NUM_WORKERS_0.json.gz NUM_WORKERS_4.json.gz
"""
import gzip
import json
import sys


def totals(path):
    with gzip.open(path, "rt", encoding="utf-8") as f:
        events = json.load(f)["traceEvents"]
    steps = [e for e in events if e.get("ph") == "X" and str(e.get("name", "")).startswith("ProfilerStep#")]
    fetches = [e for e in events if e.get("ph") == "X" and str(e.get("name", "")).startswith("enumerate(DataLoader)")]
    step_us = sum(int(e["dur"]) for e in steps)
    fetch_us = sum(int(f["dur"]) for f in fetches
                   if any(s["ts"] <= f["ts"] < s["ts"] + s["dur"] for s in steps))
    return len(steps), step_us * 1000, fetch_us * 1000


def main(a, b):
    for name, path in (("num_workers_0", a), ("num_workers_4", b)):
        n, step_ns, fetch_ns = totals(path)
        print(f"{name} steps {n} step_ns {step_ns} dataloader_ns {fetch_ns}")
    print(f"saved_ns {totals(a)[1] - totals(b)[1]}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
