"""The Rust tlparse 0.4.3 as an oracle: runs it and ours on the same log with
the same flags and lists every difference in what they write.

Compared: the set of files (ours may add the files of ALLOWED_EXTRA_FILES),
raw.jsonl line by line, payloads/ file by file, compile_directory.json and
chromium_events.json byte for byte, and the exit code. Each deliberate
difference is one entry of ALLOWED_EXTRA_FILES or ALLOWED, with its reason.

    python3 tests/e2e/oracle.py LOG [tlparse flags...]   # prints differences
"""

import filecmp
import fnmatch
import os
import subprocess
import sys
import tempfile

TLPARSE = os.environ.get("TLPARSE", "tlparse")


def rust_binary():
    """The Rust tlparse of the project's venv, or None."""
    venv = os.environ.get("TLPARSE_VENV", "")
    path = os.path.join(venv, "bin", "tlparse") if venv else ""
    return path if path and os.access(path, os.X_OK) else None


# Files only we write, each with why. Patterns are fnmatch over the path
# relative to the output folder.
ALLOWED_EXTRA_FILES = [
    ("static/*", "our pages use shared static files (highlight.js, CSS) "
                 "instead of inlining them"),
    ("help.html", "our report explains each artifact kind on a help page"),
    ("*/inductor_output_code_*.py",
     "the exact output code text beside its highlighted page, for the "
     "provenance panels and for users who want the file itself"),
    ("provenance_tracking_*.json",
     "the provenance join as JSON for scripts (docs/provenance-json.md)"),
]


def list_files(root):
    found = []
    for folder, _, names in os.walk(root):
        for name in names:
            found.append(os.path.relpath(os.path.join(folder, name), root))
    return sorted(found)


def run(binary, log, out, flags):
    return subprocess.run([binary, log, "-o", out, "--no-browser"] + flags,
                          capture_output=True, text=True,
                          env=dict(os.environ, CI="1"))


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def compare_trees(ours, rust):
    """Differences between two output folders, as one line each."""
    diffs = []
    our_files = set(list_files(ours)) if os.path.isdir(ours) else set()
    rust_files = set(list_files(rust)) if os.path.isdir(rust) else set()
    for path in sorted(rust_files - our_files):
        diffs.append("missing file %s" % path)
    for path in sorted(our_files - rust_files):
        if not any(fnmatch.fnmatch(path, pattern)
                   for pattern, _ in ALLOWED_EXTRA_FILES):
            diffs.append("extra file %s" % path)
    for name in ("compile_directory.json", "chromium_events.json"):
        if name in our_files and name in rust_files and \
                read_bytes(os.path.join(ours, name)) != \
                read_bytes(os.path.join(rust, name)):
            diffs.append("%s differs" % name)
    if "raw.jsonl" in our_files and "raw.jsonl" in rust_files:
        a = read_bytes(os.path.join(ours, "raw.jsonl")).split(b"\n")
        b = read_bytes(os.path.join(rust, "raw.jsonl")).split(b"\n")
        if len(a) != len(b):
            diffs.append("raw.jsonl has %d lines, Rust's %d" % (len(a),
                                                                 len(b)))
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                diffs.append("raw.jsonl line %d differs:\n  ours %s\n  rust %s"
                             % (i + 1, x[:300], y[:300]))
                break
    for path in sorted(our_files & rust_files):
        if path.startswith("payloads/") and not filecmp.cmp(
                os.path.join(ours, path), os.path.join(rust, path),
                shallow=False):
            diffs.append("%s differs" % path)
    return diffs


def compare(log, flags, keep=None):
    """Runs both tools; returns (differences, our result, Rust result)."""
    rust = rust_binary()
    assert rust, "no Rust tlparse in TLPARSE_VENV"
    tmp = keep or tempfile.mkdtemp(prefix="oracle-")
    ours_out = os.path.join(tmp, "ours")
    rust_out = os.path.join(tmp, "rust")
    ours = run(TLPARSE, log, ours_out, flags)
    theirs = run(rust, log, rust_out, flags)
    diffs = []
    if (ours.returncode == 0) != (theirs.returncode == 0):
        diffs.append("exit code %d, Rust's %d" % (ours.returncode,
                                                  theirs.returncode))
    if theirs.returncode == 0 and ours.returncode == 0:
        diffs += compare_trees(ours_out, rust_out)
    if not keep:
        subprocess.run(["rm", "-rf", tmp])
    return diffs, ours, theirs


if __name__ == "__main__":
    found, _, _ = compare(sys.argv[1], sys.argv[2:],
                          keep=os.environ.get("ORACLE_KEEP"))
    print("\n".join(found) if found else "same")
