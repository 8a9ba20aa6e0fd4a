"""Recompile pages in headless Chromium: runs tlparse -i on
examples/rec-recompile-kernels and rec-train-recompiles and hands the
pages of PAGES to tests/browser/recompile_page.mjs,
which clicks a changed node and a kernel with the mouse and checks the
provenance page's selection on screen (screenshots in WORK/shots). Exit 77
(skipped) when chromium is missing."""

import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from fixture_pages import ROOT, TLPARSE  # noqa: E402

# (example, stem): a changed module attribute ([0/1]: kernels changed,
# added and renumbered), a dynamic recompile with the C++ wrapper ([2/1]),
# and a training compile made dynamic ([0/2]: its backward's kernels too).
PAGES = [("rec-recompile-kernels", "recompile_-_0_0_to_1"),
         ("rec-recompile-kernels", "recompile_-_2_0_to_1"),
         ("rec-train-recompiles", "recompile_-_0_1_to_2")]


def main():
    work = sys.argv[1]
    if not os.path.exists("/usr/bin/chromium"):
        print("chromium is not installed: recompile page checks skipped")
        return 77
    shutil.rmtree(work, ignore_errors=True)
    code = 0
    for example, stem in PAGES:
        out = os.path.join(work, example)
        if not os.path.isdir(out):
            subprocess.run([TLPARSE, os.path.join(ROOT, "examples", example,
                                                  "trace.log"),
                            "-i", "-o", out, "--no-browser"],
                           check=True, env=dict(os.environ, CI="1"),
                           stdout=subprocess.DEVNULL)
        print("== %s %s" % (example, stem), flush=True)
        r = subprocess.run(["node", os.path.join(ROOT, "tests", "browser",
                                                 "recompile_page.mjs"),
                            out, stem, os.path.join(work, "shots")])
        if r.returncode == 77:
            return 77
        code = code or r.returncode
    return code


if __name__ == "__main__":
    sys.exit(main())
