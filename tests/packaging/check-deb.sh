#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the Debian package with CPack from a finished build and checks what it installs and declares.
# Usage: check-deb.sh BUILD_DIR OUT_DIR gui|headless
set -euo pipefail
build=$1 out=$2 flavour=$3
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$out"; mkdir -p "$out"
cpack --config "$build/CPackConfig.cmake" -G DEB -B "$out" >"$out/cpack.log" 2>&1 || { cat "$out/cpack.log" >&2; fail "cpack -G DEB failed"; }
deb=$(ls "$out"/timesink_*.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || fail "cpack wrote no timesink_*.deb into $out"
contents=$(dpkg-deb -c "$deb")
expect=(./usr/bin/timesink-cli ./usr/share/man/man1/timesink-cli.1 ./usr/share/bash-completion/completions/timesink-cli
        ./usr/share/timesink/opmap/default.tsv ./usr/share/doc/timesink/copyright)
if [ "$flavour" = gui ]; then
    expect+=(./usr/bin/timesink ./usr/share/applications/io.github.timesink.Timesink.desktop
             ./usr/share/metainfo/io.github.timesink.Timesink.metainfo.xml
             ./usr/share/mime/packages/io.github.timesink.Timesink.xml
             ./usr/share/icons/hicolor/scalable/apps/timesink.svg)
fi
for path in "${expect[@]}"; do
    grep -qE " ${path//./\\.}\$" <<<"$contents" || fail "$deb does not install $path"
done
control=$(dpkg-deb -f "$deb")
grep -q '^Package: timesink$' <<<"$control" || fail "package name is not timesink"
grep -qE '^Depends: .*libzstd' <<<"$control" || fail "Depends does not list the shared libraries (shlibdeps): $(grep Depends <<<"$control")"
# The binaries in the package run (the CLI prints its version) and are stripped.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
dpkg-deb -x "$deb" "$tmp"
"$tmp/usr/bin/timesink-cli" --version | grep -q '^timesink-cli ' || fail "packaged timesink-cli does not run"
if command -v file >/dev/null && file "$tmp/usr/bin/timesink-cli" | grep -q 'not stripped'; then fail "timesink-cli is not stripped"; fi
echo "$(basename "$deb"): $(wc -l <<<"$contents") entries, $(du -k "$deb" | cut -f1) KiB"
