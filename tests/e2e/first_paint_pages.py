"""Does the provenance page show its code before any script runs, and does
the script take it over without moving a line? Runs tlparse -i on every
example trace of examples/ (the profiled ones once more with --profile) and
hands each provenance page that has an artifact, with its view JSON, to
tests/browser/first_paint.mjs. Exit 77 (skipped) when chromium is
missing."""

import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from fixture_pages import ROOT, TLPARSE, provenance_pages  # noqa: E402
from reveal_pages import example_traces  # noqa: E402


def main():
    work = sys.argv[1]
    if not os.path.exists("/usr/bin/chromium"):
        print("chromium is not installed: first paint checks skipped")
        return 77
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    pairs = []
    for trace, name, extra in example_traces():
        out = os.path.join(work, name)
        subprocess.run([TLPARSE, trace, "-i", "-o", out, "--no-browser"] +
                       extra,
                       check=True, env=dict(os.environ, CI="1"),
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        found = provenance_pages(
            out, lambda v: any((v.get("artifacts") or {}).values()))
        print("== %s: %d pages" % (name, len(found) // 2), flush=True)
        pairs += found
    r = subprocess.run(
        ["node", os.path.join(ROOT, "tests", "browser", "first_paint.mjs")] +
        pairs)
    return r.returncode


if __name__ == "__main__":
    sys.exit(main())
