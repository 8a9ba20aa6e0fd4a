#!/bin/sh
# run_all.sh: build every libFuzzer harness with clang (ASan + UBSan) and run
# each for SECONDS, on the committed corpus plus seeds cut from the shared
# fixtures (when present). Prints executions, coverage and crashes per target.
#
#   tests/fuzz/run_all.sh SECONDS [TARGET...]
#
# Build folder: build-libfuzzer/ (override with TL_FUZZ_BUILD). Working
# corpora grow in $TL_FUZZ_BUILD/corpus/<target>; crash inputs land in
# $TL_FUZZ_BUILD/crashes/<target>/: copy each one, once fixed, into
# tests/fuzz/crashes/<target>/ so the ctest replay keeps it fixed.
# Exit status: 0 when no target crashed, 1 otherwise.
set -eu

seconds=${1:?usage: run_all.sh SECONDS [TARGET...]}
shift
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${TL_FUZZ_BUILD:-$root/build-libfuzzer}
fixtures=$(cd "$root/.." && pwd)/shared/fixtures/tlparse-inputs
jobs=${TL_FUZZ_JOBS:-2}
targets=${*:-reader trace fx pycode cppcode provenance diff emit export multirank discovery profile}
flags="-g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all"

cmake -S "$root" -B "$build" -DCMAKE_C_COMPILER=clang \
  -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DTLPARSE_LIBFUZZER=ON -DBUILD_TESTING=OFF \
  -DTLPARSE_AREAS="engine;page;docs;fuzz;profile" >/dev/null
set --
for t in $targets; do set -- "$@" "fuzz_$t"; done
cmake --build "$build" -j"$jobs" --target "$@" >/dev/null

rm -rf "$build/seeds"
if [ -d "$fixtures" ]; then
  python3 "$here/make_seeds.py" fixtures "$fixtures" "$build/seeds" >/dev/null
else
  echo "run_all: $fixtures is absent: committed corpus only"
fi

status=0
printf '%-11s %10s %8s %8s %7s %s\n' target execs exec/s cov ft crashes
for t in $targets; do
  corpus="$build/corpus/$t"
  crashes="$build/crashes/$t"
  mkdir -p "$corpus" "$crashes"
  log="$build/fuzz_$t.log"
  set -- "$corpus" "$here/corpus/$t"
  [ -d "$here/crashes/$t" ] && set -- "$@" "$here/crashes/$t"
  [ -d "$build/seeds/$t" ] && set -- "$@" "$build/seeds/$t"
  # Leaks are checked at exit of each input; -rss_limit_mb bounds hostile
  # allocations; the dictionary holds the trace format's tokens.
  if ! ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0 \
       UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
       "$build/fuzz_$t" -max_total_time="$seconds" -timeout=60 \
       -rss_limit_mb=4096 -max_len=262144 -print_final_stats=1 \
       -dict="$here/tokens.dict" -artifact_prefix="$crashes/" \
       "$@" >"$log" 2>&1; then
    status=1
  fi
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  found=$(find "$crashes" -type f | wc -l)
  printf '%-11s %10s %8s %8s %7s %s\n' "$t" "${execs:-?}" "${rate:-?}" \
    "${cov:-?}" "${ft:-?}" "$found"
  [ "$found" -eq 0 ] || { status=1; find "$crashes" -type f; }
done
echo "logs: $build/fuzz_<target>.log"
exit $status
