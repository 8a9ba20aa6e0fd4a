#!/usr/bin/env python3
"""Do two tlparse binaries write the same bytes? The check of a refactoring.

    python3 tests/bench/identity.py BASELINE CANDIDATE [--work DIR] [--quick]

runs both binaries over every real trace of the shared fixtures folder
(../shared/fixtures/tlparse-inputs beside the checkout), every trace in
examples/ and a few generated traces (tests/tracegen/gen_trace.py for the
single logs, tests/e2e/multirank_gen.py for rank folders): each single log
plain and with -i (and -e for the export traces, --profile where a profile
sits beside the trace), each rank folder with --all-ranks-html, plain and
with -i. Both runs of a case write `out/` from the same working folder name
(WORK/a/CASE and WORK/b/CASE), and the two trees are compared with
`diff -r`, with the exit codes and stderr. Prints one line per case and
exits 1 when any case differs.
"""

import argparse
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
FIXTURES = os.path.join(os.path.dirname(ROOT), "shared", "fixtures",
                        "tlparse-inputs")
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))


def gen_single(work, quick):
    """Generated single logs: {name: path}."""
    gen = os.path.join(ROOT, "tests", "tracegen", "gen_trace.py")
    shapes = [("jit-cuda", "--layers 4 --frames 2 --stack-traces "
               "--chromium-events --seed 3"),
              ("aot-cuda", "--layers 6 --mapping-version 1 --seed 5"),
              ("combo", "--layers 3 --frames 3 --stack-traces --seed 11")]
    if not quick:
        shapes += [("jit-cpu", "--layers 40 --seed 2"),
                   ("aot-cpu", "--layers 30 --stack-traces --seed 9")]
    out = {}
    os.makedirs(os.path.join(work, "gen"), exist_ok=True)
    for shape, args in shapes:
        path = os.path.join(work, "gen", "%s.log" % shape)
        subprocess.run([sys.executable, gen, "--shape", shape] + args.split()
                       + ["-o", path], check=True)
        out["gen-" + shape] = path
    return out


def gen_ranks(work, quick):
    """Generated rank folders: {name: folder}."""
    import multirank_gen
    out = {}
    for seed in ([1, 2] if quick else [1, 2, 3, 4, 5]):
        folder = os.path.join(work, "gen", "ranks-%d" % seed)
        multirank_gen.write_job(folder, multirank_gen.random_job(seed))
        out["gen-ranks-%d" % seed] = folder
    return out


def cases(work, quick):
    """(name, argv without the binary) for every run."""
    singles, folders = {}, {}
    if os.path.isdir(FIXTURES):
        for name in sorted(os.listdir(FIXTURES)):
            path = os.path.join(FIXTURES, name)
            if os.path.isdir(path) and name != "expected-files":
                folders["fx-" + name] = path
            elif name.endswith((".log", ".txt")):
                singles["fx-" + name] = path
    else:
        print("no fixtures folder (%s): examples and generated traces only"
              % FIXTURES)
    examples = os.path.join(ROOT, "examples")
    for name in sorted(os.listdir(examples)):
        folder = os.path.join(examples, name)
        trace = os.path.join(folder, "trace.log")
        if os.path.isfile(trace):
            singles["ex-" + name] = trace
        elif any(f.startswith("dedicated_log_torch_trace_rank_")
                 for f in os.listdir(folder)):
            folders["ex-" + name] = folder
    singles.update(gen_single(work, quick))
    folders.update(gen_ranks(work, quick))
    runs = []
    for name, path in sorted(singles.items()):
        runs.append((name, [path]))
        runs.append((name + "-i", [path, "-i"]))
        if "export" in name:
            runs.append((name + "-e", [path, "-e"]))
        profile = os.path.join(os.path.dirname(path), "profile.json.gz")
        if name.startswith("ex-") and os.path.isfile(profile):
            runs.append((name + "-i-profile", [path, "-i", "--profile",
                                               profile]))
    for name, path in sorted(folders.items()):
        runs.append((name + "-ranks", [path, "--all-ranks-html"]))
        runs.append((name + "-ranks-i", [path, "--all-ranks-html", "-i"]))
    return runs


def run(binary, folder, argv):
    os.makedirs(folder)
    p = subprocess.run([binary] + argv + ["-o", "out", "--no-browser"],
                       cwd=folder, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    return p.returncode, p.stdout, p.stderr


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("baseline")
    ap.add_argument("candidate")
    ap.add_argument("--work", default=os.path.join(ROOT, "build",
                                                   "identity"))
    ap.add_argument("--quick", action="store_true",
                    help="fewer generated traces")
    ap.add_argument("--keep", action="store_true",
                    help="keep the outputs of the cases that match")
    args = ap.parse_args()
    binaries = [os.path.abspath(args.baseline),
                os.path.abspath(args.candidate)]
    work = os.path.abspath(args.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    bad = 0
    runs = cases(work, args.quick)
    for name, argv in runs:
        folders = [os.path.join(work, side, name) for side in "ab"]
        results = [run(b, f, argv) for b, f in zip(binaries, folders)]
        outs = [os.path.join(f, "out") for f in folders]
        diff = subprocess.run(["diff", "-r", "-q"] + outs,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        absent = not any(os.path.exists(o) for o in outs)
        same = (diff.returncode == 0 or absent) and results[0] == results[1]
        if same:
            print("same   %s (exit %d)" % (name, results[0][0]))
            if not args.keep:
                for f in folders:
                    shutil.rmtree(f)
        else:
            bad += 1
            print("DIFFER %s: exit %d vs %d%s" % (
                name, results[0][0], results[1][0],
                "" if results[0][1:] == results[1][1:]
                else ", stdout/stderr differ"))
            sys.stdout.write(diff.stdout.decode(errors="replace")[:2000])
    print("%d cases, %d differ" % (len(runs), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
