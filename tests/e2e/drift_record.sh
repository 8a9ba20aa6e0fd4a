#!/usr/bin/env bash
# Drift check against the installed PyTorch: records one small JIT CPU trace
# now (examples/record/record_jit_cpu.py, provenance on, empty Inductor
# cache, in a temp folder), reads it with `tlparse --strict -i` and checks the
# page contract: exit 0, no diagnostics, and a provenance_tracking_*.json
# with at least one kernel that has calls, post-grad nodes and code links.
# Usage: drift_record.sh [TLPARSE]   (default $TLPARSE, else build/tlparse)
# Python: $TLPARSE_VENV/bin/python, else build/venv/bin/python.
# Exit 77 = skipped (no torch in the venv).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
tlparse=${1:-${TLPARSE:-$root/build/tlparse}}
venv=${TLPARSE_VENV:-$root/build/venv}
python=$venv/bin/python
if ! [ -x "$python" ] || ! (cd / && "$python" -c "import torch" >/dev/null 2>&1); then
  echo "no torch in $venv: drift_record skipped"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$root"/examples/record/*.py "$work/"
version=$(cd / && "$python" -c "import torch; print(torch.__version__)" 2>/dev/null)
# TMPDIR too: Inductor's precompiled headers go under the temporary folder
# whatever the cache folder, and would otherwise stay in /tmp.
if ! (cd "$work" && TORCH_TRACE=trace TORCHINDUCTOR_CACHE_DIR="$work/cache" \
      TMPDIR="$work" INDUCTOR_PROVENANCE=1 timeout 600 "$python" record_jit_cpu.py \
      >"$work/record.out" 2>&1); then
  echo "FAIL: recording with torch $version failed"; tail -20 "$work/record.out"; exit 1
fi
logs=("$work"/trace/*.log)
[ "${#logs[@]}" -eq 1 ] && [ -f "${logs[0]}" ] || { echo "FAIL: torch $version wrote ${#logs[@]} logs"; exit 1; }
CI=1 "$tlparse" "${logs[0]}" -o "$work/out" --no-browser --strict -i \
    >"$work/tl.out" 2>"$work/tl.err"
rc=$?
if [ "$rc" -ne 0 ] || [ -s "$work/tl.err" ]; then
  echo "FAIL: tlparse exit $rc on a torch $version trace, diagnostics:"; cat "$work/tl.err"; exit 1
fi
"$python" - "$work/out" "$version" <<'PY'
import glob, json, os, sys
out, version = sys.argv[1], sys.argv[2]
good = []
for path in glob.glob(os.path.join(out, "provenance_tracking_*.json")):
    with open(path) as f:
        view = json.load(f)
    for k in view["kernels"]:
        if k["calls"] and k["post_nodes"] and all(
                str(c) in view["lines"]["codeToPost"] for c in k["calls"]):
            good.append((os.path.basename(path), k["key"]))
if not good:
    sys.exit("FAIL: torch %s: no provenance view has a kernel with links" % version)
print("ok: torch %s trace read with --strict -i; %d kernels linked, e.g. %s in %s"
      % (version, len(good), good[0][1], good[0][0]))
PY
