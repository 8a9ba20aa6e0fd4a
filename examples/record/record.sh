#!/bin/sh
# Records one example trace the way the committed rec-* traces were made:
#   sh examples/record/record.sh record_jit_cpu.py examples/rec-jit-cpu
# Runs the script from a neutral folder ($REC_DIR, default /tmp/rec) with a
# relative TORCH_TRACE, an empty Inductor cache (TORCHINDUCTOR_CACHE_DIR)
# and provenance tracking on, so the trace names no checkout path; then
# copies the log (trace.log, or every rank's log) and any profile.json.gz
# into DEST and rewrites the paths of the recording Python there
# (scrub_paths.py). PYTHON defaults to build/venv/bin/python.
set -eu
script=$1
dest=$2
here=$(cd "$(dirname "$0")" && pwd)
python=${PYTHON:-$here/../../build/venv/bin/python}
rec=${REC_DIR:-/tmp/rec}
name=$(basename "$dest")
rm -rf "$rec/$name"
mkdir -p "$rec/$name"
cp "$here"/*.py "$rec/$name/"
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
cd "$rec/$name"
start=$(date +%s)
TORCH_TRACE=trace TORCHINDUCTOR_CACHE_DIR=$rec/$name/cache INDUCTOR_PROVENANCE=1 \
    "$python" "$script" trace
echo "recorded in $(( $(date +%s) - start )) s"
logs=$(ls trace/*.log)
if [ "$(echo "$logs" | wc -l)" -eq 1 ]; then
    cp "$logs" "$dest/trace.log"
else
    cp $logs "$dest/"
fi
if [ -f trace/profile.json.gz ]; then cp trace/profile.json.gz "$dest/"; fi
chmod 644 "$dest"/*
# The recording Python's own paths become neutral ones (/opt/venv, /usr).
"$python" "$here/scrub_paths.py" "$dest"/*.log $(ls "$dest"/*.json.gz 2>/dev/null)
ls -l "$dest"
