#!/usr/bin/env python3
"""multi_rank_bench.py: --all-ranks-html on a 64-rank job, ours against the
Rust tlparse 0.4.3, side by side in one run (issue 15).

The job: each rank log is one of the shared multi-rank fixture ranks (CRLF
turned to LF) repeated by repeat_trace.py to about --mb MB with fresh frame
ids and kernel names, so every compile of a rank is a distinct one; rank k
takes source k mod 4 (multi_rank_logs ranks 1 and 3, collectives_parity
rank 0, multi_rank_schedule rank 0).

Each configuration (tool x flags) is run --runs times, the tools
interleaved (ours, Rust, ours, ...) so both see the same machine. Measured
per run, for the whole process tree (ours forks one child per rank, at most
-j at once; Rust is one process):
- wall: time.monotonic() around the run;
- cpu: user+sys of the process and every descendant it waited for (wait4,
  whose rusage includes the children's; GNU time's own share is ~1 ms);
- max-rss: GNU time's %M, the ru_maxrss of the tree, i.e. its largest
  single process (for ours the biggest rank child or the parent);
- tree-rss: the peak of the sum of VmRSS over the live process tree,
  sampled every --sample-ms from /proc (children files); this is what the
  machine had to hold at once.

    python3 tests/bench/multi_rank_bench.py --tlparse build/tlparse \
        --rust build/venv/bin/tlparse --work /dev/shm/mr64 [--ranks 64]
        [--mb 3] [--runs 3] [--flags "" "-i"]

With --floors (issue 33), each round also measures the floors of our run,
as bench.py does: the file-system floor (fs_floor.c creating the tree of
our first run, same folders, files and sizes, under --work), the parse
floor (the tree-sitter parse time that every rank child reports with
TLPARSE_STATS=1, summed, divided by the cores), the reading floor
(read_floor.c reading every rank's log, hashing its payloads and reading
once every JSON text a rank's run re-writes) and the
shared-cores floor (the three's CPU over the cores).

Each run's output (about 700 MB for 64 ranks with -i) and each floor's tree
is deleted right after it is measured, so that the benchmark needs room for
one at a time. On tmpfs, where --work is meant to be, that costs the next
run nothing; on ext4, creating files right after deleting thousands of
others can cost it up to a second (docs/performance.md, the "ext4 right
after a mass deletion" item), which bench.py avoids by keeping every output
to its end.

Prints a Markdown table. Nothing here asserts a time; each run must exit 0
and write index.html and one rank_N/index.html per rank.
"""

import argparse
import datetime
import os
import platform
import shutil
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
REPEAT_TRACE = os.path.join(HERE, "repeat_trace.py")
FIXTURES = os.path.normpath(os.path.join(ROOT, "..", "shared", "fixtures",
                                         "tlparse-inputs"))
SOURCES = ["multi_rank_logs/dedicated_log_torch_trace_rank_1.log",
           "multi_rank_logs/dedicated_log_torch_trace_rank_3.log",
           "collectives_parity/dedicated_log_torch_trace_rank_0.log",
           "multi_rank_schedule/dedicated_log_torch_trace_rank_0_6u3fubwl.log"]
PAGE = os.sysconf("SC_PAGE_SIZE")
sys.path.insert(0, HERE)
import bench  # noqa: E402  (the floors: listing, fs_floor.c, stats lines)


def make_job(work, fixtures, ranks, mb):
    """Writes work/job/ (once per ranks x mb); returns it and its bytes."""
    job = os.path.join(work, "job-%d-%g" % (ranks, mb))
    if not os.path.isdir(job):
        tmp = job + ".tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        os.makedirs(tmp)
        made = []
        for i, src in enumerate(SOURCES):
            lf = os.path.join(tmp, "src%d.log" % i)
            with open(os.path.join(fixtures, src), "rb") as f:
                data = f.read().replace(b"\r\n", b"\n")
            with open(lf, "wb") as f:
                f.write(data)
            rep = os.path.join(tmp, "rep%d.log" % i)
            subprocess.run([sys.executable, REPEAT_TRACE, lf, "--mb",
                            str(mb), "-o", rep], check=True,
                           stdout=subprocess.DEVNULL)
            os.unlink(lf)
            made.append(rep)
        for k in range(ranks):
            shutil.copyfile(made[k % len(made)], os.path.join(
                tmp, "dedicated_log_torch_trace_rank_%d.log" % k))
        for m in made:
            os.unlink(m)
        os.rename(tmp, job)
    size = sum(os.path.getsize(os.path.join(job, f)) for f in os.listdir(job))
    return job, size


def tree_rss(pid):
    """Sum of VmRSS (bytes) over pid and its live descendants."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            with open("/proc/%d/statm" % p) as f:
                total += int(f.read().split()[1]) * PAGE
            for task in os.listdir("/proc/%d/task" % p):
                with open("/proc/%d/task/%s/children" % (p, task)) as f:
                    todo.extend(int(c) for c in f.read().split())
        except (OSError, ValueError):
            pass
    return total


def measure(cmd, sample_ms, work):
    """Runs cmd; returns (wall s, cpu s, max single RSS, peak tree RSS).

    The run goes through GNU time (`time -f %M`), a small process, because
    Linux keeps a process's RSS high-water mark across execve: a tool forked
    straight from this Python process would report Python's RSS at fork
    (about 22 MB) as its own floor. The tree sum leaves time itself out."""
    start = time.monotonic()
    rss_file = os.path.join(work, "maxrss.txt")
    p = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", rss_file] + cmd,
                         stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL,
                         env=dict(os.environ, CI="1"))
    peak = [0]
    done = threading.Event()

    def sample():
        own = None
        while not done.wait(sample_ms / 1000.0):
            total = tree_rss(p.pid)
            if own is None:
                own = tree_rss_self(p.pid)
            peak[0] = max(peak[0], total - own)

    t = threading.Thread(target=sample)
    t.start()
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.monotonic() - start
    done.set()
    t.join()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise SystemExit("%s exited %d" % (" ".join(cmd), code))
    with open(rss_file) as f:
        maxrss = int(f.read().split()[-1]) * 1024
    return (wall, usage.ru_utime + usage.ru_stime, maxrss, peak[0])


def tree_rss_self(pid):
    """VmRSS (bytes) of pid alone."""
    try:
        with open("/proc/%d/statm" % pid) as f:
            return int(f.read().split()[1]) * PAGE
    except (OSError, ValueError):
        return 0


def measure_floors(fs_floor, read_floor, listing, job, fl, a, floors,
                   flags):
    """One round of the floors of our run with `fl`: fs_floor.c on the
    listing, read_floor.c on the rank logs, and one untimed run with
    TLPARSE_STATS=1 (each rank child prints its parse, summed)."""
    dest = os.path.join(a.work, "floor")
    fs, parse, read = floors.setdefault(flags, ([], [], []))
    fs.append(bench.fs_floor_once(fs_floor, listing, dest))
    if read_floor:
        logs = sorted(os.path.join(job, n) for n in os.listdir(job))
        read.append(bench.read_floor_once(read_floor, logs))
    shutil.rmtree(dest, ignore_errors=True)
    out = os.path.join(a.work, "out-stats")
    shutil.rmtree(out, ignore_errors=True)
    extra = ["-j", a.jobs] if a.jobs else []
    r = subprocess.run([a.tlparse, job, "--all-ranks-html", "-o", out,
                        "--no-browser"] + fl + extra, stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       env=dict(os.environ, TLPARSE_STATS="1", CI="1"))
    shutil.rmtree(out, ignore_errors=True)
    stats = bench.parse_stats(r.stderr)
    parse.append(stats[1] if stats else 0.0)
    print("floors %-3s: file system %.2f s (%.2f s of CPU), parse %.2f s of "
          "CPU, reading %s" % (
              flags or "-", fs[-1][0], fs[-1][1], parse[-1],
              "%.2f s (%.2f s of CPU)" % read[-1] if read else "-"),
          flush=True)


def check(out, ranks):
    missing = [k for k in range(ranks) if not os.path.isfile(
        os.path.join(out, "rank_%d" % k, "index.html"))]
    if missing or not os.path.isfile(os.path.join(out, "index.html")):
        raise SystemExit("%s: missing index.html of ranks %s" % (out,
                                                                 missing))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tlparse", required=True)
    ap.add_argument("--rust", default="")
    ap.add_argument("--work", required=True)
    ap.add_argument("--fixtures", default=FIXTURES)
    ap.add_argument("--ranks", type=int, default=64)
    ap.add_argument("--mb", type=float, default=3.0)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--jobs", default="",
                    help="-j for ours (default: the tool's own, one per "
                         "core)")
    ap.add_argument("--flags", nargs="*", default=["", "-i"])
    ap.add_argument("--sample-ms", type=float, default=20.0)
    ap.add_argument("--floors", action="store_true",
                    help="also measure the file-system and parse floors")
    a = ap.parse_args(argv)
    os.makedirs(a.work, exist_ok=True)
    job, size = make_job(a.work, a.fixtures, a.ranks, a.mb)
    print("job: %d ranks, %.1f MB (%s)" % (a.ranks, size / 1e6, job),
          flush=True)
    tools = [("ours", a.tlparse)] + ([("rust", a.rust)] if a.rust else [])
    results = {}
    floors = {}  # flags -> ([file system (wall, CPU)], [parse CPU],
    #                       [reading (wall, CPU)])
    fs_floor = bench.build_fs_floor(a.work) if a.floors else None
    read_floor = bench.build_read_floor(a.work) if a.floors else None
    for flags in a.flags:
        fl = flags.split()
        listing = None
        for run in range(a.runs):
            if fs_floor and listing:  # between rounds
                measure_floors(fs_floor, read_floor, listing, job, fl, a,
                               floors, flags)
            for name, binary in tools:
                out = os.path.join(a.work, "out-" + name)
                shutil.rmtree(out, ignore_errors=True)
                extra = (["-j", a.jobs] if a.jobs and name == "ours" else [])
                cmd = [binary, job, "--all-ranks-html", "-o", out,
                       "--no-browser"] + fl + extra
                r = measure(cmd, a.sample_ms, a.work)
                check(out, a.ranks)
                if fs_floor and name == "ours" and listing is None:
                    listing = os.path.join(a.work, "listing-%s.txt" % (
                        flags.replace(" ", "") or "plain"))
                    bench.write_listing(out, listing)
                results.setdefault((flags, name), []).append(r)
                print("%-4s %-3s run %d: wall %.2f s  cpu %.2f s  "
                      "max-rss %.0f MB  tree-rss %.0f MB" % (
                          name, flags or "-", run + 1, r[0], r[1],
                          r[2] / 2**20, r[3] / 2**20), flush=True)
                shutil.rmtree(out, ignore_errors=True)
        if fs_floor and listing:
            measure_floors(fs_floor, read_floor, listing, job, fl, a,
                           floors, flags)
    print()
    print("%s, %s, %d cores, load %s; %d ranks, %.1f MB; %d runs each, "
          "interleaved" % (datetime.date.today(), platform.machine(),
                           os.cpu_count(), " ".join(
                               "%.2f" % x for x in os.getloadavg()),
                           a.ranks, size / 1e6, a.runs))
    print()
    print("| flags | tool | wall median (min-max) | cpu median | max-rss "
          "(one process) | tree-rss (sum, sampled) |")
    print("|---|---|---|---|---|---|")
    med = {}
    for (flags, name), rs in results.items():
        w = [r[0] for r in rs]
        m = [statistics.median(r[i] for r in rs) for i in range(4)]
        med[(flags, name)] = m
        print("| %s | %s | %.2f s (%.2f-%.2f) | %.2f s | %.0f MB | %.0f MB |"
              % (flags or "-", name, m[0], min(w), max(w), m[1],
                 max(r[2] for r in rs) / 2**20,
                 max(r[3] for r in rs) / 2**20))
    if floors:
        print()
        print("Floors (medians): file system = fs_floor.c creating our "
              "run's tree; parse = the rank children's tree-sitter parse "
              "CPU (TLPARSE_STATS=1) / %d cores; ours / floor = our wall "
              "over the larger of those two; reading = read_floor.c "
              "reading every rank's log, hashing its payloads and reading "
              "once the JSON texts a run re-writes; shared "
              "cores = the three's CPU over the cores; ours / shared = our "
              "wall over the largest of the four" % bench.CORES)
        print()
        print("| flags | wall ours | wall Rust | file-system floor | parse "
              "floor | ours / floor | reading floor | shared-cores floor | "
              "ours / shared | parse CPU | parse share |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for flags in a.flags:
            fs, parse, read = floors[flags]
            f = statistics.median(x[0] for x in fs)
            f_cpu = statistics.median(x[1] for x in fs)
            p = statistics.median(parse)
            rd = statistics.median(x[0] for x in read) if read else 0.0
            rd_cpu = statistics.median(x[1] for x in read) if read else 0.0
            shared = bench.shared_floor(p, f_cpu, rd_cpu)
            top = max(f, p / bench.CORES, 1e-9)
            o = med[(flags, "ours")]
            r = med.get((flags, "rust"))
            print("| %s | %.2f s | %s | %.2f s | %.2f s | %.2f× | %.2f s | "
                  "%.2f s | %.2f× | %.2f s | %.0f%% |" % (
                      flags or "-", o[0], "%.2f s" % r[0] if r else "–", f,
                      p / bench.CORES, o[0] / top, rd, shared,
                      o[0] / max(top, rd, shared), p,
                      100.0 * p / max(o[1], 1e-9)))
    if a.rust:
        print()
        for flags in a.flags:
            o, r = med[(flags, "ours")], med[(flags, "rust")]
            print("%s: Rust/ours wall %.1fx, cpu %.1fx, max-rss %.1fx, "
                  "tree-rss %.1fx" % (flags or "-", r[0] / o[0], r[1] / o[1],
                                      r[2] / o[2], r[3] / o[3]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
