#!/usr/bin/env bash
# `man tlparse` works after `cmake --install`: installs the build into a
# scratch prefix and reads the page with man. Usage: BUILD_DIR WORK_DIR.
# Exit 77 = man is not installed.
set -eu
build=$1
prefix=$2
command -v man >/dev/null || { echo "man is not installed: skipped"; exit 77; }
rm -rf "$prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
test -x "$prefix/bin/tlparse"
page=$(MANPATH="$prefix/share/man" MANWIDTH=200 man -P cat tlparse 2>/dev/null)
grep -q "^TLPARSE(1)" <<<"$page"
grep -q -- "--inductor-provenance" <<<"$page"
grep -q -- "--strict-compile-id" <<<"$page"
echo "1 passed, 0 failed"
