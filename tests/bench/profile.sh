#!/bin/sh
# profile.sh: where tlparse's time goes on one input (issue 6). Builds Release
# with debug info and frame pointers in build-bench-prof/, records the run
# with `perf record --call-graph dwarf` (both threads), and prints the share
# of CPU samples per pipeline step (tests/bench/perf_shares.py).
#
#   tests/bench/profile.sh build-bench/bench/fixture-200x.log
#   tests/bench/profile.sh TRACE [perf record options, default -F 999]
#
# Needs perf (linux-perf); where perf cannot record, use
#   valgrind --tool=callgrind build-bench-prof/tlparse TRACE -i -o OUT ...
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 1 ] || { echo "usage: $0 TRACE [perf options]" >&2; exit 2; }
trace=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
build="$root/build-bench-prof"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
  "-DCMAKE_C_FLAGS=-g -fno-omit-frame-pointer" >/dev/null
cmake --build "$build" -j2 --target tlparse >/dev/null

# A new output folder, deleted after the run: creating files soon after
# deleting thousands of others costs ext4 an inode scan (see
# docs/performance.md), which would show up as tlparse's time.
out="${TLPARSE_PROFILE_OUT_ROOT:-$build}/profile-out.$$"
data="$build/perf.data"
sync
if [ $# -eq 0 ]; then set -- -F 999; fi
perf record "$@" --call-graph dwarf,16384 -o "$data" \
  "$build/tlparse" "$trace" -i -o "$out" --overwrite --no-browser
rm -rf "$out"
perf script -i "$data" 2>/dev/null | python3 "$root/tests/bench/perf_shares.py"
echo "profile.sh: details with: perf report -i $data --no-children"
