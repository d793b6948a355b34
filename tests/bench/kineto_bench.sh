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

jsonMb=$(awk -v b="$(stat -L -c %s "$json")" 'BEGIN { printf "%.1f", b / 1048576 }')
# Wall time depends on what else runs on the machine; CPU time (user + sys) much less, so both are printed.
# MB/s is JSON text per wall second (for .gz, of the decompressed text).
measure() { # FILE
    local f="$1" bytes t0 t1 catS
    bytes=$(stat -L -c %s "$f")
    echo "== $f ($(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }') MB on disk, $jsonMb MB of JSON); load: $(cut -d' ' -f1-3 /proc/loadavg)"
    local mb="$jsonMb"
    for i in $(seq "$runs"); do
        t0=$(date +%s.%N); cat "$f" > /dev/null; t1=$(date +%s.%N)
        catS=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
        local out; out=$(mktemp)
        t0=$(date +%s.%N)
        /usr/bin/time -v "$cli" info "$f" > "$out.stdout" 2> "$out"
        t1=$(date +%s.%N)
        local wall rss slices cpu
        wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
        rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$out")
        cpu=$(awk -F': ' '/User time|System time/ { s += $2 } END { printf "%.2f", s }' "$out")
        slices=$(awk '$1 == "slices" { print $2 }' "$out.stdout")
        awk -v i="$i" -v w="$wall" -v c="$catS" -v r="$rss" -v mb="$mb" -v s="$slices" -v cpu="$cpu" 'BEGIN {
            printf "run %d: timesink %.3f s wall (%.0f MB/s), %.2f s CPU, peak RSS %.0f MB, %s slices | cat %.3f s | ratio %.1fx\n",
                   i, w, mb / w, cpu, r / 1024, s, c, (c > 0 ? w / c : 0) }'
        rm -f "$out" "$out.stdout"
    done
}
measure "$json"
measure "$json.gz"
echo "targets: 1 GB plain JSON in <= 2.5 s with peak RSS <= 512 MB"
