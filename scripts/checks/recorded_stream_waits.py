#!/usr/bin/env python3
"""Independent check for issue 46 item 2 ("streams as they are"), computed from the raw Kineto JSON, not from Timesink.

Kineto records a stream's wait on another (cudaStreamWaitEvent) as a `cuda_sync` "Stream Wait Event" with `stream`
(the stream that waits), `wait_on_stream` and `wait_on_cuda_event_record_corr_id` (the cudaEventRecord call whose
event it waits for). The wait holds the first operation launched on `stream` after the wait until the last operation
launched on `wait_on_stream` before the record has ended.

It held that operation when the operation started later than its launch and its own stream allowed (by more than
20 us over the trace's typical launch latency and stream gap) and at most the typical gap + 20 us after the awaited
operation ended. Typical latency: the median of (start - launch call start) over operations whose stream was free
when their call began; typical gap: the median of (start - previous end) over the others that started more than the
typical latency after their call.

Usage: recorded_stream_waits.py TRACE.json[.gz]  -> one line per recorded wait, then "held N of M"
"""
import gzip
import json
import statistics
import sys

DEVICE = {"kernel", "gpu_memcpy", "gpu_memset"}
SLACK = 20_000


def ns(us):
    return round(us * 1000)


def median_low(values):
    # The C++ side takes the lower median of a sorted list (nth_element at size / 2 of the list).
    if not values:
        return 0
    values = sorted(values)
    return values[len(values) // 2]


def main(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        events = json.load(f)["traceEvents"]
    calls = {e["args"]["correlation"]: e for e in events
             if e.get("cat") == "cuda_runtime" and "correlation" in e.get("args", {})}
    streams = {}
    for e in events:
        if e.get("cat") in DEVICE and e.get("ph") == "X":
            a = e["args"]
            streams.setdefault((a.get("device", e["pid"]), a.get("stream", e["tid"])), []).append(e)
    for ops in streams.values():
        ops.sort(key=lambda e: ns(e["ts"]))
    launched = lambda e: ns(calls[e["args"]["correlation"]]["ts"])
    waits = []  # (wait event, awaited operation, waiting operation)
    for w in events:
        a = w.get("args", {})
        if w.get("cat") != "cuda_sync" or "wait_on_cuda_event_record_corr_id" not in a:
            continue
        if a.get("stream", -1) < 0 or a["stream"] == a["wait_on_stream"]:
            continue
        record = calls.get(a["wait_on_cuda_event_record_corr_id"])
        src = [e for e in streams.get((a["device"], a["wait_on_stream"]), [])
               if e["args"].get("correlation") in calls and record is not None and launched(e) <= ns(record["ts"])]
        dst = [e for e in streams.get((a["device"], a["stream"]), [])
               if e["args"].get("correlation") in calls and launched(e) >= ns(w["ts"])]
        if not src or not dst:
            continue
        s, t = max(src, key=launched), min(dst, key=launched)
        if ns(t["ts"]) >= ns(s["ts"] + s["dur"]):
            waits.append((w, s, t))
    waiting = {id(t) for _, _, t in waits}
    lags, queued = [], []
    for ops in streams.values():
        for i, e in enumerate(ops):
            call = calls.get(e["args"].get("correlation"))
            if call is None or id(e) in waiting:  # a recorded wait explains its delay: not a typical launch
                continue
            start, s = ns(e["ts"]), ns(call["ts"])
            pred_end = ns(ops[i - 1]["ts"] + ops[i - 1]["dur"]) if i > 0 else None
            if pred_end is None or pred_end <= s:
                lags.append(start - s)
            else:
                queued.append((start - s, start - pred_end))
    typ_lag = max(0, median_low(lags))
    typ_gap = max(0, median_low([p for c, p in queued if c > typ_lag]))
    print(f"typical launch latency {typ_lag} ns, typical stream gap {typ_gap} ns")
    held = 0
    for w, s, t in waits:
        a = w["args"]
        s_end, t_start = ns(s["ts"] + s["dur"]), ns(t["ts"])
        ops = streams[(a["device"], a["stream"])]
        i = ops.index(t)
        ready = launched(t) + typ_lag
        if i > 0:
            ready = max(ready, ns(ops[i - 1]["ts"] + ops[i - 1]["dur"]) + typ_gap)
        d = t_start - s_end
        is_held = t_start - ready > SLACK and d <= typ_gap + SLACK
        held += is_held
        print(f"stream {a['stream']} waits on {a['wait_on_stream']}: {t['name'][:40]} at {t_start} after "
              f"{s['name'][:40]} ended at {s_end} (+{d} ns){' held' if is_held else ''}")
    total = len(waits)
    print(f"held {held} of {total}")


if __name__ == "__main__":
    main(sys.argv[1])
