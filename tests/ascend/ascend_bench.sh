#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue #3's target: a ~1 GB torch_npu trace_view.json imports at the throughput of the Kineto importer.
# Generates a trace_view.json and a Kineto trace of the same size, then per run: `cat` of both (page-cache
# floor), `timesink-cli info` of the Kineto file and of the torch_npu bundle, interleaved so both see the same
# machine load. Prints wall time, CPU, peak RSS, MB/s and events/s of each, and the Ascend/Kineto ratios.
# Usage: ascend_bench.sh GEN_TRACE_VIEW GEN_KINETO TIMESINK_CLI WORKDIR [SIZE_MB=1024] [RUNS=3]
set -euo pipefail
genAscend="$1"; genKineto="$2"; cli="$3"; dir="$4"; size="${5:-1024}"; runs="${6:-3}"
if [ ! -x /usr/bin/time ]; then
    echo "ascend_bench: /usr/bin/time is missing (scripts/setup installs it)" >&2
    exit 1
fi
bundle="$dir/bench_ascend_pt"
ascend="$bundle/ASCEND_PROFILER_OUTPUT/trace_view.json"
kineto="$dir/kineto_${size}mb.json"
mkdir -p "$bundle/ASCEND_PROFILER_OUTPUT"
[ -s "$ascend" ] || "$genAscend" "$ascend" "$size"
[ -s "$kineto" ] || "$genKineto" "$kineto" "$size"

mb() { awk -v b="$(stat -L -c %s "$1")" 'BEGIN { printf "%.1f", b / 1048576 }'; }
seconds() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

# run INPUT → "wall cpu rssMB records", records = slices + flows as `info` prints them (the model objects the
# importer made; `info` does not print counter samples)
run() {
    local out t0 t1
    out=$(mktemp)
    t0=$(date +%s.%N)
    /usr/bin/time -v "$cli" info "$1" > "$out.stdout" 2> "$out"
    t1=$(date +%s.%N)
    awk -v w="$(seconds "$t0" "$t1")" -F': ' '
        /User time|System time/ { cpu += $2 }
        /Maximum resident set size/ { rss = $2 }
        END { printf "%s %.2f %.0f", w, cpu, rss / 1024 }' "$out"
    awk '$1 == "slices" { s = $2 } $1 == "flows" { f = $2 } END { printf " %d\n", s + f }' "$out.stdout"
    rm -f "$out" "$out.stdout"
}

kMb=$(mb "$kineto"); aMb=$(mb "$ascend")
echo "Kineto $kineto: $kMb MB; torch_npu $ascend: $aMb MB; load: $(cut -d' ' -f1-3 /proc/loadavg)"
ratios=()
for i in $(seq "$runs"); do
    t0=$(date +%s.%N); cat "$kineto" "$ascend" > /dev/null; t1=$(date +%s.%N)
    read -r kw kc kr ke < <(run "$kineto")
    read -r aw ac ar ae < <(run "$bundle")
    ratio=$(awk -v am="$aMb" -v aw="$aw" -v km="$kMb" -v kw="$kw" 'BEGIN { printf "%.2f", (am / aw) / (km / kw) }')
    ratios+=("$ratio")
    awk -v i="$i" -v c="$(seconds "$t0" "$t1")" -v km="$kMb" -v kw="$kw" -v kc="$kc" -v kr="$kr" -v ke="$ke" \
        -v am="$aMb" -v aw="$aw" -v ac="$ac" -v ar="$ar" -v ae="$ae" -v r="$ratio" 'BEGIN {
        printf "run %d: cat both %.2f s\n", i, c
        printf "  kineto    %.2f s wall (%4.0f MB/s, %.2f M records/s), %.2f s CPU, peak RSS %.0f MB\n", kw, km / kw, ke / kw / 1e6, kc, kr
        printf "  torch_npu %.2f s wall (%4.0f MB/s, %.2f M records/s), %.2f s CPU, peak RSS %.0f MB\n", aw, am / aw, ae / aw / 1e6, ac, ar
        printf "  torch_npu / kineto throughput: %.2f (MB/s), %.2f (records/s)\n", r, (ae / aw) / (ke / kw) }'
done
median=$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
echo "median torch_npu / kineto MB/s ratio: $median (target: 1.0, the same streaming path)"
