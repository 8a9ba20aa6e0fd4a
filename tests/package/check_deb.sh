#!/usr/bin/env bash
# tests/package/check_deb.sh: the Debian package (cmake/packaging.cmake).
# Builds the product alone (no tests) into build/deb (never build/), makes the
# .deb with CPack, and checks it: its dependencies name the Debian packages
# of the libraries the binary loads, apt could install it here, its files
# (binary, man page, completions, docs, copyright); then unpacks it with
# `dpkg -x` into a scratch root, runs that binary (LD_LIBRARY_PATH unset)
# with --help and on a real trace, byte-identical to the build tree's
# build/tlparse, and reads its man page with `man -l`.
#
#   bash tests/package/check_deb.sh
#
# TLPARSE_REF names the reference binary (default build/tlparse). Where a
# tool it needs is missing it prints one line "check_deb: skipped: ..." and
# exits 0; otherwise its last line is "check_deb: N passed, N failed" and it
# exits 1 if any failed.
set -euo pipefail
cd "$(dirname "$0")/../.."
src=$PWD
name=check_deb
skip() { echo "$name: skipped: $*"; exit 0; }

for tool in cmake cpack pkg-config cc dpkg-deb dpkg-query ldd; do
  command -v "$tool" >/dev/null 2>&1 || skip "$tool not found"
done
command -v dpkg-shlibdeps >/dev/null 2>&1 ||
  skip "dpkg-shlibdeps not found (Debian: dpkg-dev)"
for dir in grammars assets; do
  if [ ! -f "$dir/node_modules/.package-lock.json" ]; then
    command -v npm >/dev/null 2>&1 ||
      skip "npm not found (the build installs $dir/ from its lock file)"
  fi
done

out=$src/build/deb
fixture=$src/../shared/fixtures/tlparse-inputs/inductor_provenance_jit_cuda_log.txt
ref=${TLPARSE_REF:-$src/build/tlparse}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

passed=0
failed=0
ok() { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAIL: $*"; failed=$((failed + 1)); }
check() { # check DESCRIPTION COMMAND...
  local what=$1
  shift
  if "$@"; then ok "$what"; else bad "$what"; fi
}
t0=$SECONDS
step() { echo "-- $* ($((SECONDS - t0)) s)"; }

# --- build and package -------------------------------------------------------
step "building into build/deb (log: build/deb/build.log)"
mkdir -p "$out"
rm -f "$out"/*.deb
if ! { cmake -S . -B "$out" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DBUILD_TESTING=OFF -DCMAKE_INSTALL_PREFIX=/usr &&
  cmake --build "$out" -j2 &&
  (cd "$out" && cpack -G DEB); } >"$out/build.log" 2>&1; then
  tail -n 40 "$out/build.log"
  echo "$name: the package did not build"
  exit 1
fi
debs=("$out"/*.deb)
deb=${debs[0]}
echo "package: ${deb#"$src"/} ($(stat -c %s "$deb") bytes)"
version=$(sed -n 's/^project(tlparse VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
check "package tlparse, version $version" \
  test "$(dpkg-deb -f "$deb" Package Version | tr '\n' ' ')" = "Package: tlparse Version: $version "

# --- dependencies ------------------------------------------------------------
# Each library the built binary loads belongs to a Debian package that the
# .deb must depend on (the C library's is libc6).
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
# The package holding a library: dpkg knows a file by the path it shipped it
# at, /lib/... or /usr/lib/... (the two are one folder on a merged /usr).
owner_of() {
  local real base dir candidate
  real=$(readlink -f "$1")
  base=${real##*/}
  dir=${real%/*}
  dir=${dir#/usr}
  for candidate in "$dir/$base" "/usr$dir/$base"; do
    if dpkg-query -S "$candidate" >"$tmp/owner" 2>/dev/null; then
      head -n 1 "$tmp/owner" | cut -d: -f1
      return
    fi
  done
}
depends_names=$(sed 's/([^)]*)//g; s/[,|]/\n/g' <<<"$depends" | tr -d ' ')
while read -r soname arrow path _; do
  [ "$arrow" = "=>" ] || continue
  owner=$(owner_of "$path")
  if [ -z "$owner" ]; then
    bad "$soname ($path) belongs to no Debian package"
  elif grep -qxF "$owner" <<<"$depends_names"; then
    ok "depends on $owner ($soname)"
  else
    bad "does not depend on $owner ($soname)"
  fi
done < <(env -u LD_LIBRARY_PATH ldd "$out/tlparse")
if command -v apt-get >/dev/null 2>&1; then
  if apt-get install -s "$deb" >"$tmp/apt.log" 2>&1; then
    ok "apt-get can install it here (simulated)"
  else
    bad "apt-get install -s: $(tail -n 5 "$tmp/apt.log")"
  fi
fi

# --- contents ----------------------------------------------------------------
root=$tmp/root
dpkg-deb -x "$deb" "$root"
check "usr/bin/tlparse, stripped" sh -c \
  "test -x '$root/usr/bin/tlparse' && ! readelf -S '$root/usr/bin/tlparse' | grep -q '\.debug_info'"
check "the man page usr/share/man/man1/tlparse.1" \
  test -f "$root/usr/share/man/man1/tlparse.1"
check "the bash completion usr/share/bash-completion/completions/tlparse" \
  cmp -s completions/tlparse.bash "$root/usr/share/bash-completion/completions/tlparse"
check "the zsh completion usr/share/zsh/vendor-completions/_tlparse" \
  cmp -s completions/_tlparse "$root/usr/share/zsh/vendor-completions/_tlparse"
check "usr/share/doc/tlparse/copyright is the LICENSE" \
  cmp -s LICENSE "$root/usr/share/doc/tlparse/copyright"
missing=""
for doc in README.md docs/*.md docs/help/*.md; do
  [ -f "$root/usr/share/doc/tlparse/$doc" ] || missing+=" $doc"
done
check "the docs in usr/share/doc/tlparse${missing:+, missing:$missing}" test -z "$missing"

# --- the unpacked binary ---------------------------------------------------------
run_clean() { # run_clean DIR COMMAND...: a clean environment, in DIR
  local dir=$1
  shift
  (cd "$dir" && env -i PATH=/usr/bin:/bin HOME="$tmp" LANG=C.UTF-8 "$@")
}
if run_clean "$tmp" "$root/usr/bin/tlparse" --help >"$tmp/help.txt" 2>&1 &&
  grep -q '^usage: tlparse PATH' "$tmp/help.txt"; then
  ok "tlparse --help"
else
  bad "tlparse --help: $(head -c 300 "$tmp/help.txt")"
fi
if command -v man >/dev/null 2>&1; then
  page=$(MANWIDTH=200 man -l -P cat "$root/usr/share/man/man1/tlparse.1" 2>&1 || true)
  if grep -q '^TLPARSE(1)' <<<"$page" && grep -q -- '--inductor-provenance' <<<"$page" &&
    grep -q -- '--all-ranks-html' <<<"$page"; then
    ok "man -l reads the man page"
  else
    bad "man -l: $(head -c 300 <<<"$page")"
  fi
else
  echo "skipped: man -l (man not found)"
fi

if [ ! -f "$fixture" ]; then
  echo "skipped: the output comparison (no ../shared/fixtures/tlparse-inputs beside the checkout)"
elif [ ! -x "$ref" ]; then
  echo "skipped: the output comparison (no reference binary $ref: build it first, or set TLPARSE_REF)"
else
  step "tlparse -i on ${fixture##*/}, package and build tree"
  mkdir -p "$tmp/deb" "$tmp/ref"
  fixture=$(readlink -f "$fixture")
  set +e
  run_clean "$tmp/deb" "$root/usr/bin/tlparse" "$fixture" -i --no-browser \
    -o tl_out >"$tmp/deb.log" 2>&1
  deb_status=$?
  run_clean "$tmp/ref" "$ref" "$fixture" -i --no-browser -o tl_out \
    >"$tmp/ref.log" 2>&1
  ref_status=$?
  set -e
  check "the package's run exits as the build tree's ($deb_status, $ref_status)" \
    test "$deb_status" = "$ref_status"
  files=$(find "$tmp/ref/tl_out" -type f | wc -l)
  pages=$(find "$tmp/ref/tl_out" -type f -name '*.html' -path '*provenance*' | wc -l)
  check "the build tree wrote a report with provenance pages ($files files, $pages provenance pages)" \
    test "$files" -gt 10 -a "$pages" -gt 0
  if diff -r "$tmp/ref/tl_out" "$tmp/deb/tl_out" >"$tmp/diff.txt" 2>&1; then
    ok "the package's report is byte-identical to the build tree's ($files files)"
  else
    bad "the reports differ: $(head -c 600 "$tmp/diff.txt")"
  fi
  check "the package's messages equal the build tree's" cmp -s "$tmp/ref.log" "$tmp/deb.log"
fi

step "done"
echo "$name: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
