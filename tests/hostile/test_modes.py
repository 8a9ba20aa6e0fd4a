"""The new modes under attack: the export report (-e) and the multi-rank
report (--all-ranks-html), end to end against the real binary.

-e: a 50 MB single-line guard expression, invalid UTF-8 with markup in every
field the report reads, 20,000 guards. (The 100,000-deep argument_ids chain
and `<script>` in every text are tests/e2e/test_export.py's
test_deep_chain_is_drawn_without_recursion and
test_script_in_every_text_is_escaped.)

--all-ranks-html: rank logs that are a FIFO, a link to /dev/zero, a dangling
link, a folder; 64 ranks; a rank log cut mid-payload; a rank log named
with markup, a newline and
invalid UTF-8; rank_N/ folders of an old report in the input folder; a
folder created at -o during the run; SIGINT to the process group and to the
parent alone; malformed runtime and schedule artifacts; a rank's summary
cut short or running on in the pipe to the parent (pipe_damage.c).

Environment: TLPARSE (the binary); TLPARSE_SANITIZED=1 or TLPARSE_TSAN=1
skip the memory bounds (the sanitizers' shadow memory).
"""

import glob
import hashlib
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_output_folder as outdir  # noqa: E402  (its big_log helper)

TLPARSE = os.environ.get("TLPARSE", "tlparse")
ENV = dict(os.environ, CI="1")
SANITIZED = any(os.environ.get(k, "").upper() in ("1", "ON", "TRUE")
                for k in ("TLPARSE_SANITIZED", "TLPARSE_TSAN"))
PREFIX = "V0101 00:00:00.000000 1 m.py:1] "
IDS = {"frame_id": 0, "frame_compile_id": 0, "attempt": 0}
RANK = "dedicated_log_torch_trace_rank_%d.log"
MARKUP = "<script>alert(1)</script><img src=x onerror=alert(1)>"


def entry(obj, payload=None):
    env = dict(obj, **IDS)
    if payload is not None:
        env["has_payload"] = hashlib.md5(payload.encode()).hexdigest()
    s = PREFIX + json.dumps(env) + "\n"
    if payload is not None:
        s += "".join("\t" + l + "\n" for l in payload.split("\n"))
    return s


def run_measured(args):
    """Runs tlparse; returns (exit code, stdout, stderr, peak RSS bytes)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.Popen([TLPARSE] + args, stdout=out, stderr=err,
                             env=ENV)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return (p.returncode, out.read().decode(), err.read().decode(),
                usage.ru_maxrss * 1024)


def run(args, **kw):
    return subprocess.run([TLPARSE] + args, capture_output=True, env=ENV,
                          **kw)


def tree_size(path):
    return sum(os.path.getsize(os.path.join(d, f))
               for d, _, files in os.walk(path) for f in files)


def html_pages(path):
    return sorted(os.path.join(d, f) for d, _, files in os.walk(path)
                  for f in files if f.endswith(".html"))


class Temp(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="tl-modes-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def path(self, *parts):
        return os.path.join(self.tmp, *parts)

    def assertMemoryBounded(self, rss, size):
        """The amplification suite's bound: 64 MiB + 16 x the input."""
        if not SANITIZED:
            self.assertLess(rss, 64 * 2**20 + 16 * size)


class Export(Temp):
    def export(self, text):
        log, out = self.path("export.log"), self.path("out")
        with open(log, "wb" if isinstance(text, bytes) else "w") as f:
            f.write(text)
        code, stdout, stderr, rss = run_measured(
            [log, "-e", "-o", out, "--no-browser"])
        return code, stderr, out, os.path.getsize(log), rss

    def test_a_50_mb_single_line_expression(self):
        big = "s0 + " * 10_000_000 + "1"  # 50,000,001 bytes, one line
        code, stderr, out, size, rss = self.export(
            entry({"guard_added": {"expr": big, "prefix": "eval"}}))
        self.assertGreater(size, 50_000_000)
        self.assertEqual(code, 0, stderr)
        self.assertEqual(stderr, "")
        self.assertEqual(sorted(os.listdir(out)), ["-_0_0_0", "index.html"])
        self.assertEqual(os.listdir(self.path("out", "-_0_0_0")),
                         ["symbolic_guard_information_0.html"])
        with open(self.path("out", "index.html")) as f:
            index = f.read()
        with open(self.path("out", "-_0_0_0",
                            "symbolic_guard_information_0.html")) as f:
            page = f.read()
        # The index's failure row and the page's heading show it whole.
        self.assertEqual(index.count("the following guard was evaluated "
                                     "<code>%s</code>" % big), 1)
        self.assertEqual(page.count("More detailed information on <code>%s"
                                    "</code>" % big), 1)
        # Bounds of the amplification suite: output <= 16x, memory <= 64 MiB
        # + 16x the input.
        self.assertLessEqual(tree_size(out), 16 * size)
        self.assertMemoryBounded(rss, size)

    def test_invalid_utf8_and_markup_in_every_field(self):
        bad = "\udcff\udcfe" + MARKUP + "\udcc3("  # \xff \xfe, cut sequence
        frame = {"line": 1, "name": bad, "filename": 0, "loc": bad}
        locs = {"locals": {bad: bad}, "symbols": {bad: bad}}

        def line(obj, payload=None):
            env = dict(obj, **IDS)
            if payload is not None:
                env["has_payload"] = hashlib.md5(payload.encode(
                    "utf-8", "surrogateescape")).hexdigest()
            s = PREFIX + json.dumps(env, ensure_ascii=False) + "\n"
            if payload is not None:
                s += "\t" + payload + "\n"
            return s.encode("utf-8", "surrogateescape")

        log = (line({"str": [bad, 0]}).replace(b', "frame_id": 0, '
                                               b'"frame_compile_id": 0, '
                                               b'"attempt": 0', b"")
               + line({"expression_created": {
                   "method": bad, "result": bad, "result_id": 1,
                   "arguments": [bad, bad], "argument_ids": [2],
                   "user_stack": [frame], "stack": [frame]}})
               + line({"create_unbacked_symbol": {
                   "symbol": bad, "node_id": 2, "user_stack": [frame],
                   "stack": [frame]}})
               + line({"guard_added": {
                   "expr": bad, "prefix": "eval", "expr_node_id": 1,
                   "frame_locals": locs, "user_stack": [frame],
                   "stack": [frame]}})
               + line({"propagate_real_tensors_provenance": {
                   "expr": bad, "result": bad, "expr_node_id": 1,
                   "frame_locals": locs, "user_stack": [frame],
                   "stack": [frame]}})
               + line({"missing_fake_kernel": {"op": bad}})
               + line({"mismatched_fake_kernel": {"op": bad,
                                                  "reason": bad}})
               + line({"exported_program": {}}, bad)
               + line({"artifact": {"name": bad, "encoding": "string"}},
                      bad))
        code, stderr, out, _, _ = self.export(log)
        self.assertEqual(code, 0, stderr)
        raw = bad.encode("utf-8", "surrogateescape")
        pages = html_pages(out)
        self.assertEqual([os.path.relpath(p, out) for p in pages], [
            "-_0_0_0/symbolic_guard_information_0.html",
            "-_0_0_0/symbolic_guard_information_1.html", "index.html"])
        escaped = (b"&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x "
                   b"onerror=alert(1)&gt;")
        for p in pages:
            with open(p, "rb") as f:
                text = f.read()
            self.assertNotIn(b"<script", text.lower(), p)
            self.assertNotIn(b"<img", text.lower(), p)
            self.assertIn(escaped, text, p)
        # Text files keep the payload byte for byte.
        md5 = hashlib.md5(raw).hexdigest()
        for rel in ("-_0_0_0/exported_program_2.txt",
                    "payloads/%s.txt" % md5):
            with open(os.path.join(out, rel), "rb") as f:
                self.assertEqual(f.read(), raw, rel)

    def test_invalid_utf8_pages_are_valid_utf8(self):
        """The one-log report writes U+FFFD for invalid UTF-8; the export
        pages copy the bytes (src/export/export_report.c escapes, never repairs)."""
        log = entry({"guard_added": {"expr": "E", "prefix": "eval"}})
        log = log.encode().replace(b'"E"', b'"\xff\xfe<b>"')
        code, stderr, out, _, _ = self.export(log)
        self.assertEqual(code, 0, stderr)
        for p in html_pages(out):
            with open(p, "rb") as f:
                f.read().decode("utf-8", "strict")

    def test_20000_guards(self):
        n = 20_000
        log = "".join(entry({"guard_added": {"expr": "Eq(s%d, 3)" % i,
                                             "prefix": "eval"}})
                      for i in range(n))
        code, stderr, out, size, rss = self.export(log)
        try:
            self.assertEqual(code, 0, stderr)
            self.assertEqual(stderr, "")
            names = os.listdir(self.path("out", "-_0_0_0"))
            self.assertEqual(len(names), n)
            self.assertEqual(set(names),
                             {"symbolic_guard_information_%d.html" % i
                              for i in range(n)})
            with open(self.path("out", "index.html")) as f:
                index = f.read()
            self.assertIn("<b>%d issue(s) were found during export</b>" % n,
                          index)
            self.assertEqual(index.count("<tr>"), n + 1)  # + the heading
            self.assertIn("Eq(s%d, 3)" % (n - 1), index)
            self.assertMemoryBounded(rss, size)
        finally:
            shutil.rmtree(out, ignore_errors=True)  # 85 MB: free it at once


def write_rank_log(folder, name, text):
    """Writes `text` (str) as `name` (str, or bytes for any name) in
    `folder`."""
    if isinstance(name, bytes):
        folder = folder.encode()
    with open(os.path.join(folder, name), "w") as f:
        f.write(text)


TINY = entry({"dynamo_output_graph": {}}, "g")


class MultiRank(Temp):
    def setUp(self):
        super().setUp()
        self.logs = self.path("logs")
        self.out = self.path("out")
        os.mkdir(self.logs)

    def multi(self, *extra, timeout=120):
        return run([self.logs, "--all-ranks-html", "-o", self.out,
                    "--no-browser"] + list(extra), timeout=timeout)

    def landing(self):
        with open(os.path.join(self.out, "index.html"), "rb") as f:
            return f.read()

    def stdout_lines(self, ranks, dirs=None):
        return (["Processing rank %d \u2192 %s/%s" % (r, self.out, d)
                 for r, d in zip(ranks, dirs or
                                 ["rank_%d" % r for r in ranks])]
                + ["Multi-rank report generated under %s" % self.out,
                   "Individual pages: rank_*/index.html"])

    def test_rank_logs_that_are_not_regular_files_are_ignored(self):
        write_rank_log(self.logs, RANK % 0, TINY)
        os.mkfifo(os.path.join(self.logs, RANK % 1))
        os.symlink("/dev/zero", os.path.join(self.logs, RANK % 2))
        os.symlink(self.path("nowhere"), os.path.join(self.logs, RANK % 3))
        os.mkdir(os.path.join(self.logs, RANK % 4))
        r = self.multi(timeout=60)  # a FIFO opened for reading would block
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.decode().splitlines(),
                         self.stdout_lines([0]))
        self.assertEqual(r.stderr, b"")
        self.assertEqual(sorted(os.listdir(self.out)),
                         ["index.html", "rank_0", "static"])
        page = self.landing()
        self.assertEqual(page.count(b"<li>"), 1)
        self.assertIn(b'<li><a href="rank_0/index.html">Rank 0</a></li>', page)

    def test_only_non_regular_rank_logs_is_no_rank_log(self):
        os.mkfifo(os.path.join(self.logs, RANK % 1))
        os.symlink("/dev/zero", os.path.join(self.logs, RANK % 2))
        r = self.multi(timeout=60)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stderr.decode().splitlines(),
                         ["tlparse: No rank log files found in directory %s"
                          % self.logs])
        self.assertFalse(os.path.exists(self.out))

    def test_64_ranks_are_all_processed(self):
        for k in range(64):
            write_rank_log(self.logs, RANK % k, TINY)
        r = self.multi("-j", "2")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.decode().splitlines(),
                         self.stdout_lines(range(64)))
        self.assertEqual(r.stderr, b"")
        page = self.landing()
        self.assertEqual(page.count(b"<li>"), 64)
        for k in range(64):
            self.assertIn(b'<li><a href="rank_%d/index.html">Rank %d</a></li>'
                          % (k, k), page)
            with open(os.path.join(self.out, "rank_%d" % k,
                                   "-_0_0_0", "dynamo_output_graph_0.txt")) as f:
                self.assertEqual(f.read(), "g")

    HOSTILE_NAME = (b"dedicated_log_torch_trace_rank_0_<img src=x "
                    b"onerror=alert(1)>\n\xff\xfe.log")

    def hostile_name_run(self):
        write_rank_log(self.logs, RANK % 0, TINY)
        write_rank_log(self.logs, self.HOSTILE_NAME, TINY)
        return self.multi()

    def test_rank_file_name_with_markup_is_escaped(self):
        r = self.hostile_name_run()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.decode().splitlines(), self.stdout_lines(
            [0, 0], ["rank_0", "rank_0-2"]))
        self.assertEqual(sorted(os.listdir(self.out)),
                         ["index.html", "rank_0", "rank_0-2", "static"])
        page = self.landing()
        self.assertIn(b'<li><a href="rank_0-2/index.html">Rank 0</a> '
                      b'(another file of this rank: <code>dedicated_log_'
                      b'torch_trace_rank_0_&lt;img src=x onerror=alert(1)'
                      b'&gt;', page)
        for p in html_pages(self.out):
            with open(p, "rb") as f:
                self.assertNotIn(b"<img", f.read(), p)

    def test_rank_file_name_with_invalid_utf8_gives_valid_utf8(self):
        """The landing page (src/multirank/multi_rank_page.c) and the rank's own page
        copy the name's bytes; its stderr line is cut by the newline."""
        r = self.hostile_name_run()
        self.assertEqual(r.returncode, 0, r.stderr)
        for p in html_pages(self.out):
            with open(p, "rb") as f:
                f.read().decode("utf-8", "strict")
        self.assertEqual(len(r.stderr.splitlines()), 1)

    def test_rank_folders_of_an_old_report_in_the_input_are_not_read(self):
        write_rank_log(self.logs, RANK % 0, TINY)
        old = os.path.join(self.logs, "rank_0")
        os.makedirs(os.path.join(old, "-_0_0_0"))
        with open(os.path.join(old, "compile_directory.json"), "w") as f:
            json.dump({"[0/0]": {"artifacts": [{
                "name": "inductor_collective_schedule_0.json",
                "url": "-_0_0_0/inductor_collective_schedule_0.json"}]}}, f)
        with open(os.path.join(old, "-_0_0_0",
                               "inductor_collective_schedule_0.json"),
                  "w") as f:
            json.dump([MARKUP], f)
        os.symlink("/etc", os.path.join(self.logs, "rank_1"))
        r = self.multi()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.decode().splitlines(),
                         self.stdout_lines([0]))
        self.assertFalse(os.path.exists(os.path.join(
            self.out, "collective_schedules.json")))
        with open(os.path.join(self.out, "rank_0",
                               "compile_directory.json")) as f:
            self.assertNotIn("inductor_collective_schedule", f.read())

    def test_malformed_runtime_and_schedule_artifacts(self):
        def art(name, payload):
            return entry({"artifact": {"name": name, "encoding": "json"}},
                         payload)
        write_rank_log(self.logs, RANK % 0,
                       art("inductor_runtime_and_tensor_meta",
                           '{"ops": [{"name": "x"}]}')
                       + art("inductor_collective_schedule", "[1, 2]"))
        write_rank_log(self.logs, RANK % 1,
                       art("inductor_runtime_and_tensor_meta", '{"ops": 1}')
                       + art("inductor_collective_schedule", '{"a": 1}'))
        write_rank_log(self.logs, RANK % 2,
                       art("inductor_runtime_and_tensor_meta",
                           '{"ops": [{"name": "ok", '
                           '"estimated_runtime_ns": 5}]}')
                       + art("inductor_collective_schedule", '["x"]'))
        r = self.multi()
        self.assertEqual(r.returncode, 0, r.stderr)
        pre = "tlparse: %s: dedicated_log_torch_trace_rank_%d.log: rank_%d/"
        self.assertEqual(r.stderr.decode().splitlines(), [
            pre % (self.logs, 0, 0) + "-_0_0_0/inductor_runtime_and_tensor_"
            "meta_0.json has an op without a string \"name\" and a number "
            "\"estimated_runtime_ns\"; left out of the cross-rank analyses",
            pre % (self.logs, 0, 0) + "-_0_0_0/inductor_collective_schedule_"
            "1.json is not an array of strings; left out of the cross-rank "
            "analyses",
            pre % (self.logs, 1, 1) + "-_0_0_0/inductor_runtime_and_tensor_"
            "meta_0.json has no \"ops\" array; left out of the cross-rank "
            "analyses",
            pre % (self.logs, 1, 1) + "-_0_0_0/inductor_collective_schedule_"
            "1.json is not an array of strings; left out of the cross-rank "
            "analyses"])
        # Only rank 2's artifacts are aggregated.
        with open(os.path.join(self.out, "collective_schedules.json")) as f:
            self.assertEqual(json.load(f), [
                {"rank": 2, "graph": "-_0_0_0", "ops": ["x"]}])
        with open(os.path.join(self.out, "runtime_estimations.json")) as f:
            self.assertEqual(json.load(f), [
                {"rank": 2, "graph": "-_0_0_0",
                 "ops": [{"name": "ok", "estimated_runtime_ns": 5.0}]}])

    def test_invalid_utf8_in_cross_rank_artifacts_gives_valid_utf8(self):
        """Lone surrogate escapes and raw bad bytes in the artifacts that
        the cross-rank files gather (runtime estimations, collective
        schedules, chromium events): every file is UTF-8, every .json
        parses, each escape is one U+FFFD."""
        def art(name, payload):
            env = dict({"artifact": {"name": name, "encoding": "json"}},
                       **IDS)
            env["has_payload"] = hashlib.md5(payload).hexdigest()
            return (PREFIX + json.dumps(env) + "\n").encode() + b"\t" \
                + payload + b"\n"
        for k in range(2):
            with open(os.path.join(self.logs, RANK % k), "wb") as f:
                f.write(TINY.encode()
                        + art("inductor_runtime_and_tensor_meta",
                              b'{"ops": [{"name": "mm\\udc00\xff", '
                              b'"estimated_runtime_ns": %d}]}' % (5 + k))
                        + art("inductor_collective_schedule",
                              b'["all_reduce\\ud800\xc0x"]'))
        r = self.multi("-i")
        self.assertEqual(r.returncode, 0, r.stderr)
        for d, _, files in os.walk(self.out):
            for f in files:
                if f == "raw.log":
                    continue  # the trace's own bytes, by design
                with open(os.path.join(d, f), "rb") as fh:
                    text = fh.read().decode("utf-8", "strict")
                if f.endswith(".json"):
                    json.loads(text)
        with open(os.path.join(self.out, "runtime_estimations.json")) as f:
            self.assertEqual(json.load(f), [
                {"rank": k, "graph": "-_0_0_0",
                 "ops": [{"name": "mm\ufffd\ufffd",
                          "estimated_runtime_ns": 5.0 + k}]}
                for k in range(2)])
        with open(os.path.join(self.out, "collective_schedules.json")) as f:
            self.assertEqual(json.load(f), [
                {"rank": k, "graph": "-_0_0_0",
                 "ops": ["all_reduce\ufffd\ufffdx"]} for k in range(2)])

    def multi_with_file_size_limit(self, limit):
        def limit_file_size():
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        return subprocess.run(
            [TLPARSE, self.logs, "--all-ranks-html", "-o", self.out,
             "--no-browser"], env=ENV, capture_output=True, text=True,
            preexec_fn=limit_file_size, timeout=120)

    def test_a_rank_that_cannot_write_is_left_out_not_published_partial(self):
        """Rank 1's log and graph (3 MB each) cannot be written under a 2 MB
        file-size limit: its child fails at its copy of the log (raw.log,
        written as the log is read), its partial folder is removed, the
        landing page lists it as failed without a link, the other ranks
        are published, exit 1."""
        for k in range(3):
            write_rank_log(self.logs, RANK % k, entry(
                {"dynamo_output_graph": {}}, "x" * 3000000 if k == 1 else "g"))
        r = self.multi_with_file_size_limit(2000000)
        self.assertEqual(r.returncode, 1, r.stderr)
        why = "its parse failed: cannot write rank_1/raw.log: File too large"
        err = r.stderr.splitlines()
        log = os.path.join(self.logs, RANK % 1)
        # The rank's own summary names the file under the output folder the
        # user gave, not under the staging folder, gone by then.
        self.assertEqual(err, [
            "tlparse: %s: rank 1: %s; its partial report is left out"
            % (log, why),
            "tlparse: %s: cannot write %s/rank_1/raw.log: File too large (2 "
            "output files not written)" % (log, self.out),
            "tlparse: 1 of 3 ranks failed (see above)"])
        self.assertEqual(sorted(os.listdir(self.out)),
                         ["index.html", "rank_0", "rank_2", "static"])
        page = self.landing().decode()
        self.assertIn('<li>Rank 1 <span class="fail">failed: %s; not in the '
                      'cross-rank analyses</span></li>' % why, page)
        self.assertNotIn("rank_1/", page.replace(why, ""))
        self.assertEqual(glob.glob(self.out + ".tlparse-*"), [])

    def test_a_rank_whose_events_part_cannot_be_written(self):
        """Each rank's chromium events also go to a part file beside its
        folder (.rank_N.chromium_events.part, joined into the combined
        chromium_events.json): 3,000 events make a 933,782-byte
        chromium_events.json in the rank's folder and a larger part (its
        events carry their pid), so under a 940 KiB limit only the part
        fails. The reason names the part file as it is, not a file of the
        rank's folder."""
        event = ('{"name": "e%d", "ts": %d, "ph": "B", "cat": "c", "tid": 0, '
                 '"args": {"a": {"b": {"c": {"d": {"e": [1, 2, 3]}}}}}}')
        for k in (10, 11):
            write_rank_log(self.logs, RANK % k, "".join(
                entry({"chromium_event": {}, "rank": k}, event % (n, n))
                for n in range(3000)))
        r = self.multi_with_file_size_limit(940 * 1024)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(sorted(r.stderr.splitlines()), sorted([
            "tlparse: %s: rank %d: its parse failed: cannot write "
            ".rank_%d.chromium_events.part: File too large; its partial "
            "report is left out" % (os.path.join(self.logs, RANK % k), k, k)
            for k in (10, 11)] + [
            "tlparse: every rank failed (see above): no report written"]))
        self.assertFalse(os.path.exists(self.out))
        self.assertEqual(glob.glob(self.out + ".tlparse-*"), [])

    def test_a_rank_whose_events_part_cannot_be_read(self):
        """The parent joins the ranks' part files into the combined
        chromium_events.json; one it cannot read (refused by read_damage.c,
        preloaded) fails the run with the reason, naming the rank and the
        part file, which lived only in the staging folder."""
        event = '{"name": "e%d", "ts": %d, "ph": "X", "dur": 1, "tid": 0}'
        for k in range(2):
            write_rank_log(self.logs, RANK % k, "".join(
                entry({"chromium_event": {}, "rank": k}, event % (n, n))
                for n in range(3)))
        cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
        if not cc:
            self.skipTest("no C compiler for read_damage.c")
        with open(shutil.which(TLPARSE) or TLPARSE, "rb") as f:
            if any(s in f.read() for s in (b"__asan_init", b"__tsan_init")):
                self.skipTest("a sanitizer's runtime intercepts open")
        shim = self.path("read_damage.so")
        subprocess.run([cc, "-shared", "-fPIC", "-o", shim, os.path.join(
            os.path.dirname(os.path.abspath(__file__)), "read_damage.c"),
            "-ldl"], check=True)
        r = subprocess.run(
            [TLPARSE, self.logs, "--all-ranks-html", "-o", self.out,
             "--no-browser"], capture_output=True, text=True, timeout=120,
            env=dict(ENV, LD_PRELOAD=shim,
                     TL_TEST_DENY_READ=".chromium_events.part"))
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(r.stderr, "tlparse: cannot read rank 0's chromium "
                         "events, staged in .rank_0.chromium_events.part: "
                         "Permission denied\n")
        self.assertFalse(os.path.exists(self.out))
        self.assertEqual(glob.glob(self.out + ".tlparse-*"), [])

    def test_the_combined_events_file_names_the_output_folder(self):
        """Four ranks of 4,000 chromium events each write their own files
        under a 1 MB limit (the largest, each rank's raw.log, is 921,780
        bytes), but not the combined chromium_events.json (1,623,122): the
        message names it under the output folder, not the staging folder."""
        event = '{"name": "e%d", "ts": %d, "ph": "X", "dur": 1, "tid": 0}'
        for k in range(4):
            write_rank_log(self.logs, RANK % k, "".join(
                entry({"chromium_event": {}, "rank": k}, event % (n, n))
                for n in range(4000)))
        r = self.multi_with_file_size_limit(1000000)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(r.stderr, "tlparse: cannot write %s/chromium_events"
                         ".json: File too large\n" % self.out)
        self.assertFalse(os.path.exists(self.out))
        self.assertEqual(glob.glob(self.out + ".tlparse-*"), [])

    def test_every_rank_failing_publishes_nothing(self):
        for k in range(2):
            write_rank_log(self.logs, RANK % k,
                           entry({"dynamo_output_graph": {}}, "x" * 3000000))
        r = self.multi_with_file_size_limit(2000000)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(r.stderr.splitlines()[-1], "tlparse: every rank "
                         "failed (see above): no report written")
        self.assertFalse(os.path.exists(self.out))
        self.assertEqual(glob.glob(self.out + ".tlparse-*"), [])

    def test_a_rank_cut_mid_payload(self):
        """A rank log that ends inside a payload (a copy cut short, a job
        killed while writing): that rank's diagnostics name its file and
        line, its report keeps what was read, every other rank's report and
        the landing page are written, exit 0."""
        def art(name, payload):
            return entry({"artifact": {"name": name, "encoding": "json"}},
                         payload)
        code = "\n".join("buf%d = torch.ops.aten.mm(x, y)  # line %d"
                         % (i, i) for i in range(200))
        cut = len(code) // 2
        for k in range(3):
            text = (entry({"dynamo_output_graph": {}}, "g%d" % k)
                    + art("inductor_runtime_and_tensor_meta", json.dumps(
                        {"ops": [{"name": "mm",
                                  "estimated_runtime_ns": 1000.0 * (k + 1)}
                                 ]}))
                    + entry({"inductor_output_code":
                             {"filename": "/tmp/c.py"}}, code))
            if k == 1:
                text = text[:len(text) - cut]  # no final newline either
                # The payload lines as read: those after line 5, the
                # output code's header.
                kept = "\n".join(l[1:] for l in text.split("\n")[5:])
            write_rank_log(self.logs, RANK % k, text)
        r = self.multi("-j", "3")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.decode().splitlines(), [
            "Processing rank %d \u2192 %s/rank_%d" % (k, self.out, k)
            for k in range(3)] + [
            "Runtime estimations: %s/runtime_estimations.json" % self.out,
            "Multi-rank report generated under %s" % self.out,
            "Individual pages: rank_*/index.html"])
        log = os.path.join(self.logs, RANK % 1)
        whole = hashlib.md5(code.encode()).hexdigest()
        # The cut is told as a cut, not also as an md5 mismatch.
        self.assertEqual(r.stderr.decode().splitlines(), [
            "tlparse: %s:5: file ends inside the \"inductor_output_code\" "
            "entry's payload (kept as read) (1 truncated record)" % log])
        page = self.landing()
        for k in range(3):
            self.assertIn(b'<li><a href="rank_%d/index.html">Rank %d</a></li>'
                          % (k, k), page)
            with open(os.path.join(self.out, "rank_%d" % k, "-_0_0_0",
                                   "inductor_output_code_c_2.py")) as f:
                self.assertEqual(f.read(), kept if k == 1 else code)
            self.assertTrue(os.path.isfile(os.path.join(
                self.out, "rank_%d" % k, "index.html")))
        # The cut rank's runtime estimate, before the cut, still counts.
        self.assertIn(b"<p><strong>Graph -_0_0_0:</strong> 0.002 ms delta "
                      b"(Fastest: Rank 0 - 0.001 ms, Slowest: Rank 2 - 0.003 "
                      b"ms)</p>", page)


class Profile(Temp):
    """--profile under attack: event names with a lone surrogate escape and
    with raw bad bytes, in a profile whose file name holds bad bytes too.
    Every file written is UTF-8 (the page's embedded data included), and
    the stderr line names the profile and the byte, not a trace line."""

    EXAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           "..", "..", "examples", "rec-profile")

    def test_invalid_utf8_in_event_names_and_the_file_name(self):
        import gzip
        with gzip.open(os.path.join(self.EXAMPLE, "profile.json.gz")) as f:
            data = f.read()
        # Two events on a thread of their own (no nesting with the real
        # ones): a lone surrogate escape, and raw bytes that are no UTF-8.
        events = (b'{"ph": "X", "cat": "cpu_op", "name": "lone\\udc00' +
                  MARKUP.encode() + b'", "pid": 7, "tid": 424242, '
                  b'"ts": 1.0, "dur": 1.0},\n'
                  b'{"ph": "X", "cat": "cpu_op", "name": "raw\xff\xfe", '
                  b'"pid": 7, "tid": 424242, "ts": 3.0, "dur": 1.0},\n')
        at = data.index(b'"traceEvents": [') + len(b'"traceEvents": [')
        data = data[:at] + b"\n" + events + data[at:]
        # yajl reports the byte after the name's closing quote.
        first = data.index(b'lone\\udc00') + len(b'lone\\udc00' +
                                                  MARKUP.encode()) + 1
        name = self.tmp.encode() + b"/prof\xff\xfe.json"
        with open(name, "wb") as f:
            f.write(data)
        out = self.path("out")
        r = run([os.path.join(self.EXAMPLE, "trace.log"), "-i", "-o", out,
                 "--no-browser", "--profile", name])
        self.assertEqual(r.returncode, 0, r.stderr)
        trace = os.path.join(self.EXAMPLE, "trace.log").encode()
        self.assertEqual(r.stderr.splitlines(), [
            b"tlparse: " + trace + b": profile: event names with invalid "
            b"UTF-8 (written as U+FFFD) (2): first " + name + b": byte %d: "
            % first + "lone\ufffd".encode() + MARKUP.encode()
            + b" (1 problem with the profile)"])
        shown = self.tmp + "/prof\ufffd\ufffd.json"
        for d, _, files in os.walk(out):
            for f in files:
                if f == "raw.log":
                    continue  # the trace's own bytes, by design
                with open(os.path.join(d, f), "rb") as fh:
                    text = fh.read().decode("utf-8", "strict")
                if f.endswith(".json"):
                    json.loads(text)
        with open(os.path.join(out, "provenance_tracking_-_0_0_0.json")) as f:
            profile = json.load(f)["profile"]
        self.assertEqual(profile["files"], [shown])
        self.assertEqual(profile["match"]["status"], "matched")
        self.assertEqual(profile["match"]["files"], [shown])
        self.assertEqual(profile["problems"], [{
            "what": "event names with invalid UTF-8 (written as U+FFFD)",
            "count": 2, "first": "%s: byte %d: lone\ufffd%s"
            % (shown, first, MARKUP)}])
        # The page embeds the same data (its text, escaped for a script).
        with open(os.path.join(out, "provenance_tracking_-_0_0_0.html"),
                  encoding="utf-8") as f:
            page = f.read()
        self.assertIn(json.dumps([shown], ensure_ascii=False), page)
        self.assertNotIn(MARKUP, page)


def tree(path):
    """Every file under `path` by its relative name, with its bytes."""
    files = {}
    for d, _, names in os.walk(path):
        for n in names:
            with open(os.path.join(d, n), "rb") as f:
                files[os.path.relpath(os.path.join(d, n), path)] = f.read()
    return files


class DamagedSummary(Temp):
    """Each rank child sends the parent its diagnostics and the summary of
    its rank folder through a pipe; a summary cut short or running on is
    refused and the parent reads that rank's files itself, so the report
    is the one an undamaged run writes, byte for byte. The damage comes
    from pipe_damage.c, preloaded: tlparse has no hook for it."""

    @classmethod
    def setUpClass(cls):
        cls.lib_dir = tempfile.mkdtemp(prefix="tl-modes-shim-")
        cls.shim = os.path.join(cls.lib_dir, "pipe_damage.so")
        cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
        if not cc:
            raise unittest.SkipTest("no C compiler for pipe_damage.c")
        subprocess.run([cc, "-shared", "-fPIC", "-o", cls.shim,
                        os.path.join(os.path.dirname(
                            os.path.abspath(__file__)), "pipe_damage.c"),
                        "-ldl"], check=True)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.lib_dir, ignore_errors=True)

    def setUp(self):
        super().setUp()
        self.logs = self.path("logs")
        os.mkdir(self.logs)
        def art(name, payload):
            return entry({"artifact": {"name": name, "encoding": "json"}},
                         payload)
        for k in range(3):
            write_rank_log(self.logs, RANK % k, TINY
                           + art("inductor_runtime_and_tensor_meta",
                                 json.dumps({"ops": [
                                     {"name": "all_reduce",
                                      "estimated_runtime_ns": 100 + k}]}))
                           + art("inductor_collective_schedule",
                                 json.dumps(["all_reduce"] * (k % 2 + 1))))

    def multi(self, damage):
        """The report of a run with `damage` (TL_TEST_PIPE_* settings; the
        shim preloaded whenever given): exit code, stdout, stderr, files."""
        out = self.path("out")
        env = dict(ENV)
        if damage is not None:
            env.update(damage, LD_PRELOAD=self.shim)
        r = subprocess.run([TLPARSE, self.logs, "--all-ranks-html", "-o", out,
                            "--no-browser", "-j", "2"], env=env,
                           capture_output=True, timeout=120)
        files = tree(out) if os.path.isdir(out) else None
        shutil.rmtree(out, ignore_errors=True)
        return r.returncode, r.stdout, r.stderr.decode(), files

    def shim_reaches_tlparse(self):
        """Whether the preloaded write is the one tlparse calls: a
        sanitizer's runtime, linked into the binary, intercepts write
        itself."""
        with open(shutil.which(TLPARSE) or TLPARSE, "rb") as f:
            binary = f.read()
        return not any(s in binary for s in (b"__asan_init", b"__tsan_init"))

    def test_a_cut_or_run_on_summary_gives_the_undamaged_report(self):
        want = self.multi(None)
        code, _, err, files = want
        self.assertEqual(code, 0, err)
        self.assertEqual(err, "")
        self.assertEqual(json.loads(files["runtime_estimations.json"]), [
            {"rank": k, "graph": "-_0_0_0",
             "ops": [{"name": "all_reduce", "estimated_runtime_ns": 100.0 + k}]}
            for k in range(3)])
        self.assertEqual(json.loads(files["collective_schedules.json"]), [
            {"rank": k, "graph": "-_0_0_0", "ops": ["all_reduce"] * (k % 2 + 1)}
            for k in range(3)])
        # The control: a message cut into its diagnostics fails every rank,
        # so the shim does reach the pipe.
        code, _, err, files = self.multi({"TL_TEST_PIPE_KEEP": "4"})
        if code == 0 and not self.shim_reaches_tlparse():
            self.skipTest("a sanitized tlparse: its own write interceptor")
        self.assertEqual(code, 1, err)
        self.assertEqual(err.splitlines()[-1], "tlparse: every rank failed "
                         "(see above): no report written")
        # The last byte, the last number (8 bytes), and 5 bytes too many.
        for damage in ({"TL_TEST_PIPE_CUT": "1"}, {"TL_TEST_PIPE_CUT": "8"},
                       {"TL_TEST_PIPE_EXTRA": "5"}):
            got = self.multi(damage)
            self.assertEqual(got[:3], want[:3], damage)
            self.assertEqual(sorted(got[3]), sorted(want[3]), damage)
            for name in want[3]:
                self.assertEqual(got[3][name], want[3][name], (damage, name))


class MultiRankProcess(Temp):
    """Races on the output path and signals, on four ranks that each take
    about a second (test_output_folder.big_log)."""

    @classmethod
    def setUpClass(cls):
        cls.logs = tempfile.mkdtemp(prefix="tl-modes-logs-")
        for k in range(4):
            outdir.big_log(os.path.join(cls.logs, RANK % k))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.logs, ignore_errors=True)

    def setUp(self):
        super().setUp()
        self.out = self.path("o")

    def start(self):
        return subprocess.Popen(
            [TLPARSE, self.logs, "--all-ranks-html", "-o", self.out,
             "--no-browser", "-j", "2"], env=ENV, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, start_new_session=True)

    def children(self, pid):
        found = set()
        for stat in glob.glob("/proc/[0-9]*/stat"):
            try:
                with open(stat) as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.add(int(stat.split("/")[2]))
        return found

    @staticmethod
    def alive(pid):
        try:
            with open("/proc/%d/stat" % pid) as f:
                return f.read().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return False

    def wait_for_ranks(self, p):
        """Waits until two children write rank folders; returns (staging
        folder, children)."""
        kids, deadline = set(), time.time() + 30
        while time.time() < deadline and p.poll() is None:
            kids |= self.children(p.pid)
            found = glob.glob(self.out + ".tlparse-*/rank_0/-_1_0_0")
            if len(kids) >= 2 and found:
                return os.path.dirname(os.path.dirname(found[0])), kids
            time.sleep(0.002)
        self.fail("the ranks never started writing")

    def test_folder_created_at_o_during_the_run_is_kept(self):
        p = self.start()
        staging, _ = self.wait_for_ranks(p)
        os.mkdir(self.out)
        with open(os.path.join(self.out, "mine.txt"), "w") as f:
            f.write("user data")
        _, err = p.communicate()
        self.assertEqual(p.returncode, 1)
        self.assertEqual(os.listdir(self.out), ["mine.txt"])
        self.assertEqual(
            err.splitlines()[-1],
            "tlparse: %s appeared during the run: nothing was replaced; the "
            "new report is in %s" % (self.out, staging))
        for k in range(4):
            self.assertTrue(os.path.isfile(os.path.join(
                staging, "rank_%d" % k, "index.html")))
        self.assertTrue(os.path.isfile(os.path.join(staging, "index.html")))

    def interrupt(self, group):
        p = self.start()
        _, kids = self.wait_for_ranks(p)
        if group:  # Ctrl-C in a terminal: the whole process group
            os.killpg(p.pid, signal.SIGINT)
        else:
            os.kill(p.pid, signal.SIGINT)
        p.communicate()
        self.assertEqual(p.returncode, 128 + signal.SIGINT)
        deadline = time.time() + 10
        while time.time() < deadline and any(map(self.alive, kids)):
            time.sleep(0.01)
        self.assertEqual([k for k in kids if self.alive(k)], [])
        # Children forked from the parent share its command line.
        left = subprocess.run(["pgrep", "-f", self.logs],
                              capture_output=True, text=True).stdout
        self.assertEqual(left, "")
        self.assertEqual(os.listdir(self.tmp), [])

    def test_sigint_to_the_process_group_leaves_nothing(self):
        self.interrupt(group=True)

    def test_sigint_to_the_parent_alone_leaves_nothing(self):
        """The parent removes the staging folder and exits; its children,
        killed only then (PR_SET_PDEATHSIG), have already made rank_N/
        again: `o.tlparse-XXXXXX/rank_0/`, `rank_1/` are left behind."""
        self.interrupt(group=False)


if __name__ == "__main__":
    unittest.main()
