#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Golden outputs: `info --format json` and `analyze --format json` of every fixture named in fixtures.txt, run from
# tests/data with relative paths so the files do not depend on where the clone lives.
#   goldens.sh check  TIMESINK_CLI   compare; on a mismatch write NAME.actual beside the golden and show a diff
#   goldens.sh update TIMESINK_CLI   rewrite the goldens (scripts/update-goldens)
set -euo pipefail
mode=$1 cli=$(realpath "$2")
here=$(cd "$(dirname "$0")" && pwd)
data="$here/../data"
cd "$data"
rm -f "$here"/*.actual
failed=0 checked=0
while IFS= read -r fixture; do
    case "$fixture" in ''|'#'*) continue ;; esac
    base=${fixture//\//__}
    for command in info analyze; do
        golden="$here/$base.$command.json"
        actual=$(mktemp)
        if ! "$cli" "$command" "$fixture" --format json >"$actual" 2>"$actual.err"; then
            echo "FAIL: timesink-cli $command $fixture exited non-zero: $(head -c 500 "$actual.err")" >&2
            failed=$((failed + 1)); rm -f "$actual" "$actual.err"; continue
        fi
        rm -f "$actual.err"
        if [ "$mode" = update ]; then
            mv "$actual" "$golden"
        elif [ ! -f "$golden" ]; then
            mv "$actual" "$golden.actual"
            echo "FAIL: no golden $golden (the output is in $golden.actual; scripts/update-goldens accepts it)" >&2
            failed=$((failed + 1))
        elif ! cmp -s "$golden" "$actual"; then
            mv "$actual" "$golden.actual"
            echo "FAIL: $command $fixture differs from $(basename "$golden"):" >&2
            diff -u "$golden" "$golden.actual" | head -n 40 >&2 || true
            failed=$((failed + 1))
        else
            rm -f "$actual"
        fi
        checked=$((checked + 1))
    done
done <"$here/fixtures.txt"
if [ "$mode" = update ]; then
    echo "wrote $checked goldens in tests/golden (review: git diff tests/golden)"
elif [ "$failed" -ne 0 ]; then
    echo "$failed of $checked outputs differ. If the change is intended: scripts/update-goldens, then review git diff tests/golden." >&2
    exit 1
else
    echo "$checked outputs match their goldens"
fi
