#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 35: `timesink-cli info` (import + text output + exit) on traces of N single-event tracks, two shapes
# (`device`: each event on its own GPU device; `pidtid`: each on its own pid/tid), N = 30k … 1M, and how the time
# grows: t(N) / (N/100k × t(100k)) is 1.0 when linear. With a second CLI in $TIMESINK_BENCH_BASELINE_CLI (an older
# build) every run is paired with one of it, A/B alternated, and the ratio new/old is printed per size (up to
# N = $TIMESINK_BENCH_BASELINE_UPTO when set: an old build may be quadratic).
# Usage: tracks_bench.sh BENCH_TRACKS CLI DIR [SIZES] [REPEATS]   (SIZES default "30000 100000 300000 1000000")
set -euo pipefail
gen="$1"
cli="$2"
dir="$3"
sizes="${4:-30000 100000 300000 1000000}"
repeats="${5:-3}"
baseline="${TIMESINK_BENCH_BASELINE_CLI:-}"
baselineUpTo="${TIMESINK_BENCH_BASELINE_UPTO:-0}"
mkdir -p "$dir"
export XDG_CACHE_HOME="$dir/cache" # a cache of its own, empty: every run imports
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(free -g | awk '/Mem:/{print $2}') GB"

seconds() { # CLI FILE: wall seconds of `info` (text), stdout discarded
    local t0 t1
    t0=$(date +%s%N)
    "$1" --no-cache info "$2" >/dev/null
    t1=$(date +%s%N)
    echo "scale=3; ($t1 - $t0) / 1000000000" | bc
}
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

for shape in device pidtid; do
    declare -A new=()
    for n in $sizes; do
        file="$dir/tracks_${shape}_$n.json"
        "$gen" --write "$shape" "$n" "$file"
        a=""
        b=""
        paired=""
        if [[ -n "$baseline" && ("$baselineUpTo" == 0 || "$n" -le "$baselineUpTo") ]]; then paired=1; fi
        for ((r = 0; r < repeats; ++r)); do
            if [[ -n "$paired" ]]; then a+=" $(seconds "$baseline" "$file")"; fi
            b+=" $(seconds "$cli" "$file")"
        done
        new[$n]=$(echo "$b" | median)
        line="$shape N=$n: info ${new[$n]} s (runs:$b)"
        if [[ -n "$paired" ]]; then
            old=$(echo "$a" | median)
            line+="; baseline $old s (runs:$a); new/old $(echo "scale=2; ${new[$n]} / $old" | bc)"
        fi
        if [[ -n "${new[100000]:-}" && "$n" != 100000 ]]; then
            line+="; t/(N/100k × t(100k)) $(echo "scale=2; ${new[$n]} / ($n / 100000 * ${new[100000]})" | bc)"
        fi
        echo "$line; load $(cut -d' ' -f1-3 /proc/loadavg)"
        rm -f "$file"
    done
    unset new
done
