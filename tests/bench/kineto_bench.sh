#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Measures `timesink-cli info` on a synthetic ~1 GB Kineto trace (plain and gzip): wall time, peak RSS, MB/s,
# next to `cat FILE > /dev/null` in the same run (the disk/page-cache floor), several runs each.
# Usage: kineto_bench.sh GEN_KINETO TIMESINK_CLI WORKDIR [SIZE_MB=1024] [RUNS=3]
set -euo pipefail
gen="$1"; cli="$2"; dir="$3"; size="${4:-1024}"; runs="${5:-3}"
mkdir -p "$dir"
json="$dir/kineto_${size}mb.json"
if [ ! -s "$json" ] || [ ! -s "$json.gz" ]; then
    "$gen" "$json" "$size" --gzip
fi
if [ ! -x /usr/bin/time ]; then
    echo "kineto_bench: /usr/bin/time is missing (scripts/setup installs it)" >&2
    exit 1
fi

measure() { # FILE → lines "cat S" and "run S KB"
    local f="$1" bytes mb t0 t1 catS
    bytes=$(stat -c %s "$f")
    mb=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }')
    echo "== $f ($mb MB on disk)"
    for i in $(seq "$runs"); do
        t0=$(date +%s.%N); cat "$f" > /dev/null; t1=$(date +%s.%N)
        catS=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
        local out; out=$(mktemp)
        t0=$(date +%s.%N)
        /usr/bin/time -v "$cli" info "$f" > "$out.stdout" 2> "$out"
        t1=$(date +%s.%N)
        local wall rss slices
        wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
        rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$out")
        slices=$(awk '$1 == "slices" { print $2 }' "$out.stdout")
        awk -v i="$i" -v w="$wall" -v c="$catS" -v r="$rss" -v mb="$mb" -v s="$slices" 'BEGIN {
            printf "run %d: timesink %.3f s (%.0f MB/s), peak RSS %.0f MB, %s slices | cat %.3f s | ratio %.1fx\n",
                   i, w, mb / w, r / 1024, s, c, (c > 0 ? w / c : 0) }'
        rm -f "$out" "$out.stdout"
    done
}
measure "$json"
measure "$json.gz"
echo "targets: 1 GB plain JSON in <= 2.5 s with peak RSS <= 512 MB"
