"""Recompile pages in headless Chromium: runs tlparse -i on
examples/rec-recompile-kernels and hands the pages of a changed module
attribute ([0/1]: kernels changed, added and renumbered) and of a dynamic
recompile with the C++ wrapper ([2/1]) to tests/browser/recompile_page.mjs,
which clicks a changed node and a kernel with the mouse and checks the
provenance page's selection on screen (screenshots in WORK/shots). Exit 77
(skipped) when chromium is missing."""

import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from fixture_pages import ROOT, TLPARSE  # noqa: E402

STEMS = ["recompile_-_0_0_to_1", "recompile_-_2_0_to_1"]


def main():
    work = sys.argv[1]
    if not os.path.exists("/usr/bin/chromium"):
        print("chromium is not installed: recompile page checks skipped")
        return 77
    shutil.rmtree(work, ignore_errors=True)
    out = os.path.join(work, "out")
    subprocess.run([TLPARSE, os.path.join(ROOT, "examples",
                                          "rec-recompile-kernels",
                                          "trace.log"),
                    "-i", "-o", out, "--no-browser"],
                   check=True, env=dict(os.environ, CI="1"),
                   stdout=subprocess.DEVNULL)
    code = 0
    for stem in STEMS:
        print("== %s" % stem, flush=True)
        r = subprocess.run(["node", os.path.join(ROOT, "tests", "browser",
                                                 "recompile_page.mjs"),
                            out, stem, os.path.join(work, "shots")])
        if r.returncode == 77:
            return 77
        code = code or r.returncode
    return code


if __name__ == "__main__":
    sys.exit(main())
