"""Page load beside the Rust tool, for every example (a benchmark, not a
test: the figures of docs/performance.md, "Page load beside the Rust tool").

For each examples/<name>/ (its trace.log, or for a multi-rank example its
rank-0 log) writes the report of this tree's tlparse with -i and the Rust
tool's with --inductor-provenance, picks the provenance page with the most
kernel call sites (by our view JSON) that both wrote, and hands every pair
to tests/browser/bench_load.mjs, which loads the two pages of a pair in turn
and prints the medians and the machine's load average.

  python3 tests/bench/load_pages.py --rust RUST_TLPARSE [--tlparse build/tlparse]
      [--work build/load-pages] [--runs 11] [--confirm 41] [NAME ...]
"""

import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))


def example_logs(names):
    """[(name, log)] of the examples: trace.log, or the first rank's log."""
    base = os.path.join(ROOT, "examples")
    for name in sorted(os.listdir(base)):
        if names and name not in names:
            continue
        folder = os.path.join(base, name)
        trace = os.path.join(folder, "trace.log")
        if os.path.isfile(trace):
            yield name, trace
            continue
        ranks = sorted(f for f in os.listdir(folder)
                       if "_rank_0_" in f and f.endswith(".log"))
        if ranks:
            yield name, os.path.join(folder, ranks[0])


def call_sites(view_path):
    with open(view_path) as f:
        view = json.load(f)
    return sum(len(k.get("calls") or []) for k in view.get("kernels") or [])


def pick_page(ours, rust):
    """The page name both reports hold with the most kernel call sites in
    our view, or None."""
    best = None
    for page in sorted(os.listdir(ours)):
        if not (page.startswith("provenance_tracking_") and
                page.endswith(".html")):
            continue
        view = os.path.join(ours, page[:-len(".html")] + ".json")
        if not os.path.isfile(view) or \
                not os.path.isfile(os.path.join(rust, page)):
            continue
        calls = call_sites(view)
        if best is None or calls > best[0]:
            best = (calls, page)
    return best[1] if best else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rust", required=True, help="the Rust tlparse")
    ap.add_argument("--tlparse", default=os.path.join(ROOT, "build", "tlparse"))
    ap.add_argument("--work", default=os.path.join(ROOT, "build", "load-pages"))
    ap.add_argument("--runs", default="11")
    ap.add_argument("--confirm", default="0",
                    help="load each page later at 95%% again with this "
                         "many fresh pairs (bench_load.mjs)")
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    triples = []
    for name, log in example_logs(set(args.names)):
        ours = os.path.join(args.work, "ours", name)
        rust = os.path.join(args.work, "rust", name)
        for cmd, out in (([args.tlparse, log, "-i"], ours),
                         ([args.rust, log, "--inductor-provenance"], rust)):
            subprocess.run(cmd + ["-o", out, "--overwrite", "--no-browser"],
                           check=True, env=dict(os.environ, CI="1"),
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        page = pick_page(ours, rust)
        if page is None:
            print("%s: no provenance page in both reports" % name)
            continue
        triples += [name, os.path.join(ours, page), os.path.join(rust, page)]
    r = subprocess.run(["node", os.path.join(ROOT, "tests", "browser",
                                             "bench_load.mjs"),
                        "--runs", args.runs, "--confirm", args.confirm] +
                       triples)
    return r.returncode


if __name__ == "__main__":
    sys.exit(main())
