#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Rank-pair links of the Ascend 2-rank job, straight from communication_matrix.json (stdlib only).

Per (src, dst, transport): a group (the "@hash" part of an operation key) with a "-total" operation counts only
that one, else every operation; "Total Op Info" is skipped. MB are 10^6 bytes, ms 10^6 ns, GB/s = bytes / ns.
The expected figures of tst_job's realAscendTextJob come from this script.

Usage: scripts/checks/rank_links.py [RANK_FOLDER ...]  (default: the two msinsight_text_level1 fixtures)
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT = [
    os.path.join(HERE, "..", "..", "tests", "data", "torch_npu", f"msinsight_text_level1_rank{r}_ascend_pt")
    for r in (0, 1)
]


def links(folder):
    path = os.path.join(folder, "ASCEND_PROFILER_OUTPUT", "communication_matrix.json")
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    sums = {}
    for groups in doc.values():
        for kind in ("collective", "p2p"):
            ops = groups.get(kind, {})
            totalled = {k.partition("@")[1] + k.partition("@")[2] for k in ops if k.partition("@")[0].endswith("-total")}
            for key, pairs in ops.items():
                group = key.partition("@")[1] + key.partition("@")[2]
                if key == "Total Op Info" or (group in totalled and not key.partition("@")[0].endswith("-total")):
                    continue
                for pair, link in pairs.items():
                    src, dst = (int(x) for x in pair.split("-"))
                    k = (src, dst, link["Transport Type"])
                    mb, ms = sums.get(k, (0.0, 0.0))
                    sums[k] = (mb + link["Transit Size(MB)"], ms + link["Transit Time(ms)"])
    return sums


def main():
    merged = {}
    for folder in sys.argv[1:] or DEFAULT:
        for k, v in links(folder).items():
            merged.setdefault(k, v)
    for (src, dst, transport), (mb, ms) in sorted(merged.items()):
        b, ns = round(mb * 1e6), round(ms * 1e6)
        print(f"{src}-{dst} {transport} bytes={b} transit_ns={ns} gb_per_s={b / ns:.4f}")


if __name__ == "__main__":
    main()
