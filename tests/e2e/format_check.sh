#!/usr/bin/env bash
# Every C file follows the committed .clang-format (exit 77 = clang-format
# is not installed).
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
command -v clang-format >/dev/null || { echo "clang-format not installed: skipped"; exit 77; }
cd "$root"
files=$(git ls-files '*.c' '*.h' 2>/dev/null || find src tests -name '*.[ch]')
bad=0 good=0
for f in $files; do
  if clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then
    good=$((good + 1))
  else
    bad=$((bad + 1))
    echo "not formatted: $f"
  fi
done
echo "$good passed, $bad failed"
[ "$bad" = 0 ]
