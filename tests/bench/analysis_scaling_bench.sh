#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue #35 goal 1: does `analyze` grow linearly with the trace? Generates two Kineto traces (SMALL_MB and LARGE_MB,
# same generator, same step size, so the large one has ~LARGE/SMALL times the steps), turns each into a snapshot
# (the JSON of the large one is deleted afterwards: it is only needed once), then runs `analyze --phases` on the two
# snapshots alternately, RUNS pairs, and prints per phase the medians and the large/small ratio (goal: total ≤ 11×
# for 10×, analysis phase ≤ 0.5 s per GB of JSON). With BENCH_GUI_OPEN it also opens both snapshots in the window
# (first timeline paint, findings, the longest UI stall, and the paint time of zoom/pan/search frames at full zoom-out;
# goals: ≤ 3 s from the 10 GB snapshot, ≤ 50 ms a frame).
# Usage: analysis_scaling_bench.sh GEN_KINETO TIMESINK_CLI WORKDIR [SMALL_MB=1024] [LARGE_MB=10240] [RUNS=3] [BENCH_GUI_OPEN]
set -euo pipefail
gen="$1"; cli="$2"; dir="$3"; small="${4:-1024}"; large="${5:-10240}"; runs="${6:-3}"; gui="${7:-}"
mkdir -p "$dir"
export XDG_CACHE_HOME="$dir/xdg-cache" XDG_CONFIG_HOME="$dir/xdg-config"
declare -A jsonMb
for size in "$small" "$large"; do
    snap="$dir/kineto_${size}mb.tsnap"
    json="$dir/kineto_${size}mb.json"
    if [ ! -s "$snap" ]; then
        [ -s "$json" ] || "$gen" "$json" "$size"
        "$cli" export --no-cache "$json" -o "$snap" >/dev/null
        stat -L -c %s "$json" > "$snap.jsonsize"
        [ "$size" = "$small" ] || rm -f "$json"
    fi
    jsonMb[$size]=$(awk -v b="$(cat "$snap.jsonsize")" 'BEGIN { printf "%.0f", b / 1048576 }')
done

echo "load: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
results="$dir/results.txt"
: > "$results"
for i in $(seq "$runs"); do
    for size in "$small" "$large"; do
        out=$(mktemp)
        t0=$(date +%s.%N)
        "$cli" analyze --phases "$dir/kineto_${size}mb.tsnap" --format json -o "$dir/report_${size}.json" 2> "$out"
        t1=$(date +%s.%N)
        wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
        analysis=$(sed -n 's/^phases: analysis \([0-9.]*\) s (passes \([0-9.]*\) s, critical paths and savings \([0-9.]*\) s).*/\1 \2 \3/p' "$out")
        report=$(sed -n 's/^phases: report \([0-9.]*\) s.*/\1/p' "$out")
        echo "$size $wall $analysis $report" >> "$results"
        echo "run $i: ${jsonMb[$size]} MB of JSON: wall ${wall} s, analysis/passes/savings ${analysis// //} s, report ${report} s"
        rm -f "$out"
    done
done
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
column() { awk -v s="$1" -v c="$2" '$1 == s { print $c }' "$results" | median; }
for c in 2:wall 3:analysis 4:passes 5:savings 6:report; do
    n="${c%%:*}"; name="${c#*:}"
    a=$(column "$small" "$n"); b=$(column "$large" "$n")
    awk -v name="$name" -v a="$a" -v b="$b" -v ma="${jsonMb[$small]}" -v mb="${jsonMb[$large]}" 'BEGIN {
        printf "%-9s %8.3f s  %8.3f s  %6.2fx  (%.3f / %.3f s per GB)\n", name, a, b, (a > 0 ? b / a : 0), a / (ma / 1024), b / (mb / 1024) }'
done
echo "(medians; JSON ${jsonMb[$small]} MB vs ${jsonMb[$large]} MB = $(awk -v a="${jsonMb[$small]}" -v b="${jsonMb[$large]}" 'BEGIN { printf "%.2f", b / a }')x)"
if [ -n "$gui" ]; then
    for size in "$small" "$large"; do
        echo "window, ${jsonMb[$size]} MB snapshot: $(QT_QPA_PLATFORM=offscreen "$gui" "$dir/kineto_${size}mb.tsnap" --frames 2>/dev/null | tail -1)"
    done
fi
