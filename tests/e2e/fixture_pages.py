"""Browser checks on real pages: runs tlparse -i on each provenance fixture
(and each example trace) and hands every written page with its view JSON to
tests/browser/check_pages.mjs, which clicks every kernel call site in
headless Chromium and compares the highlight with the JSON, and to
tests/browser/firefox_check.mjs, which does the same in Firefox ESR; two of
the reports again with every text embedded deflated. Screenshots go to the
folder given as the first argument. Exit 77 (skipped) when chromium is
missing."""

import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import tracelog  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
TLPARSE = os.environ.get("TLPARSE", "tlparse")
FIXTURES = ["inductor_provenance_jit_cuda_log.txt",
            "inductor_provenance_jit_debug_handle_log.txt",
            "inductor_provenance_aot_cuda_log.txt",
            "inductor_provenance_aot_log.txt",
            "inductor_provenance_aot_log_old.txt"]
EXAMPLES = ["jit-cuda", "jit-cpu", "aot-cuda", "aot-cpu", "combo", "rec-cond",
            "rec-flex", "rec-subgraphs", "rec-subgraphs-aot",
            "rec-subgraphs-cpp-wrapper", "rec-while-cpp-wrapper"]


def fixture_traces():
    """[(path, name)] of the provenance fixtures, or [] (saying so) where
    the shared fixtures folder is absent."""
    if not os.path.isdir(tracelog.FIXTURES):
        print("shared fixtures folder is absent: checking the examples only")
        return []
    return [(tracelog.fixture(f), f.split(".")[0]) for f in FIXTURES]


def provenance_pages(out, keep):
    """[page, view, ...] of the provenance pages in a report folder whose
    view JSON `keep` accepts."""
    pairs = []
    for page in sorted(os.listdir(out)):
        if not (page.startswith("provenance_tracking_") and
                page.endswith(".html")):
            continue
        view = os.path.join(out, page[:-len(".html")] + ".json")
        with open(view) as f:
            if keep(json.load(f)):
                pairs += [os.path.join(out, page), view]
    return pairs


def check_trace(work, trace, name, env):
    """Writes the report of one trace and checks its pages in both
    browsers; returns how many checks failed (0, 1 or 2)."""
    out = os.path.join(work, name)
    subprocess.run([TLPARSE, trace, "-i", "-o", out, "--no-browser"],
                   check=True, env=dict(os.environ, CI="1", **env),
                   stdout=subprocess.DEVNULL)
    # Folders that hold only chromium events have empty views.
    pairs = provenance_pages(out, lambda v: any(v["artifacts"].values()))
    print("== %s: %d pages" % (name, len(pairs) // 2), flush=True)
    r = subprocess.run(
        ["node", os.path.join(ROOT, "tests", "browser", "check_pages.mjs"),
         "--out", os.path.join(work, "shots", name)] + pairs)
    failed = r.returncode != 0
    if os.path.exists("/usr/bin/firefox-esr"):
        r = subprocess.run(
            ["node", os.path.join(ROOT, "tests", "browser",
                                  "firefox_check.mjs")] + pairs)
        failed += r.returncode != 0
    return failed


def main():
    work = sys.argv[1]
    if not os.path.exists("/usr/bin/chromium"):
        print("chromium is not installed: browser checks skipped")
        return 77
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    traces = [(os.path.join(ROOT, "examples", e, "trace.log"), "example-" + e)
              for e in EXAMPLES] + fixture_traces()
    failed = 0
    for trace, name in traces:
        failed += check_trace(work, trace, name, {}) > 0
    # Large texts are embedded deflated (provpage.h): two reports with every
    # text deflated, a JIT and an AOT one, pass the same checks.
    for trace, name in traces[:1] + traces[2:3]:
        failed += check_trace(work, trace, name + "-deflated",
                              {"TLPARSE_DEFLATE_AT": "0"}) > 0
    total = len(traces) + 2
    print("%d reports passed, %d failed" % (total - failed, failed))
    return 1 if failed else 0

if __name__ == "__main__":
    sys.exit(main())
