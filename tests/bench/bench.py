#!/usr/bin/env python3
"""bench.py: times tlparse on growing inputs (issue 6); tests/bench/run.sh
builds Release and calls it. Python 3 standard library only.

Per input it runs `tlparse INPUT -i -o OUT --overwrite --no-browser` several
times and reports wall time (min/median/max), CPU time (user+sys, from
wait4), MB/s and peak RSS (GNU time's %M). With the Rust tlparse at hand
(--rust, by default build/venv/bin/tlparse from .ci/install-python) each
input is also run with it, the runs of the two tools interleaved (ours,
Rust, ours, ...) so that both see the same machine, and the report gives
both side by side with the ratios. Inputs are generated into the work folder
at run time: the provenance fixture concatenated N times, and traces from
tests/tracegen/gen_trace.py. Nothing here asserts a time; the checks are
that every run succeeds and writes the same, non-empty output.

Beside each input's runs it measures the floors (issue 33), each as many
times as the tools run, interleaved with them:
- the file-system floor: fs_floor.c (built here with cc) creates the tree
  our run wrote, the same folders and files with the same sizes, from a
  listing of it, on the same disk (--out-root), and times that;
- the parse floor: tree-sitter's own parse time of the texts our run
  parses (one more run with TLPARSE_STATS=1, which times every call into
  tree-sitter's parser on its thread's CPU clock), divided by the cores;
- the reading floor: read_floor.c (built with cc, libmd and yajl) reads the
  log, computes every payload's MD5, as a tool that checks each payload
  against its envelope's md5 must, and reads once with yajl every JSON text
  a tool that writes the Rust tool's files re-writes (each envelope, each
  chromium event, each JSON artifact), building nothing from it;
- the shared-cores floor: the CPU of the three above (the parse's, and
  fs_floor's and read_floor's user and system time) over the cores. The
  two floors the issue names are each timed alone, but a run does all
  three kinds of work on the same cores: no run can take less wall time
  than their sum over the cores either.

    bench.py --tlparse build-bench/tlparse --work build-bench/bench [--smoke]
             [--rust PATH | --no-rust] [--no-floors]
"""

import argparse
import datetime
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
GEN_TRACE = os.path.join(ROOT, "tests", "tracegen", "gen_trace.py")
REPEAT_TRACE = os.path.join(HERE, "repeat_trace.py")
EXAMPLES = os.path.join(ROOT, "examples")
FIXTURE = "inductor_provenance_jit_cuda_log.txt"
SKIP = 77  # ctest's "skipped" exit code


class Input:
    """One benchmark input: `make(path)` writes it; `runs` timed runs."""

    def __init__(self, name, what, make, runs, needs_fixture=False):
        self.name, self.what, self.make = name, what, make
        self.runs, self.needs_fixture = runs, needs_fixture


def concat(src, times):
    def make(path):
        with open(src, "rb") as f:
            data = f.read()
        with open(path, "wb") as out:
            for _ in range(times):
                out.write(data)
    return make


def copy(src):
    return concat(src, 1)


def repeat(src, mb):
    """repeat_trace.py: the compiles of `src` repeated to `mb` MB with fresh
    frame ids and kernel names."""
    def make(path):
        subprocess.run([sys.executable, REPEAT_TRACE, src, "--mb", str(mb),
                        "-o", path], check=True, stdout=subprocess.DEVNULL)
    return make


def gen(shape, layers, extra=()):
    def make(path):
        subprocess.run([sys.executable, GEN_TRACE, "--shape", shape,
                        "--layers", str(layers), "-o", path] + list(extra),
                       check=True)
    return make


def inputs(fixture, smoke):
    """The input list. Smoke mode: tiny sizes, one run each (two for the
    fixture, so the same-output check runs too)."""
    fx = lambda n: concat(fixture, n)
    rec = lambda name: os.path.join(EXAMPLES, name, "trace.log")
    if smoke:
        return [
            Input("fixture-1x", "provenance fixture", fx(1), 2, True),
            Input("fixture-2x", "fixture concatenated 2 times", fx(2), 1,
                  True),
            Input("gen-aot-cuda-100", "gen_trace aot-cuda, 20 layers "
                  "(100 post-grad nodes, 10 kernels)", gen("aot-cuda", 20), 1),
            Input("gen-jit-cuda-100", "gen_trace jit-cuda, 20 layers "
                  "(100 post-grad nodes, 10 kernels)", gen("jit-cuda", 20), 1),
            Input("gen-jit-frames-3", "gen_trace jit-cuda, 3 compiles of 2 "
                  "layers", gen("jit-cuda", 2, ["--frames", "3"]), 1),
        ]
    return [
        Input("fixture-1x", "provenance fixture (309 KB)", fx(1), 21, True),
        Input("fixture-4x", "fixture concatenated 4 times", fx(4), 11, True),
        Input("fixture-16x", "fixture concatenated 16 times", fx(16), 7, True),
        Input("fixture-200x", "fixture concatenated 200 times (62 MB)",
              fx(200), 5, True),
        Input("gen-jit-frames-50", "gen_trace jit-cuda, 50 distinct "
              "compiles of 25 layers (15 MB)",
              gen("jit-cuda", 25, ["--frames", "50"]), 3),
        Input("gen-jit-frames-200", "gen_trace jit-cuda, 200 distinct "
              "compiles of 25 layers (59 MB, no repeated view)",
              gen("jit-cuda", 25, ["--frames", "200"]), 3),
        Input("gen-aot-cuda-12k", "gen_trace aot-cuda, 2,500 layers "
              "(12,500 post-grad nodes, 1,250 kernels)",
              gen("aot-cuda", 2500), 3),
        Input("gen-aot-cuda-50k", "gen_trace aot-cuda, 10,000 layers "
              "(50,000 post-grad nodes, 5,000 kernels, AOT wrapper)",
              gen("aot-cuda", 10000), 3),
        Input("gen-jit-cuda-50k", "gen_trace jit-cuda, 10,000 layers "
              "(50,000 post-grad nodes, 5,000 Triton kernels)",
              gen("jit-cuda", 10000), 3),
        Input("gen-jit-cpu-2650", "gen_trace jit-cpu, 2,650 layers (one "
              "JIT CPU compile of 29 MB, C++ kernels in Python code)",
              gen("jit-cpu", 2650), 3),
    ] + [Input(name, "torch 2.13 recording examples/%s/trace.log" % name,
               copy(rec(name)), 11)
         for name in ("rec-jit-cpu", "rec-train-cpu", "rec-aot-cpu",
                      "rec-dynamic")] + [
        Input("rec-train-200mb", "the compiles of rec-train-cpu repeated "
              "to 200 MB with fresh frame ids and kernel names "
              "(repeat_trace.py)", repeat(rec("rec-train-cpu"), 200), 3),
    ]


TIME = "/usr/bin/time"  # GNU time: measures its own fresh child
CORES = os.cpu_count() or 1  # the parse floor divides by these


def run_once(tlparse, path, out_dir, log_path):
    """One timed run into a new folder. Returns (wall s, cpu s, peak RSS
    KiB, exit code); cpu is (user, sys) of the child and what it waited
    for. Outputs are deleted only at the end of the benchmark:
    on ext4, creating files soon after deleting thousands of others makes
    the kernel scan for recently freed inodes, which would time our own
    cleanup rather than tlparse.

    Peak RSS comes from GNU time when installed: a child forked from this
    Python process would inherit Python's RSS high-water mark across exec,
    so wait4 here reports at least Python's size (the fallback, flagged)."""
    if os.path.exists(out_dir):
        shutil.rmtree(out_dir)
    os.sync()  # flush the previous run's output outside the timing
    cmd = [tlparse, path, "-i", "-o", out_dir, "--overwrite", "--no-browser"]
    usage = log_path + ".rusage"
    if os.access(TIME, os.X_OK):
        cmd = [TIME, "-f", "%M", "-o", usage] + cmd
    with open(log_path, "wb") as log:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log,
                             stderr=log)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    cpu, kib = (ru.ru_utime, ru.ru_stime), -ru.ru_maxrss  # <0: fallback
    if cmd[0] == TIME:
        with open(usage) as f:
            last = f.read().split("\n")[-2].split()
        os.remove(usage)
        kib = int(last[0])  # cpu: wait4's is finer than time's 10 ms
    return wall, cpu, kib, p.returncode


STATS = re.compile(rb"tlparse: stats: (\d+) bytes parsed by tree-sitter"
                   rb"(?: in ([0-9.]+) s of CPU \((\d+) parses\))?")


def parse_stats(stderr):
    """(bytes, parse CPU s, parses) summed over the TLPARSE_STATS=1 lines
    of `stderr` (one per process: a --all-ranks-html child prints its
    own), or None when there is none."""
    lines = STATS.findall(stderr)
    if not lines:
        return None
    return (sum(int(b) for b, _, _ in lines),
            sum(float(t or 0) for _, t, _ in lines),
            sum(int(n or 0) for _, _, n in lines))


def parsed_stats(tlparse, path, out_dir):
    """parse_stats of one untimed run with TLPARSE_STATS=1. Its output is
    left for the end of the benchmark, as the timed runs' are: deleting
    thousands of files just before a timed run makes ext4 spend up to a
    second more creating the next run's (docs/performance.md, "ext4 right
    after a mass deletion")."""
    if os.path.exists(out_dir):
        shutil.rmtree(out_dir)
    r = subprocess.run([tlparse, path, "-i", "-o", out_dir, "--overwrite",
                        "--no-browser"], stdin=subprocess.DEVNULL,
                       capture_output=True,
                       env=dict(os.environ, TLPARSE_STATS="1"))
    return parse_stats(r.stderr)


def write_listing(top, listing):
    """The listing fs_floor.c reads: every folder and file under `top`,
    top-down, with the files' sizes. Returns (files, bytes)."""
    files = size = 0
    with open(listing, "w") as f:
        for d, dirs, names in os.walk(top):
            dirs.sort()
            rel = os.path.relpath(d, top)
            if rel != ".":
                f.write("d\t%s\n" % rel)
            for n in sorted(names):
                full = os.path.join(d, n)
                if os.path.islink(full):
                    continue
                b = os.path.getsize(full)
                f.write("f\t%d\t%s\n" % (b, os.path.normpath(
                    os.path.join(rel, n))))
                files += 1
                size += b
    return files, size


def build_floor_program(work, name, libs=()):
    """tests/bench/NAME.c built into `work` with the system's cc (and
    `libs`); None without a compiler or when it does not build."""
    exe = os.path.join(work, name)
    src = os.path.join(HERE, name + ".c")
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not cc:
        return None
    r = subprocess.run([cc, "-O2", "-std=c11", "-o", exe, src] + list(libs),
                       capture_output=True, text=True)
    if r.returncode != 0:
        print("bench: cannot build %s.c: %s" % (name, r.stderr.strip()))
        return None
    return exe


def build_fs_floor(work):
    """fs_floor.c built into `work`; None without a compiler."""
    return build_floor_program(work, "fs_floor")


def fs_floor_once(exe, listing, dest):
    """(wall, CPU) seconds the minimal writer took to create the listed
    tree in `dest` (sync before, as for the tools' runs)."""
    if os.path.exists(dest):
        shutil.rmtree(dest)
    os.sync()
    r = subprocess.run([exe, listing, dest], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("bench: fs_floor: %s" % r.stderr.strip())
    words = r.stdout.split()
    return float(words[0]), float(words[4])


def build_read_floor(work):
    """read_floor.c built into `work` with libmd and yajl; None without
    them."""
    return build_floor_program(work, "read_floor", ["-lmd", "-lyajl"])


def read_floor_once(exe, logs):
    """(wall, CPU) seconds the minimal reader took over `logs`."""
    r = subprocess.run([exe] + list(logs), capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("bench: read_floor: %s" % r.stderr.strip())
    words = r.stdout.split()
    return float(words[0]), float(words[1])


def shared_floor(parse_cpu, fs_cpu, read_cpu):
    """The shared-cores floor: the three floors' CPU over the cores."""
    return ((parse_cpu or 0) + (fs_cpu or 0) + (read_cpu or 0)) / CORES


def tree_size(top):
    """(files, bytes, provenance pages) written under `top`."""
    files = size = pages = 0
    for d, _, names in os.walk(top):
        for n in names:
            files += 1
            size += os.path.getsize(os.path.join(d, n))
            if d == top and n.startswith("provenance_tracking_") and \
                    n.endswith(".html"):
                pages += 1
    return files, size, pages


def bench_input(inp, tools, work, out_root, runs, rust_max_mb=None,
                fs_floor=None, read_floor=None):
    """Makes, runs and checks one input with each tool of `tools` (a list
    of (label, binary)), their runs interleaved; returns one row (a dict)
    per tool. Above `rust_max_mb` MB, the Rust tool is not run. With
    `fs_floor` (the built fs_floor.c), each round also times the minimal
    writer on our first run's tree, our parse (TLPARSE_STATS=1) and, with
    `read_floor`, the minimal reader of the input; our row gets the
    floors."""
    path = os.path.join(work, inp.name + ".log")
    inp.make(path)
    mb = os.path.getsize(path) / 1e6
    if rust_max_mb is not None and mb > rust_max_mb:
        tools = [t for t in tools if t[0] != "rust"]
    with open(path, "rb") as f:  # page cache: every run reads from memory
        lines = sum(chunk.count(b"\n") for chunk in iter(
            lambda: f.read(1 << 20), b""))
    samples = {label: ([], [], [], [], set()) for label, _ in tools}
    floor_fs, floor_parse, floor_read, listing = [], [], [], None
    for i in range(runs):
        if fs_floor and i > 0:  # between rounds, on the same machine
            floor_fs.append(fs_floor_once(fs_floor, listing, os.path.join(
                out_root, "%s.floor.run%d" % (inp.name, i))))
            floor_parse.append(parsed_stats(tools[0][1], path, os.path.join(
                out_root, "%s.stats.run%d" % (inp.name, i))))
            if read_floor:
                floor_read.append(read_floor_once(read_floor, [path]))
        for label, binary in tools:
            walls, cpus, syss, rss, shapes = samples[label]
            out_dir = os.path.join(out_root, "%s.%s.run%d" % (
                inp.name, label, i))
            log = os.path.join(work, "%s.%s.run%d.txt" % (inp.name, label, i))
            wall, cpu, kib, rc = run_once(binary, path, out_dir, log)
            if rc != 0:
                with open(log, errors="replace") as f:
                    tail = f.read()[-2000:]
                raise SystemExit("bench: %s: %s exited %d:\n%s" % (
                    inp.name, label, rc, tail))
            shape = tree_size(out_dir)
            if not os.path.exists(os.path.join(out_dir, "index.html")) or \
                    shape[2] == 0:
                raise SystemExit("bench: %s: %s wrote no index.html or no "
                                 "provenance page in %s" % (inp.name, label,
                                                            out_dir))
            shapes.add(shape)
            if fs_floor and label == "ours" and listing is None:
                listing = os.path.join(work, inp.name + ".listing")
                write_listing(out_dir, listing)
            walls.append(wall)
            cpus.append(cpu[0] + cpu[1])
            syss.append(cpu[1])
            rss.append(kib)
    if fs_floor:  # the last round's floors, after its tools
        floor_fs.append(fs_floor_once(fs_floor, listing, os.path.join(
            out_root, "%s.floor.run%d" % (inp.name, runs))))
        floor_parse.append(parsed_stats(tools[0][1], path, os.path.join(
            out_root, "%s.stats.run%d" % (inp.name, runs))))
        if read_floor:
            floor_read.append(read_floor_once(read_floor, [path]))
    rows = []
    for label, binary in tools:
        walls, cpus, syss, rss, shapes = samples[label]
        if len(shapes) != 1:
            raise SystemExit("bench: %s: %s runs wrote different outputs: %s"
                             % (inp.name, label, sorted(shapes)))
        files, size, pages = shapes.pop()
        med = statistics.median(walls)
        row = {"name": inp.name, "tool": label, "what": inp.what, "mb": mb,
               "lines": lines, "runs": runs, "min": min(walls),
               "median": med, "max": max(walls),
               "cpu": statistics.median(cpus), "sys": statistics.median(syss),
               "mbps": mb / med,
               "rss": max(abs(k) for k in rss) / 1024.0,
               "rss_exact": min(rss) > 0, "files": files,
               "out_mb": size / 1e6, "pages": pages, "parsed": None,
               "fs_floor": None, "fs_cpu": None, "parse_cpu": None,
               "parses": None, "read_floor": None, "read_cpu": None}
        if label == "ours":
            stats = [x for x in floor_parse if x] or [parsed_stats(
                binary, path, os.path.join(out_root, "%s.stats" % inp.name))]
            if stats[0]:
                row["parsed"] = stats[0][0]
                row["parses"] = stats[0][2]
                row["parse_cpu"] = statistics.median(x[1] for x in stats)
            if floor_fs:
                row["fs_floor"] = statistics.median(x[0] for x in floor_fs)
                row["fs_cpu"] = statistics.median(x[1] for x in floor_fs)
            if floor_read:
                row["read_floor"] = statistics.median(
                    x[0] for x in floor_read)
                row["read_cpu"] = statistics.median(x[1] for x in floor_read)
        print("  %-18s %-4s %8.2f MB %3d runs  wall %s  cpu %.3f s (sys "
              "%.3f)  %6.1f MB/s  RSS %6.1f MiB  %d files" % (
                  inp.name, label, mb, runs, fmt_wall(row), row["cpu"],
                  row["sys"], row["mbps"], row["rss"], files), flush=True)
        if row["fs_floor"] is not None:
            print("  %-18s floors: file system %.3f s (%.3f s of CPU), "
                  "parse %.3f s of CPU / %d cores = %.3f s, reading %.3f s "
                  "(%.3f s of CPU), shared cores %.3f s" % (
                      inp.name, row["fs_floor"], row["fs_cpu"],
                      row["parse_cpu"] or 0, CORES,
                      (row["parse_cpu"] or 0) / CORES,
                      row["read_floor"] or 0, row["read_cpu"] or 0,
                      shared_floor(row["parse_cpu"], row["fs_cpu"],
                                   row["read_cpu"])), flush=True)
        rows.append(row)
    return rows


def fmt_wall(r):
    return "%.3f / %.3f / %.3f s" % (r["min"], r["median"], r["max"])


def side_by_side(rows):
    """(our row, Rust's row) per input that both tools ran."""
    rust = {r["name"]: r for r in rows if r["tool"] == "rust"}
    return [(r, rust[r["name"]]) for r in rows
            if r["tool"] == "ours" and r["name"] in rust]


def linearity(rows, base, others):
    """Per-MB median wall and CPU time of `others`, relative to `base`."""
    by = {r["name"]: r for r in rows if r["tool"] == "ours"}
    if base not in by:
        return []
    b = by[base]
    out = []
    for n in [base] + others:
        if n in by:
            r = by[n]
            out.append((n, r["median"] / r["mb"], r["cpu"] / r["mb"],
                        (r["median"] / r["mb"]) / (b["median"] / b["mb"]),
                        (r["cpu"] / r["mb"]) / (b["cpu"] / b["mb"])))
    return out


def machine():
    cpu = platform.processor() or "unknown cpu"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
        with open("/proc/meminfo") as f:
            mem = int(f.readline().split()[1]) / (1 << 20)
    except OSError:
        mem = 0.0
    return "%s, %d cores, %.0f GiB RAM, %s" % (cpu, os.cpu_count() or 0, mem,
                                             platform.platform())


def report(rows, args, started, load0, load1):
    L = []
    L.append("# tlparse benchmark, %s%s" % (started, " (smoke)"
                                            if args.smoke else ""))
    L.append("")
    L.append("- binary: `%s`" % args.tlparse)
    L.append("- Rust tlparse: %s" % ("`%s` (%s), runs interleaved with ours"
                                     % (args.rust, args.rust_version)
                                     if args.rust else "not run"))
    if args.rust and args.rust_max_mb is not None:
        L.append("- Rust tlparse not run on inputs above %g MB "
                 "(--rust-max-mb)" % args.rust_max_mb)
    L.append("- machine: %s" % machine())
    L.append("- load average before / after: %.2f / %.2f" % (load0, load1))
    L.append("- command per run: `tlparse INPUT -i -o OUT --overwrite "
             "--no-browser`, OUT a new folder under `%s` (deleted at the "
             "end); `sync` before each run; the input is in the page cache"
             % args.out_root_shown)
    L.append("- wall: min / median / max over the runs; cpu: median user+sys "
             "(sys: median sys alone);"
             " MB/s: input MB (10^6 bytes) / median wall; RSS: largest "
             "maximum resident set size (GNU time %M; `*` marks an upper "
             "bound from wait4 where GNU time is missing)")
    L.append("")
    L.append("| input | tool | MB | lines | runs | wall min / median / max "
             "(s) | cpu (s) | of which sys | MB/s | peak RSS (MiB) | output "
             "files / MB |")
    L.append("|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|")
    for r in rows:
        L.append("| %s | %s | %.2f | %d | %d | %s | %.3f | %.3f | %.1f | "
                 "%.1f%s | %d / %.1f |" % (
                     r["name"], r["tool"], r["mb"], r["lines"], r["runs"],
                     fmt_wall(r)[:-2], r["cpu"], r["sys"], r["mbps"],
                     r["rss"], "" if r["rss_exact"] else "*", r["files"],
                     r["out_mb"]))
    L.append("")
    pairs = side_by_side(rows)
    if pairs:
        L.append("Side by side (Rust / ours: how many times faster, and how "
                 "many times less memory, ours is):")
        L.append("")
        L.append("| input | wall ours / Rust (s) | wall ratio | cpu ours / "
                 "Rust (s) | cpu ratio | RSS ours / Rust (MiB) | RSS ratio |")
        L.append("|---|---|---:|---|---:|---|---:|")
        for ours, rust in pairs:
            L.append("| %s | %.3f / %.3f | %.1f× | %.3f / %.3f | %.1f× | "
                     "%.1f / %.1f | %.1f× |" % (
                         ours["name"], ours["median"], rust["median"],
                         rust["median"] / ours["median"], ours["cpu"],
                         rust["cpu"], rust["cpu"] / max(ours["cpu"], 1e-6),
                         ours["rss"], rust["rss"], rust["rss"] / ours["rss"]))
        L.append("")
    parsed = [r for r in rows if r["tool"] == "ours"
              and r["parsed"] is not None]
    if parsed:
        L.append("Bytes handed to tree-sitter by our analyses (one more, "
                 "untimed run with `TLPARSE_STATS=1`): the join parses the "
                 "graphs and the code, never the rest of the trace, and a "
                 "compile repeated verbatim only once:")
        L.append("")
        L.append("| input | input MB | parsed MB | parsed / input |")
        L.append("|---|---:|---:|---:|")
        for r in parsed:
            L.append("| %s | %.2f | %.2f | %.1f%% |" % (
                r["name"], r["mb"], r["parsed"] / 1e6,
                100.0 * r["parsed"] / 1e6 / r["mb"]))
        L.append("")
    floors = [r for r in rows if r["tool"] == "ours"
              and r["fs_floor"] is not None]
    if floors:
        rust = {r["name"]: r for r in rows if r["tool"] == "rust"}
        L.append("Floors (issue 33), medians over the rounds, each measured "
                 "between the tools' runs: *file system*, fs_floor.c "
                 "creating our run's tree (same folders, files and sizes) "
                 "under the same folder; *parse*, tree-sitter's own parse "
                 "time of the texts our run parses (TLPARSE_STATS=1, every "
                 "parse call on its thread's CPU clock) divided by the %d "
                 "cores; *ours / floor*, our median wall over the larger "
                 "of those two; *reading*, read_floor.c reading the log, "
                 "hashing every payload and reading once every JSON text "
                 "the run re-writes; *shared cores*, the CPU of "
                 "the three (the parse's, fs_floor's and read_floor's, "
                 "user and system) over the cores, since a run does all "
                 "three on the same cores; *ours / shared*, our median "
                 "wall over the largest of the four floors; *parse share*, "
                 "the parse's CPU over our median CPU:" % CORES)
        L.append("")
        L.append("| input | wall ours (s) | wall Rust (s) | file-system "
                 "floor (s) | parse floor (s) | ours / floor | reading "
                 "floor (s) | shared-cores floor (s) | ours / shared | "
                 "parse CPU (s) | parse share | parses |")
        L.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
                 "---:|")
        for r in floors:
            parse_floor = (r["parse_cpu"] or 0) / CORES
            top = max(r["fs_floor"], parse_floor)
            shared = shared_floor(r["parse_cpu"], r["fs_cpu"], r["read_cpu"])
            all_top = max(top, r["read_floor"] or 0, shared)
            ru = rust.get(r["name"])
            L.append("| %s | %.3f | %s | %.3f | %.3f | %.2f× | %s | %.3f | "
                     "%.2f× | %.3f | %.0f%% | %s |" % (
                         r["name"], r["median"],
                         "%.3f" % ru["median"] if ru else "–",
                         r["fs_floor"], parse_floor,
                         r["median"] / top if top > 0 else 0,
                         "%.3f" % r["read_floor"]
                         if r["read_floor"] is not None else "–",
                         shared, r["median"] / all_top if all_top else 0,
                         r["parse_cpu"] or 0,
                         100.0 * (r["parse_cpu"] or 0) / max(r["cpu"], 1e-9),
                         r["parses"] if r["parses"] is not None else "–"))
        L.append("")
    for title, base, others in (
            ("Linearity (concatenations)", "fixture-1x",
             ["fixture-2x", "fixture-4x", "fixture-16x", "fixture-200x"]),
            ("Linearity (distinct compiles)", "gen-jit-frames-50",
             ["gen-jit-frames-200"]),
            ("Linearity (one large compile)", "gen-aot-cuda-12k",
             ["gen-aot-cuda-50k"])):
        lin = linearity(rows, base, others)
        if len(lin) < 2:
            continue
        L.append("%s: per-MB time relative to %s" % (title, base))
        L.append("")
        L.append("| input | wall ms/MB | cpu ms/MB | wall ratio | cpu ratio |")
        L.append("|---|---:|---:|---:|---:|")
        for n, w, c, wr, cr in lin:
            L.append("| %s | %.1f | %.1f | %.2f | %.2f |" % (
                n, w * 1e3, c * 1e3, wr, cr))
        L.append("")
    L.append("Inputs:")
    L.append("")
    for r in rows:
        if r["tool"] == "ours":
            L.append("- %s: %s" % (r["name"], r["what"]))
    return "\n".join(L) + "\n"


def main(argv=None):
    p = argparse.ArgumentParser(description="Benchmark tlparse -i")
    p.add_argument("--tlparse", required=True, help="the binary to time")
    p.add_argument("--work", required=True,
                   help="folder for generated inputs and outputs")
    p.add_argument("--fixtures", default=os.environ.get(
        "TL_FIXTURES_DIR", os.path.join(ROOT, "..", "shared", "fixtures",
                                        "tlparse-inputs")))
    p.add_argument("--out-root", help="tlparse writes under "
                   "OUT_ROOT/tlparse-bench-out/ (default: WORK; e.g. a tmpfs "
                   "folder to leave the disk out of the figures)")
    p.add_argument("--results", help="results file (default: "
                   "WORK/results-DATE.md)")
    p.add_argument("--runs", type=int, help="runs per input (overrides)")
    p.add_argument("--only", action="append", default=[],
                   help="run only inputs whose name starts with this")
    p.add_argument("--rust", default=os.path.join(ROOT, "build", "venv",
                                                  "bin", "tlparse"),
                   help="the Rust tlparse to run beside ours (default: "
                   "build/venv/bin/tlparse, made by .ci/install-python)")
    p.add_argument("--no-rust", action="store_true",
                   help="time our binary alone")
    p.add_argument("--rust-max-mb", type=float,
                   help="run the Rust tool only on inputs up to this size "
                   "(it takes minutes on the largest)")
    p.add_argument("--no-floors", action="store_true",
                   help="leave out the floors (file system, parse, reading)")
    p.add_argument("--smoke", action="store_true",
                   help="tiny inputs, one run each (a test, no timing check)")
    args = p.parse_args(argv)
    args.tlparse = os.path.abspath(args.tlparse)
    if not os.access(args.tlparse, os.X_OK):
        p.error("not an executable: %s" % args.tlparse)
    tools = [("ours", args.tlparse)]
    args.rust_version = ""
    if args.no_rust or not os.access(args.rust, os.X_OK):
        if not args.no_rust:
            print("bench: no Rust tlparse at %s: timing ours alone"
                  % args.rust)
        args.rust = None
    else:
        args.rust = os.path.abspath(args.rust)
        args.rust_version = subprocess.run(
            [args.rust, "--version"], capture_output=True,
            text=True).stdout.strip()
        tools.append(("rust", args.rust))
    os.makedirs(args.work, exist_ok=True)
    # Always a folder of our own inside --out-root, deleted at the end.
    out_root = os.path.join(os.path.abspath(args.out_root or args.work),
                            "tlparse-bench-out")
    if os.path.exists(out_root):
        shutil.rmtree(out_root)
    os.makedirs(out_root)
    fixture = os.path.join(args.fixtures, FIXTURE)
    have_fixture = os.path.isfile(fixture)
    started = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    load0 = os.getloadavg()[0]
    rows, skipped = [], []
    args.out_root_shown = out_root
    fs_floor = None if args.no_floors else build_fs_floor(args.work)
    read_floor = None if args.no_floors else build_read_floor(args.work)
    print("bench: %s -> %s" % (args.tlparse, out_root), flush=True)
    for inp in inputs(fixture, args.smoke):
        if args.only and not any(inp.name.startswith(o) for o in args.only):
            continue
        if inp.needs_fixture and not have_fixture:
            skipped.append(inp.name)
            print("  %-18s skipped: fixture %s absent" % (inp.name, fixture))
            continue
        try:
            rows += bench_input(inp, tools, args.work, out_root,
                                args.runs or inp.runs, args.rust_max_mb,
                                fs_floor, read_floor)
        except BaseException:
            shutil.rmtree(out_root, ignore_errors=True)
            raise
    shutil.rmtree(out_root)
    text = report(rows, args, started, load0, os.getloadavg()[0])
    results = args.results or os.path.join(
        args.work, "results-%s.md" % started[:10])
    with open(results, "w") as f:
        f.write(text)
    print()
    print(text)
    print("bench: wrote %s" % results)
    if args.smoke:  # the generated smoke inputs are small; drop them
        for r in rows:
            if r["tool"] == "ours":
                os.remove(os.path.join(args.work, r["name"] + ".log"))
    if skipped:
        print("bench: skipped %s (fixtures absent)" % ", ".join(skipped))
        return SKIP
    return 0


if __name__ == "__main__":
    sys.exit(main())
