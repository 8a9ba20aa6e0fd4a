#!/bin/sh
# run.sh: the benchmark in one command (issue 6). Builds tlparse in Release in
# build-bench/ (unless --tlparse names a binary), generates the inputs into
# build-bench/bench/ and times them with tests/bench/bench.py, which prints a
# table and writes it to build-bench/bench/results-DATE.md.
#
#   tests/bench/run.sh                    full run (about 6 minutes)
#   tests/bench/run.sh --only fixture-200x --runs 3
#   tests/bench/run.sh --smoke --tlparse build/tlparse --work /tmp/smoke
#   tests/bench/run.sh --multi-rank --work /dev/shm/mr64   64-rank job against
#       the Rust tool (tests/bench/multi_rank_bench.py; about 3 minutes)
#
# Other options go to bench.py after run.sh's own (--tlparse, --work, --smoke):
# --results FILE, --fixtures DIR, --runs N, --only NAME, --out-root DIR.
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
tlparse=""
work=""
smoke=""
multi=""
while [ $# -gt 0 ]; do
  case "$1" in
  --tlparse) tlparse=$2; shift 2 ;;
  --work) work=$2; shift 2 ;;
  --smoke) smoke="--smoke"; shift ;;
  --multi-rank) multi=1; shift ;;
  *) break ;;
  esac
done

if [ -z "$tlparse" ]; then
  build="$root/build-bench"
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DBUILD_TESTING=OFF >/dev/null
  cmake --build "$build" -j2 --target tlparse >/dev/null
  tlparse="$build/tlparse"
  : "${work:=$build/bench}"
fi
: "${work:=$root/build-bench/bench}"

python=$(command -v python3 || command -v python)
if [ -n "$multi" ]; then
  rust="$root/build/venv/bin/tlparse"
  [ -x "$rust" ] && set -- --rust "$rust" "$@"
  exec "$python" "$root/tests/bench/multi_rank_bench.py" --tlparse "$tlparse" \
    --work "$work" "$@"
fi
exec "$python" "$root/tests/bench/bench.py" --tlparse "$tlparse" \
  --work "$work" $smoke "$@"
