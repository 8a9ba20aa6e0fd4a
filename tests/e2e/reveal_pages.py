"""Does a click show its links on screen? Runs tlparse -i on every example
trace of examples/ that writes a provenance page (the recordings included)
and on each provenance fixture, and hands every page with its view JSON to
tests/browser/reveal_check.mjs, which selects kernels and lines every way a
person can at three window sizes and checks, by geometry, that each panel
with linked lines shows one of them. Screenshots (one per page and window
size) go to <work>/shots. Exit 77 (skipped) when chromium is missing.

With --part K/N it checks only every N-th trace from the K-th (1-based) of
the sorted list, so that ctest can run the N parts side by side: the whole
walk takes about ten minutes on a 2-core machine."""

import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from fixture_pages import (  # noqa: E402
    ROOT, TLPARSE, fixture_traces, provenance_pages)


# Examples whose provenance pages are of shapes other examples' pages
# already are, left out of the page-by-page browser checks (each example
# adds about a minute): rec-recompile-kernels' ten are CPU compiles as
# rec-recompiles' (JIT Python) and rec-cpp-wrapper's (cpp_wrapper); its
# recompile pages are clicked by browser_recompile (recompile_pages.py).
# rec-train-recompiles' are forward and backward CPU compiles as
# rec-train-cpu's.
SHAPES_SEEN = {"rec-recompile-kernels", "rec-train-recompiles"}


def example_traces():
    """(trace, name, extra arguments) of every examples/<name>/trace.log
    (but SHAPES_SEEN), sorted by name; one with a profile beside it
    (profile.json.gz) is run once more with --profile, so its time tables
    and charts are clicked."""
    base = os.path.join(ROOT, "examples")
    for name in sorted(os.listdir(base)):
        trace = os.path.join(base, name, "trace.log")
        if os.path.isfile(trace) and name not in SHAPES_SEEN:
            yield trace, "example-" + name, []
            profile = os.path.join(base, name, "profile.json.gz")
            if os.path.isfile(profile):
                yield trace, "example-" + name + "-profiled", [
                    "--profile", profile]


def main():
    args = sys.argv[1:]
    part, parts = 1, 1
    if len(args) == 3 and args[0] == "--part":
        part, parts = (int(n) for n in args[1].split("/"))
        args = args[2:]
    if len(args) != 1 or not 1 <= part <= parts:
        print("usage: reveal_pages.py [--part K/N] WORK_DIR", file=sys.stderr)
        return 2
    work = args[0]
    if not os.path.exists("/usr/bin/chromium"):
        print("chromium is not installed: reveal checks skipped")
        return 77
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    traces = list(example_traces()) + [
        (path, name, []) for path, name in fixture_traces()]
    traces = traces[part - 1::parts]
    pairs = []
    for trace, name, extra in traces:
        out = os.path.join(work, name)
        subprocess.run([TLPARSE, trace, "-i", "-o", out, "--no-browser"] +
                       extra,
                       check=True, env=dict(os.environ, CI="1"),
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # Pages with something to click (folders of chromium events only
        # have none).
        found = provenance_pages(
            out, lambda v: any(k.get("calls") for k in v.get("kernels") or []))
        print("== %s: %d pages with kernel calls" % (name, len(found) // 2),
              flush=True)
        pairs += found
    r = subprocess.run(
        ["node", os.path.join(ROOT, "tests", "browser", "reveal_check.mjs"),
         "--out", os.path.join(work, "shots")] + pairs)
    return r.returncode


if __name__ == "__main__":
    sys.exit(main())
