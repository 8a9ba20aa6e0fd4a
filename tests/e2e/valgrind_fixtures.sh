#!/usr/bin/env bash
# valgrind memcheck on the real fixture runs (issue 7): every shared fixture
# log and every example, with -i; any memory error or definite/indirect leak
# fails. Usage: valgrind_fixtures.sh TLPARSE WORK_DIR. Exit 77 = skipped.
set -u
tlparse=$1
work=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
fixtures="$root/../shared/fixtures/tlparse-inputs"
command -v valgrind >/dev/null || { echo "valgrind not installed: skipped"; exit 77; }
logs=("$root"/examples/*/trace.log)
if [ -d "$fixtures" ]; then
  logs+=("$fixtures"/*.log "$fixtures"/*.txt)
else
  echo "shared fixtures folder is absent: checking the examples only"
fi
rm -rf "$work" && mkdir -p "$work"
passed=0 failed=0
for log in "${logs[@]}"; do
  name=$(basename "$(dirname "$log")")_$(basename "$log")
  if CI=1 valgrind -q --error-exitcode=99 --leak-check=full \
      --errors-for-leak-kinds=definite,indirect \
      "$tlparse" "$log" -i --no-browser -o "$work/$name" >/dev/null \
      2>"$work/$name.valgrind"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL $log"
    cat "$work/$name.valgrind"
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
