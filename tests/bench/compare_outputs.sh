#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Before/after check for performance work: `info --format json` and `analyze --format json` of every fixture in
# tests/data must be byte-identical between two builds of timesink-cli (e.g. main's and a branch's).
# Usage: tests/bench/compare_outputs.sh BASE_CLI NEW_CLI   (exit 1 and a diff on the first difference)
set -uo pipefail
base=$(realpath "$1"); new=$(realpath "$2")
cd "$(dirname "$0")/../data"
export XDG_CACHE_HOME; XDG_CACHE_HOME=$(mktemp -d) # no snapshot cache on either side
trap 'rm -rf "$XDG_CACHE_HOME"' EXIT
fixtures=()
for family in */; do
    [ "$family" = "LICENSES/" ] && continue
    [ "$family" = "reference/" ] && continue # other tools' reports on the fixtures, not traces
    for entry in "$family"*; do
        if [ -d "$entry" ] && ! "$base" info "$entry" > /dev/null 2>&1; then
            fixtures+=("$entry"/*) # a folder of traces (ranks), not one bundle
        else
            fixtures+=("$entry")
        fi
    done
done
status=0
for f in "${fixtures[@]}"; do
    for command in info analyze; do
        a=$("$base" "$command" --format json "$f" 2>/dev/null); ra=$?
        b=$("$new" "$command" --format json "$f" 2>/dev/null); rb=$?
        if [ "$a" != "$b" ] || [ "$ra" != "$rb" ]; then
            echo "DIFFERENT: $command $f (exit $ra vs $rb)"
            diff <(echo "$a") <(echo "$b") | head -20
            status=1
        fi
    done
done
echo "${#fixtures[@]} fixtures, info and analyze: $([ $status = 0 ] && echo identical || echo DIFFERENT)"
exit $status
