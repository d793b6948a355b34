#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Job bench: a planted 16-rank Kineto job of ~60 MB per rank (tests/job/plantedjob.h) through
#   1. `timesink-cli analyze` on each rank, one after another (the baseline; its wall time / cores is the target),
#   2. `timesink-cli job DIR -j CORES`,
# and peak RSS of the job against the largest single-rank analyze; then 1,024 per-rank reports merged by `job`.
# Targets: job within 1.3x of sequential / cores; peak RSS within 1.5x of one rank; 1,024 reports in <= 2 s.
# Usage: job_bench.sh GEN_PLANTED_JOB TIMESINK_CLI WORKDIR [RANKS=16] [MB_PER_RANK=60] [CORES=2]
set -euo pipefail
gen="$1"; cli="$2"; dir="$3"; ranks="${4:-16}"; mb="${5:-60}"; cores="${6:-2}"
mkdir -p "$dir"
[ -x /usr/bin/time ] || { echo "job_bench: /usr/bin/time is missing (scripts/setup installs it)" >&2; exit 1; }
wall() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
rssOf() { awk -F': ' '/Maximum resident set size/ { print $2 }' "$1"; }

# Calibrate the filler kernels per step for the size asked (each filler is a cpu_op, a launch and a kernel).
job="$dir/job_${ranks}x${mb}mb"
if [ ! -s "$job/rank-$((ranks - 1)).json" ]; then
    rm -rf "$dir/calibrate" && "$gen" "$dir/calibrate" 1 1000
    per=$(stat -c %s "$dir/calibrate/rank-0.json")
    fillers=$(awk -v p="$per" -v mb="$mb" 'BEGIN { printf "%d", 1000 * mb * 1048576 / p }')
    rm -rf "$job" && "$gen" "$job" "$ranks" "$fillers"
fi
echo "== $ranks ranks of $(awk -v b="$(stat -c %s "$job/rank-0.json")" 'BEGIN { printf "%.1f", b / 1048576 }') MB; load: $(cut -d' ' -f1-3 /proc/loadavg)"

reports="$dir/reports"; rm -rf "$reports"; mkdir -p "$reports"
seqWall=0; maxRss=0
for f in "$job"/rank-*.json; do
    out=$(mktemp)
    t0=$(date +%s.%N)
    /usr/bin/time -v "$cli" analyze "$f" --format json -o "$reports/$(basename "$f" .json).report.json" 2> "$out"
    t1=$(date +%s.%N)
    seqWall=$(awk -v s="$seqWall" -v w="$(wall "$t0" "$t1")" 'BEGIN { printf "%.3f", s + w }')
    r=$(rssOf "$out"); [ "$r" -gt "$maxRss" ] && maxRss=$r
    rm -f "$out"
done
out=$(mktemp)
t0=$(date +%s.%N)
/usr/bin/time -v "$cli" job "$job" -j "$cores" --format json > "$dir/job.json" 2> "$out"
t1=$(date +%s.%N)
jobWall=$(wall "$t0" "$t1"); jobRss=$(rssOf "$out"); rm -f "$out"
awk -v s="$seqWall" -v j="$jobWall" -v c="$cores" -v r="$maxRss" -v jr="$jobRss" 'BEGIN {
    printf "sequential analyze: %.3f s (÷ %d cores = %.3f s), largest rank peak RSS %.0f MB\n", s, c, s / c, r / 1024
    printf "job -j %d: %.3f s, peak RSS %.0f MB\n", c, j, jr / 1024
    printf "ratios: time %.2fx of sequential/cores (target <= 1.3), RSS %.2fx of one rank (target <= 1.5)\n",
           j / (s / c), jr / r }'

# 1,024 reports: the 16 rank reports copied with ranks 0..1023.
many="$dir/reports_1024"; rm -rf "$many"; mkdir -p "$many"
python3 - "$reports" "$many" 1024 <<'PY'
import json, os, sys
src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
files = sorted(os.listdir(src))
for i in range(n):
    with open(os.path.join(src, files[i % len(files)])) as f:
        j = json.load(f)
    j["trace"]["rank"] = i
    j["trace"]["world_size"] = n
    with open(os.path.join(dst, "rank-%d.report.json" % i), "w") as f:
        json.dump(j, f)
PY
size=$(du -sm "$many" | cut -f1)
for i in 1 2 3; do
    t0=$(date +%s.%N)
    "$cli" job "$many" -j "$cores" --format json > /dev/null
    t1=$(date +%s.%N)
    echo "merge 1024 reports ($size MB): run $i $(wall "$t0" "$t1") s (target <= 2 s)"
done
