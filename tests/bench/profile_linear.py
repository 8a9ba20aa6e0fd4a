"""Benchmark: --profile grows linearly with token length and with distinct
names (issue 28, item 7; docs/performance.md, "--profile: linear in tokens
and names"). Not a test: it prints the times, it asserts nothing.

For each size it writes a profile to a scratch folder, runs
`tlparse LOG -i --profile PROFILE` and reports the wall time, the peak RSS
and the time per unit; linear growth shows as a flat time per unit.

  - string: one event whose name is N MiB long (the name of a complete
    event, before the events that matter);
  - names: one compiled graph call holding N kernel events of N distinct
    Inductor kernel names (triton_poi_fused_<i>);
  - --big: also a 1 GiB name in a gzip file of about 1 MB.

  python3 tests/bench/profile_linear.py --tlparse build/tlparse [--big]
      [--names 25000,50000,100000,200000,400000]
Standard library only.
"""
import argparse
import gzip
import os
import resource
import shutil
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
LOG = os.path.join(HERE, "..", "profile", "cpu", "trace.log.gz")

HEAD = ('{"schemaVersion": 1, "deviceProperties": [], "traceEvents": [\n')
TAIL = ']}\n'


def event(name, ts, dur):
    return ('{"ph": "X", "cat": "cpu_op", "name": "%s", "pid": 1, "tid": 1, '
            '"ts": %d.000, "dur": %d.000}' % (name, ts, dur))


def write_string(path, mib, opener=open):
    with opener(path, "wt") as f:
        f.write(HEAD + '{"ph": "X", "cat": "cpu_op", "name": "')
        block = "a" * (1 << 20)
        for _ in range(mib):
            f.write(block)
        f.write('", "pid": 1, "tid": 1, "ts": 0, "dur": 1},\n')
        f.write(event("## Call CompiledFxGraph k ##", 10, 100) + TAIL)


def write_names(path, n):
    with open(path, "w") as f:
        f.write(HEAD)
        f.write(event("## Call CompiledFxGraph k ##", 10, 10 * n + 10) + ",\n")
        for i in range(n):
            f.write(event("triton_poi_fused_%d" % i, 11 + 10 * i, 5) + ",\n")
        f.write(event("after", 20 * n + 100, 1) + TAIL)


def run(tlparse, log, prof, out):
    if os.path.exists(out):
        shutil.rmtree(out)
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t0 = time.monotonic()
    r = subprocess.run([tlparse, log, "-i", "-o", out, "--no-browser",
                        "--profile", prof], capture_output=True, text=True)
    dt = time.monotonic() - t0
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if r.returncode != 0:
        print("  exit %d: %s" % (r.returncode, r.stderr.strip()[:200]))
    return dt, max(rss, before)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tlparse", required=True)
    ap.add_argument("--big", action="store_true")
    ap.add_argument("--work", default=None)
    ap.add_argument("--names", default="25000,50000,100000,200000,400000",
                    help="counts of distinct names, comma-separated")
    a = ap.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="tl-profile-bench-")
    os.makedirs(work, exist_ok=True)
    log = os.path.join(work, "trace.log")
    with gzip.open(LOG, "rb") as f, open(log, "wb") as g:
        g.write(f.read())
    out = os.path.join(work, "out")
    empty = os.path.join(work, "empty.json")
    with open(empty, "w") as f:
        f.write(HEAD + event("after", 0, 1) + TAIL)
    base, _ = run(a.tlparse, log, empty, out)
    print("baseline run (a profile of one event): %.3f s" % base)

    print("\none name of N MiB          time      per MiB    peak RSS")
    for mib in (8, 16, 32, 64, 128):
        p = os.path.join(work, "string.json")
        write_string(p, mib)
        dt, rss = run(a.tlparse, log, p, out)
        print("  %4d MiB            %8.3f s  %7.2f ms  %6d MB"
              % (mib, dt, 1000 * (dt - base) / mib, rss // 1024))
        os.remove(p)
    if a.big:
        p = os.path.join(work, "string.json.gz")
        write_string(p, 1024, lambda path, mode: gzip.open(path, mode, 1))
        dt, rss = run(a.tlparse, log, p, out)
        print("  1 GiB (%d KB .gz) %8.3f s  %7.2f ms  %6d MB"
              % (os.path.getsize(p) // 1024, dt, 1000 * (dt - base) / 1024,
                 rss // 1024))
        os.remove(p)

    print("\nN distinct names in one call  time      per 1000   peak RSS")
    for n in (int(c) for c in a.names.split(",")):
        p = os.path.join(work, "names.json")
        write_names(p, n)
        dt, rss = run(a.tlparse, log, p, out)
        print("  %7d names          %8.3f s  %7.2f ms  %6d MB"
              % (n, dt, 1000 * (dt - base) / (n / 1000), rss // 1024))
        os.remove(p)
    if not a.work:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
