"""scaling.py: how tlparse's time grows with the number of compile folders
of artifacts in one folder or of ranks (a benchmark, not a test: figures for docs/performance.md,
"Scaling with counts").

Compile folders (the default): for each count N it writes a trace of N
compile ids, each a dynamo_start with a two-frame stack (its inner frame a
function of its own, so the index's stack tree has N siblings) and one small
string artifact, and runs `tlparse TRACE -o OUT --overwrite --no-browser` (and
with -i).

Artifacts in one compile folder (--artifacts): for each count N it writes
a trace of one compile id with N small string artifacts, run as above.

Ranks (--ranks): for each count N it writes a job of N rank logs made by
tests/e2e/multirank_gen.py, each rank one compile with a collective
schedule, runtime estimates with tensor meta, cache state and an execution
order (every cross-rank analysis has N entries to compare), and runs
`tlparse JOB --all-ranks-html -o OUT --overwrite --no-browser` (and with
-i). The CPU times include the rank children's.

It prints the wall time, the user and system CPU time and the peak RSS (the
largest single process of any run so far); then the exponent k of user time
~ N^k fitted over the counts (least squares on the logarithms): 1 is linear,
2 quadratic. System time is mostly the file system's: one folder and a few
files per compile or rank.

    python3 tests/bench/scaling.py [--tlparse build/tlparse]
        [--counts 10000,30000,100000] [--ranks] [--dir /dev/shm/tl-scaling]
        [-i]

Writes its traces and reports under --dir (removed afterwards; tmpfs by
default, so a disk's speed is not measured); 10^6 compile folders need
about 6 GB there and about 4 million inodes with -i (more than a default
/dev/shm allows: mount a tmpfs with `nr_inodes=` set), 10^5 ranks about
1 GB.
"""
import argparse
import hashlib
import math
import os
import resource
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "e2e"))
import multirank_gen  # noqa: E402

PREFIX = "V1127 05:00:00.000000 1 torch/_dynamo/convert_frame.py:1] "


def write_trace(path, count):
    payload = "small artifact"
    md5 = hashlib.md5(payload.encode()).hexdigest()
    with open(path, "w") as f:
        f.write(PREFIX + '{"str": ["model.py", 0]}\n')
        for i in range(count):
            ids = '"frame_id": %d, "frame_compile_id": 0, "attempt": 0' % i
            f.write(PREFIX + '{"dynamo_start": {"stack": [{"line": 1, '
                    '"name": "f", "filename": 0}, {"line": %d, "name": '
                    '"g", "filename": 0}]}, %s}\n' % (i + 2, ids))
            f.write(PREFIX + '{"artifact": {"name": "note", "encoding": '
                    '"string"}, %s, "has_payload": "%s"}\n\t%s\n'
                    % (ids, md5, payload))


def write_artifacts_trace(path, count):
    """One compile id with `count` small string artifacts."""
    payload = "small artifact"
    md5 = hashlib.md5(payload.encode()).hexdigest()
    ids = '"frame_id": 0, "frame_compile_id": 0, "attempt": 0'
    with open(path, "w") as f:
        f.write(PREFIX + '{"str": ["model.py", 0]}\n')
        f.write(PREFIX + '{"dynamo_start": {"stack": [{"line": 1, "name": '
                '"f", "filename": 0}]}, %s}\n' % ids)
        entry = (PREFIX + '{"artifact": {"name": "note", "encoding": '
                 '"string"}, %s, "has_payload": "%s"}\n\t%s\n'
                 % (ids, md5, payload))
        for _ in range(count):
            f.write(entry)


def write_job(folder, count):
    """count rank logs, each one compile seen by every cross-rank check."""
    compile = {"frame": 0, "attempt_of": 0, "cache": "miss",
               "schedule": [multirank_gen.COLLECTIVES[0],
                            multirank_gen.WAIT],
               "runtime": [("extern_kernels.mm", 1500.25),
                           ("triton_poi_fused_0", 999.5)],
               "shape": [4, 4], "collectives": [multirank_gen.COLLECTIVES[0]],
               "waits": 1}
    spec = {"compiles": [compile], "order": ["0/0"]}
    multirank_gen.write_job(folder, {r: spec for r in range(count)})


def run(tlparse, trace, out, extra):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    subprocess.run([tlparse, trace, "-o", out, "--overwrite",
                    "--no-browser"] + extra, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    user = after.ru_utime - before.ru_utime
    system = after.ru_stime - before.ru_stime
    return wall, user, system, after.ru_maxrss / 1024


def exponent(points):
    xs = [math.log(n) for n, _ in points]
    ys = [math.log(max(t, 1e-3)) for _, t in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    num = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    den = sum((x - mx) ** 2 for x in xs)
    return num / den if den else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tlparse", default="build/tlparse")
    ap.add_argument("--counts", default="10000,30000,100000")
    ap.add_argument("--dir", default="/dev/shm/tl-scaling")
    ap.add_argument("-i", action="store_true", help="also with -i")
    shape = ap.add_mutually_exclusive_group()
    shape.add_argument("--ranks", action="store_true",
                       help="N rank logs with --all-ranks-html")
    shape.add_argument("--artifacts", action="store_true",
                       help="N artifacts in one compile folder")
    args = ap.parse_args()
    counts = [int(c) for c in args.counts.split(",")]
    os.makedirs(args.dir, exist_ok=True)
    modes = [("", [])] + ([("-i", ["-i"])] if args.i else [])
    counted = ("ranks" if args.ranks else "artifacts in one folder"
               if args.artifacts else "compile folders")
    print("| %s | mode | wall (s) | user CPU (s) | system CPU (s) "
          "| peak RSS (MiB) |" % counted)
    print("|---:|---|---:|---:|---:|---:|")
    fits = {name: [] for name, _ in modes}
    try:
        for n in counts:
            if args.ranks:
                trace = os.path.join(args.dir, "job-%d" % n)
                write_job(trace, n)
            else:
                trace = os.path.join(args.dir, "trace-%d.log" % n)
                (write_artifacts_trace if args.artifacts else write_trace)(
                    trace, n)
            for name, extra in modes:
                if args.ranks:
                    extra = ["--all-ranks-html"] + extra
                out = os.path.join(args.dir, "out")
                wall, user, system, rss = run(args.tlparse, trace, out, extra)
                fits[name].append((n, user))
                print("| %d | %s | %.2f | %.2f | %.2f | %.0f |"
                      % (n, name or "plain", wall, user, system, rss),
                      flush=True)
                shutil.rmtree(out, ignore_errors=True)
            if args.ranks:
                shutil.rmtree(trace)
            else:
                os.remove(trace)
    finally:
        shutil.rmtree(args.dir, ignore_errors=True)
    for name, points in fits.items():
        if len(points) > 1:
            print("user CPU time ~ N^%.2f (%s)" % (exponent(points),
                                             name or "plain"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
