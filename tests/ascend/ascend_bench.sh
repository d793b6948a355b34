#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Times `timesink-cli info` on a generated torch_npu trace_view.json (the same streaming path as Kineto) next
# to `cat` of the same file.  Usage: ascend_bench.sh GEN CLI DATA_DIR [SIZE_MB=512] [RUNS=3]
set -euo pipefail
gen=$1 cli=$2 data=$3 size=${4:-512} runs=${5:-3}
mkdir -p "$data/bench_ascend_pt/ASCEND_PROFILER_OUTPUT"
file="$data/bench_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json"
[ -s "$file" ] || "$gen" "$file" "$size"
bytes=$(stat -L -c %s "$file")
for ((r = 1; r <= runs; r++)); do
    t0=$(date +%s.%N); cat "$file" >/dev/null; t1=$(date +%s.%N)
    /usr/bin/time -f "%M" -o "$data/rss" "$cli" info "$data/bench_ascend_pt" --format json >"$data/info.json"
    t2=$(date +%s.%N)
    awk -v b="$bytes" -v c="$(echo "$t1 - $t0" | bc)" -v i="$(echo "$t2 - $t1" | bc)" -v rss="$(cat "$data/rss")" \
        'BEGIN { printf "trace_view.json %.0f MB: cat %.2f s, import %.2f s (%.0f MB/s), max RSS %.0f MB\n", b/1048576, c, i, b/1048576/i, rss/1024 }'
done
python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print('format', j['format'], 'slices', j['slices'], 'fallback_op', j['counts']['fallback_op'], 'flows', j['flows'])" "$data/info.json"
