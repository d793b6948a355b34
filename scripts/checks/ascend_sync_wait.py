#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Issue 46 item 1: the synchronise a torch_npu step waits in, from the raw trace_view.json (stdlib only).

Prints, for the step (ProfilerStep#N on the main Python thread): its start and length, and the longest blocking call
of the main thread inside it: on Level1 the AscendCL@aclrtSynchronize* call of the CANN lane with the main thread's
id, on Level0 (no CANN lane) the framework op aten::_local_scalar_dense (.item()). Its start is relative to the
step's start. tests/analysis/tst_savingbounds.cpp checks that the critical path covers that wait with device work
or the sync itself.

Usage: ascend_sync_wait.py PATH/TO/*_ascend_pt
"""
import json
import os
import sys
from decimal import Decimal


def ns(us):
    # Exact: the timestamps are microseconds with three decimals (a float loses the nanoseconds at 1.7e15 µs).
    return int((Decimal(str(us)) * 1000).to_integral_value())


def main(folder):
    path = os.path.join(folder, "ASCEND_PROFILER_OUTPUT", "trace_view.json")
    with open(path, encoding="utf-8") as f:
        events = json.load(f, parse_float=Decimal)
    if isinstance(events, dict):
        events = events["traceEvents"]
    procs = {e["pid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"}
    slices = [e for e in events if e.get("ph") == "X"]
    step = max((e for e in slices if str(e.get("name", "")).startswith("ProfilerStep#")), key=lambda e: Decimal(str(e["dur"])))
    main_tid = step["tid"]
    s0, s1 = ns(step["ts"]), ns(step["ts"]) + ns(step["dur"])
    cann = [e for e in slices if procs.get(e["pid"]) == "CANN" and e["tid"] == main_tid
            and "Synchronize" in e["name"]]
    if cann:
        calls = cann
    else:
        calls = [e for e in slices if procs.get(e["pid"]) == "Python" and e["tid"] == main_tid
                 and e["name"] == "aten::_local_scalar_dense"]
    inside = [e for e in calls if s0 <= ns(e["ts"]) < s1]
    wait = max(inside, key=lambda e: Decimal(str(e["dur"])))
    print(f"step_ns {s1 - s0}")
    print(f"wait_call {wait['name']}")
    print(f"wait_start_ns {ns(wait['ts']) - s0}")
    print(f"wait_ns {ns(wait['dur'])}")


if __name__ == "__main__":
    main(sys.argv[1])
