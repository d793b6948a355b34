#!/usr/bin/env python3
"""Independent bound for issue 46 ("one window"), computed from the raw Kineto JSON, not from Timesink.

For the analysed step of a trace: the window starts when the device has finished the work queued before the step
(device operations that started before the step's device annotation) and ends at the last end of the device work the
step's host launched. With every dtype conversion (kernels launched from inside aten::to / aten::_to_copy) removed,
the device still has to run the rest of the step's device work, one stream after the window start, so no fix can
save more than window − remaining device time.

Usage: qwen_window_bound.py TRACE.json.gz  → prints window, conversion tasks, remaining device time and the bound (ns)
"""
import gzip
import json
import sys

DEVICE = {"kernel", "gpu_memset", "gpu_memcpy"}


def ns(us):
    return round(us * 1000)


def main(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        events = json.load(f)["traceEvents"]
    host_step = next(e for e in events if e.get("cat") == "user_annotation" and e["name"].startswith("ProfilerStep#"))
    dev_step = next(e for e in events if e.get("cat") == "gpu_user_annotation" and e["name"] == host_step["name"])
    hs, he = ns(host_step["ts"]), ns(host_step["ts"] + host_step["dur"])
    calls = {e["args"]["correlation"]: e for e in events if e.get("cat") == "cuda_runtime" and "correlation" in e.get("args", {})}
    device = [e for e in events if e.get("cat") in DEVICE and e.get("ph") == "X"]
    # Conversions: runtime calls nested (same thread, by time) in an aten::to / aten::_to_copy op.
    convs = [e for e in events if e.get("cat") == "cpu_op" and e["name"] in ("aten::to", "aten::_to_copy")]
    by_tid = {}
    for c in convs:
        by_tid.setdefault(c["tid"], []).append((ns(c["ts"]), ns(c["ts"] + c["dur"])))

    def in_conversion(call):
        t0 = ns(call["ts"])
        return any(a <= t0 < b for a, b in by_tid.get(call["tid"], []))

    ds = ns(dev_step["ts"])
    ws = max((ns(e["ts"] + e["dur"]) for e in device if ns(e["ts"]) < ds), default=hs)
    ws = max(ws, hs)
    own = []
    for e in device:
        call = calls.get(e.get("args", {}).get("correlation"))
        if call is not None and hs <= ns(call["ts"]) < he:
            own.append((e, call))
    we = max(ns(e["ts"] + e["dur"]) for e, _ in own)
    conversions = [e for e, call in own if in_conversion(call) and e.get("cat") == "kernel"]
    remaining = sorted((ns(e["ts"]), ns(e["ts"] + e["dur"])) for e, call in own if not (in_conversion(call) and e.get("cat") == "kernel"))
    busy, cur = 0, None
    for a, b in remaining:
        if cur and a <= cur[1]:
            cur[1] = max(cur[1], b)
        else:
            if cur:
                busy += cur[1] - cur[0]
            cur = [a, b]
    if cur:
        busy += cur[1] - cur[0]
    print(f"window_ns {we - ws}")
    print(f"window_start_after_host_step_ns {ws - hs}")
    print(f"conversion_kernels {len(conversions)} {sum(ns(e['dur']) for e in conversions)}")
    print(f"remaining_device_ns {busy}")
    print(f"bound_ns {we - ws - busy}")


if __name__ == "__main__":
    main(sys.argv[1])
