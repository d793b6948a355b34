#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The generated man page and bash completion cover every command and option timesink-cli's help names.
# Usage: check-cli-docs.sh TIMESINK_CLI MANPAGE COMPLETION
set -euo pipefail
cli=$1 man=$2 completion=$3
fail() { echo "FAIL: $*" >&2; exit 1; }

[ -s "$man" ] || fail "no man page at $man"
grep -q '^\.TH TIMESINK-CLI "1"' "$man" || fail "man page has no .TH header"
commands=$("$cli" --help | awk '/^Commands:/{on=1; next} on && /^$/{exit} on && /^  [a-z]/{print $1}')
[ -n "$commands" ] || fail "no commands in timesink-cli --help"
! grep -q '???' "$man" || fail "man page lost non-ASCII characters (help2man ran without a UTF-8 locale)"
for c in $commands; do
    grep -q "^\.SS \"timesink-cli $c\"" "$man" || fail "man page has no section for command '$c'"
    for opt in $("$cli" "$c" --help | grep -oE '(^|[ [])--?[a-zA-Z][a-zA-Z0-9-]*' | tr -d ' [' | sort -u); do
        grep -qF -- "$opt" "$man" || fail "man page does not document '$c $opt'"
    done
done
# The finding kinds: the analyze help lists them from the pass registry (tst_analyzecli holds it to the registry).
kinds=$("$cli" analyze --help | awk '/^Kinds:/{on=1} on && /^$/{exit} on' | sed 's/^Kinds://' | tr ', ' '\n\n' \
    | grep -E '^[a-z][a-z0-9_]*$' || true)
[ -n "$kinds" ] || fail "no kinds in timesink-cli analyze --help"
for k in $kinds; do
    grep -qF -- "$k" "$man" || fail "man page does not name the finding kind '$k'"
done

# shellcheck source=/dev/null
source "$completion"
complete_line() {  # complete_line WORD... : COMPREPLY for the last word
    COMP_WORDS=(timesink-cli "$@")
    COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
    COMPREPLY=()
    _timesink_cli
    printf '%s\n' "${COMPREPLY[@]}"
}
for c in $commands; do
    complete_line "${c:0:2}" | grep -qx "$c" || fail "'${c:0:2}<TAB>' does not complete to '$c'"
    for opt in $("$cli" "$c" --help | grep -oE '(^|[ [])--?[a-zA-Z][a-zA-Z0-9-]*' | tr -d ' [' | sort -u); do
        complete_line "$c" "$opt" | grep -qx -- "$opt" || fail "'$c $opt<TAB>' does not offer '$opt'"
    done
done
formats=$(complete_line analyze --format "" | sort | tr '\n' ' ')
[ "$formats" = "csv html json md text " ] || fail "'analyze --format <TAB>' offers '$formats'"
[ -z "$(complete_line compare --top "")" ] || fail "'compare --top <TAB>' should offer nothing (it takes a number)"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
touch "$tmp/map.tsv"
complete_line compare --op-map "$tmp/ma" | grep -qx "$tmp/map.tsv" || fail "'compare --op-map <TAB>' does not complete files"
echo "man page and completion cover: $(echo $commands)"
