"""Provenance views chosen from a compile folder (issue 3) and the reuse of
the analysis of repeated compilations (report.c).

A trace that logs the same compilation twice under one compile id (as a run
repeated after torch._dynamo.reset() does) must give two views: the earlier
named provenance_tracking_<dir>_0, the last provenance_tracking_<dir>, each
pairing the mapping with the artifacts logged in its own run, and each with
exactly the line maps of the single-run view."""

import html.parser
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import tracelog  # noqa: E402

TLPARSE = os.environ.get("TLPARSE", "tlparse")
LOGS = ["inductor_provenance_jit_debug_handle_log.txt",
        "inductor_provenance_aot_log_old.txt"]


def parse(log, out):
    r = subprocess.run([TLPARSE, log, "-i", "-o", out, "--no-browser"],
                       capture_output=True, text=True,
                       env=dict(os.environ, CI="1"))
    assert r.returncode == 0, r.stderr


def load(path):
    with open(path) as f:
        return json.load(f)


@unittest.skipUnless(os.path.isdir(tracelog.FIXTURES),
                     "shared fixtures folder is absent: skipped")
class RepeatedCompilation(unittest.TestCase):
    def test_each_run_is_its_own_view_with_the_same_links(self):
        for name in LOGS:
            with self.subTest(log=name), tempfile.TemporaryDirectory() as tmp:
                log = tracelog.fixture(name)
                with open(log, "rb") as f:
                    data = f.read()
                if not data.endswith(b"\n"):
                    data += b"\n"
                twice = os.path.join(tmp, "twice.log")
                with open(twice, "wb") as f:
                    f.write(data + data)
                parse(log, os.path.join(tmp, "once"))
                parse(twice, os.path.join(tmp, "twice"))
                d = "-_0_0_0" if "jit" in name else "-_-_-_-"
                single = load(os.path.join(
                    tmp, "once", "provenance_tracking_%s.json" % d))
                first = load(os.path.join(
                    tmp, "twice", "provenance_tracking_%s_0.json" % d))
                last = load(os.path.join(
                    tmp, "twice", "provenance_tracking_%s.json" % d))
                # The first run's view names the very files of the single
                # run; the second names the second run's files.
                self.assertEqual(first["artifacts"], single["artifacts"])
                self.assertNotEqual(last["artifacts"], first["artifacts"])
                for key, path in last["artifacts"].items():
                    if path is None:
                        self.assertIsNone(first["artifacts"][key])
                        continue
                    with open(os.path.join(tmp, "twice", path), "rb") as a, \
                            open(os.path.join(tmp, "twice",
                                              first["artifacts"][key]),
                                 "rb") as b:
                        self.assertEqual(a.read(), b.read(), key)
                for view in (first, last):
                    rest = {k: v for k, v in view.items() if k != "artifacts"}
                    expect = {k: v for k, v in single.items()
                              if k != "artifacts"}
                    self.assertEqual(rest, expect)


ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
MODES = {"jit": "JIT Python", "jit-cpp-wrapper": "JIT cpp_wrapper",
         "aot": "AOTInductor"}


class IndexLine(html.parser.HTMLParser):
    """The text of each <li> of the index's provenance section."""

    def __init__(self):
        super().__init__()
        self.inside = False
        self.items = []

    def handle_starttag(self, tag, attrs):
        if tag == "section" and ("id", "provenance") in attrs:
            self.inside = True
        elif tag == "li" and self.inside:
            self.items.append("")

    def handle_endtag(self, tag):
        if tag == "section":
            self.inside = False

    def handle_data(self, data):
        if self.inside and self.items:
            self.items[-1] += data


def compiled_frames(log):
    """Compile folder -> "function at file:line" of the innermost frame of
    its first dynamo_start, read from the trace's string table."""
    names, frames = {}, {}
    for _, env, _ in tracelog.records(log):
        if "str" in env:
            names[env["str"][1]] = env["str"][0]
        elif "dynamo_start" in env and env["dynamo_start"].get("stack"):
            f = env["dynamo_start"]["stack"][-1]
            frames.setdefault(tracelog.dir_name(env), "%s at %s:%d" % (
                f["name"], os.path.basename(names[f["filename"]]), f["line"]))
    return frames


class IndexDescribesEachView(unittest.TestCase):
    """The index names each view's compile id, compiled frame, mode and
    kernels with the share the code shows called, all checked against the
    view's JSON and the trace itself; a folder without provenance
    artifacts says so instead."""

    def test_recordings(self):
        for name in ["rec-jit-cpu", "rec-aot-cpu", "rec-cpp-wrapper",
                     "rec-train-cpu"]:
            log = os.path.join(ROOT, "examples", name, "trace.log")
            with self.subTest(example=name), \
                    tempfile.TemporaryDirectory() as tmp:
                tmp = os.path.join(tmp, "out")
                parse(log, tmp)
                frames = compiled_frames(log)
                index = IndexLine()
                with open(os.path.join(tmp, "index.html")) as f:
                    index.feed(f.read())
                pages = sorted(p[:-5] for p in os.listdir(tmp)
                               if p.startswith("provenance_tracking_")
                               and p.endswith(".json"))
                expected = []
                for page in pages:
                    view = load(os.path.join(tmp, page + ".json"))
                    facts = [view["compile_id"]]
                    if view["compile_dir"] in frames:
                        facts.append(frames[view["compile_dir"]])
                    arts = view["artifacts"]
                    if not any(arts[k] for k in ("pre_grad_graph",
                                                 "post_grad_graph", "code",
                                                 "node_mappings")):
                        facts.append("no provenance artifacts")
                    else:
                        facts.append(MODES[view["mode"]])
                        kernels = view["kernels"]
                        n = len(kernels)
                        called = sum(1 for k in kernels if k["calls"])
                        text = "%d kernel%s" % (n, "" if n == 1 else "s")
                        reason = view["no_links_reason"]
                        if n and not reason:
                            text += ", %d linked (%d %%)" % (
                                called, called * 100 // n)
                        facts.append(text)
                        if reason:
                            facts.append("no links: " + reason)
                    expected.append("%s json %s" % (page, " · ".join(facts)))
                # The provenance section lists the views in folder order,
                # which sorts as the view names do within the section.
                self.assertEqual(sorted(i.strip() for i in index.items),
                                 sorted(expected))


GEN_TRACE = os.path.join(ROOT, "tests", "tracegen", "gen_trace.py")


def tree_bytes(top):
    """Every file under `top` by its relative path, with its bytes."""
    files = {}
    for d, _, names in os.walk(top):
        for n in names:
            path = os.path.join(d, n)
            with open(path, "rb") as f:
                files[os.path.relpath(path, top)] = f.read()
    return files


@unittest.skipUnless(len(os.sched_getaffinity(0)) >= 2,
                     "one core only: no helper thread to compare: skipped")
class LargeViewsOnOneCoreAndOnAll(unittest.TestCase):
    """A view whose code is 1 MiB or more is analyzed with helper threads
    that wait for an idle core (util/cores.h): its FX graphs on a second
    thread, an AOT wrapper's launcher comments, and its page's panels
    deflated ahead, which the page copies. Pinned to one core, none of
    them starts and the view's thread does it all; the report must be the
    same byte for byte, with the same messages."""

    def run_pinned(self, log, out, cores):
        return subprocess.run(
            [TLPARSE, log, "-i", "-o", out, "--no-browser"],
            capture_output=True, env=dict(os.environ, CI="1"),
            preexec_fn=lambda: os.sched_setaffinity(0, cores))

    def test_generated_large_views(self):
        every = os.sched_getaffinity(0)
        one = {min(every)}
        # An AOT wrapper of 1.7 MB with Triton launchers; JIT Python code
        # of about 1.1 MB with C++ kernels.
        for shape, layers in (("aot-cuda", 300), ("jit-cpu", 420)):
            with self.subTest(shape=shape), \
                    tempfile.TemporaryDirectory() as tmp:
                log = os.path.join(tmp, "trace.log")
                subprocess.run([sys.executable, GEN_TRACE, "--shape", shape,
                                "--layers", str(layers), "-o", log],
                               check=True)
                outs = {}
                for name, cores in (("one", one), ("all", every)):
                    out = os.path.join(tmp, name)
                    r = self.run_pinned(log, out, cores)
                    self.assertEqual(r.returncode, 0, r.stderr)
                    outs[name] = (tree_bytes(out), r.stderr)
                # The view's code is large enough for the helpers.
                view = [p for p in outs["all"][0]
                        if p.startswith("provenance_tracking_")
                        and p.endswith(".json")]
                self.assertEqual(len(view), 1)
                meta = json.loads(outs["all"][0][view[0]])
                code = meta["artifacts"]["code"]
                self.assertGreaterEqual(
                    len(outs["all"][0][code.lstrip("/")]), 1 << 20)
                page = outs["all"][0][view[0][:-5] + ".html"]
                self.assertIn(b'id="tlprov-text-code" data-deflate="raw"',
                              page)
                self.assertEqual(sorted(outs["one"][0]),
                                 sorted(outs["all"][0]))
                for path in outs["all"][0]:
                    self.assertEqual(outs["one"][0][path],
                                     outs["all"][0][path], path)
                self.assertEqual(outs["one"][1], outs["all"][1])


class WorkersFollowTheAffinityMask(unittest.TestCase):
    """The view workers a run starts are the cores its affinity mask lets
    it run on (util/cores.h), not the machine's: pinned to one core, one
    worker; TLPARSE_STATS=1 says how many."""

    def stats_line(self, args, cores):
        r = subprocess.run(
            [TLPARSE] + args + ["--no-browser"], capture_output=True,
            text=True, env=dict(os.environ, CI="1", TLPARSE_STATS="1"),
            preexec_fn=lambda: os.sched_setaffinity(0, cores))
        self.assertEqual(r.returncode, 0, r.stderr)
        return [line for line in r.stderr.splitlines()
                if "view worker" in line]

    def test_one_log_and_ranks(self):
        every = os.sched_getaffinity(0)
        n = len(every)
        with tempfile.TemporaryDirectory() as tmp:
            log = os.path.join(tmp, "trace.log")
            subprocess.run([sys.executable, GEN_TRACE, "--shape", "jit-cpu",
                            "--layers", "3", "-o", log], check=True)
            self.assertEqual(
                self.stats_line([log, "-o", os.path.join(tmp, "one")],
                                {min(every)}),
                ["tlparse: stats: 1 view worker, 1 usable core"])
            self.assertEqual(
                self.stats_line([log, "-o", os.path.join(tmp, "all")],
                                every),
                ["tlparse: stats: %d view worker%s, %d usable core%s"
                 % (n, "" if n == 1 else "s", n, "" if n == 1 else "s")])
            # Two ranks on one core: one job at a time, one worker each.
            ranks = os.path.join(tmp, "ranks")
            os.mkdir(ranks)
            for rank in (0, 1):
                shutil.copy(log, os.path.join(
                    ranks, "dedicated_log_torch_trace_rank_%d.log" % rank))
            self.assertEqual(
                self.stats_line([ranks, "--all-ranks-html", "-o",
                                 os.path.join(tmp, "ranks-out")],
                                {min(every)}),
                ["tlparse: stats: 1 view worker, 1 usable core"] * 2)


if __name__ == "__main__":
    unittest.main(verbosity=2)
