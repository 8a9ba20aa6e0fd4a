"""The Rust tlparse 0.4.3 as an oracle: runs it and ours on the same log with
the same flags and lists every difference in what they write.

Compared: the set of files, raw.jsonl line by line, every other file both
tools write that is not HTML (payloads/, the .txt and .json artifacts of the
compile folders, raw.log, compile_directory.json, chromium_events.json) byte
for byte, and whether the exit code is 0.

ALLOWED below is the one allow-list of the differences we make on purpose,
each with its reason; compare() leaves them out of what it returns, so any
difference it returns is unexplained. Each entry also names the test of
test_oracle.py whose inputs show that difference (`seen_in`): that test fails
when the entry no longer explains anything (a fixed difference must leave
the list).

    python3 tests/e2e/oracle.py LOG [tlparse flags...]   # prints differences
"""

import collections
import os
import re
import subprocess
import sys
import tempfile

TLPARSE = os.environ.get("TLPARSE", "tlparse")


def rust_binary():
    """The Rust tlparse of the project's venv, or None."""
    venv = os.environ.get("TLPARSE_VENV", "")
    path = os.path.join(venv, "bin", "tlparse") if venv else ""
    return path if path and os.access(path, os.X_OK) else None


# One deliberate difference: regular expressions matched in full against the
# log's file name, the flags joined by spaces, and one line of the
# differences (`difference`: one pattern, or a tuple of patterns for the
# several lines one cause gives, each of which must still occur); why we
# differ; and the test of test_oracle.py that must see it ("fixtures",
# "generated", "random" or "strict").
Allowance = collections.namedtuple("Allowance",
                                   "log flags difference why seen_in")

ANY = ".*"

ALLOWED = [
    # Files only we write, on every log.
    Allowance(ANY, ANY, r"extra file static/.*",
              "our pages use shared static files (highlight.js, CSS) "
              "instead of inlining them", "fixtures"),
    Allowance(ANY, ANY, r"extra file help\.html",
              "our report explains each artifact kind on a help page",
              "fixtures"),
    Allowance(ANY, ANY, r"extra file [^/]+/inductor_output_code_.*\.py",
              "the exact output code text beside its highlighted page, for "
              "the provenance panels and for users who want the file itself",
              "fixtures"),
    Allowance(ANY, ANY, r"extra file provenance_tracking_[^/]*\.json",
              "the provenance join as JSON for scripts "
              "(docs/provenance-json.md)", "fixtures"),
    Allowance(ANY, ANY, r"extra file recompile_[^/]*\.(html|json)",
              "why a frame compiled again and what changed: a page and its "
              "JSON per recompile (docs/recompile-json.md)", "recompiles"),
    # Differences on some logs.
    Allowance("export.log", ANY,
              r"payloads/3d5fc8d52ca224c024a08ee8aa2e2850\.txt differs.*",
              "the fixture was whitespace-stripped: the 6 empty lines of its "
              "exported_program payload lost their tab (its declared md5 is "
              "that of the payload with 12 spaces on each of them and a final "
              "newline, so the md5 check fails for any reading, the Rust "
              "tool's and ours). The Rust tool drops those blank lines (18 of "
              "24 lines); we keep them as empty lines, so the program reads "
              "as logged", "fixtures"),
    Allowance(r"random\d+-stripped\.log", ANY,
              r"(payloads/[0-9a-f]{32}|[^/]+/[^/]+)\.txt differs.*",
              "a log whose empty payload lines lost their tab (an editor "
              "stripped trailing whitespace): the Rust tool drops those blank "
              "lines from the payload (and its md5 check fails); we keep them "
              "as empty lines, which the md5 confirms. Logs as torch writes "
              "them (a tab on every payload line, CRLF or not) agree",
              "random"),
    Allowance(r"random\d+-stripped\.log", ANY,
              (r"extra file payloads/[0-9a-f]{32}\.txt",
               r"raw\.jsonl line \d+ differs:\n"
               r"  ours b'(.*),\"payload_filename\":\"payloads/[0-9a-f]{32}"
               r"\.txt\"(.*)'\n  rust b'\1\2'"),
              "the same, for a payload made only of empty lines (\"\\n\"): "
              "the Rust tool drops them all, and writes no payloads/ file "
              "and no payload_filename for the empty payload left (as both "
              "tools do for an empty payload); we write the payload as "
              "logged", "random"),
    Allowance(ANY, ".*-i.*",
              r"extra file provenance_tracking_[-0-9]+(_[-0-9]+){3}_\d+\.html",
              "a folder that holds several compilations (AOT compiles carry "
              "no compile id; a forward and its backward, or the compiles "
              "after torch._dynamo.reset(), share one) gets one provenance "
              "view per compilation, the earlier ones named with their "
              "number; the Rust tool shows only the last, under the name we "
              "give the last one too", "generated"),
    Allowance(r"random\d+(-stripped)?\.log", ".*-i.*",
              r"extra file provenance_tracking_[-0-9]+_[-0-9]+_[0-9]+_-\.html",
              "a folder whose compile id has no attempt (`-_0_1_-`) shares its "
              "Rust page name (`provenance_tracking_-_0_1_0`) with the "
              "attempt-0 folder when both exist, and the Rust tool writes one "
              "page for the two; we give each folder its own (alone, it gets "
              "the Rust name)", "random"),
    Allowance("artifact_without_encoding.log", ANY,
              (r"extra file -_0_0_0/a_0\.txt",
               r"compile_directory\.json differs.*",
               r"raw\.jsonl line 2 differs:\n.*"),
              "an artifact entry without its encoding is kept as text (with a "
              "diagnostic); the Rust tool refuses the envelope and reads its "
              "payload lines as broken glog lines, so the payload is lost",
              "strict"),
]


def patterns(a):
    """The difference patterns of an Allowance, as a tuple."""
    return a.difference if isinstance(a.difference, tuple) \
        else (a.difference,)


def allowance(log, flags, difference):
    """(index in ALLOWED, index of its pattern) of what explains a
    difference, or None."""
    for i, a in enumerate(ALLOWED):
        if not (re.fullmatch(a.log, os.path.basename(log))
                and re.fullmatch(a.flags, " ".join(flags))):
            continue
        for j, pattern in enumerate(patterns(a)):
            if re.fullmatch(pattern, difference, re.S):
                return i, j
    return None


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


def first_line_apart(a, b):
    """1-based number of the first line where two texts differ."""
    la, lb = a.split(b"\n"), b.split(b"\n")
    for i, (x, y) in enumerate(zip(la, lb)):
        if x != y:
            return i + 1
    return min(len(la), len(lb)) + 1


def compare_trees(ours, rust):
    """Differences between two output folders, as one line each."""
    diffs = []
    our_files = set(list_files(ours)) if os.path.isdir(ours) else set()
    rust_files = set(list_files(rust)) if os.path.isdir(rust) else set()
    for path in sorted(rust_files - our_files):
        diffs.append("missing file %s" % path)
    for path in sorted(our_files - rust_files):
        diffs.append("extra file %s" % path)
    if "raw.jsonl" in our_files and "raw.jsonl" in rust_files:
        a = read_bytes(os.path.join(ours, "raw.jsonl")).split(b"\n")
        b = read_bytes(os.path.join(rust, "raw.jsonl")).split(b"\n")
        if len(a) != len(b):
            diffs.append("raw.jsonl has %d lines, Rust's %d" % (len(a),
                                                                 len(b)))
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                diffs.append("raw.jsonl line %d differs:\n  ours %s\n  rust %s"
                             % (i + 1, x[:2000], y[:2000]))
                break
    # Every other file both write that is not a page, byte for byte.
    for path in sorted(our_files & rust_files):
        if path.endswith(".html") or path == "raw.jsonl":
            continue
        a = read_bytes(os.path.join(ours, path))
        b = read_bytes(os.path.join(rust, path))
        if a != b:
            diffs.append("%s differs (first at line %d)"
                         % (path, first_line_apart(a, b)))
    return diffs


def compare(log, flags, keep=None, used=None):
    """Runs both tools; returns (differences that no entry of ALLOWED
    explains, our result, Rust result). What explained a difference, as
    (entry index, pattern index), is added to `used` when it is a set."""
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
    unexplained = []
    for d in diffs:
        why = allowance(log, flags, d)
        if why is None:
            unexplained.append(d)
        elif used is not None:
            used.add(why)
    return unexplained, ours, theirs


if __name__ == "__main__":
    seen = set()
    found, _, _ = compare(sys.argv[1], sys.argv[2:],
                          keep=os.environ.get("ORACLE_KEEP"), used=seen)
    for i, j in sorted(seen):
        print("allowed: %s (%s)" % (patterns(ALLOWED[i])[j],
                                    ALLOWED[i].why))
    print("\n".join(found) if found else "same, but for what is allowed")
