"""The command line and bad input, end to end (issue 2).

Each bad-input case starts from a real trace (the shared fixture
inductor_provenance_jit_debug_handle_log.txt, or simple.log) and damages it
here, then checks the exact diagnostics, exit code, and that every other
artifact is still written. Skips, saying so, when the fixtures are absent.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import tracelog  # noqa: E402

TLPARSE = os.environ.get("TLPARSE", "tlparse")
JIT = tracelog.fixture("inductor_provenance_jit_debug_handle_log.txt")
SIMPLE = tracelog.fixture("simple.log")
AOT = tracelog.fixture("inductor_provenance_aot_log.txt")
needs_fixtures = unittest.skipUnless(
    JIT and SIMPLE and AOT, "shared fixtures folder is absent: skipped")


def run(args, env=None):
    e = dict(os.environ, CI="1")
    e.update(env or {})
    return subprocess.run([TLPARSE] + args, capture_output=True, text=True,
                          env=e)


def tree(out):
    """Every file under out, relative, without the fixed top-level files."""
    found = set()
    for root, _, names in os.walk(out):
        for n in names:
            found.add(os.path.relpath(os.path.join(root, n), out))
    return found


def compile_files(out):
    return {p for p in tree(out) if p.startswith("-_")}


class Case(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def write(self, name, data):
        path = os.path.join(self.tmp, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def lines_of(self, path):
        with open(path, "rb") as f:
            return f.read().split(b"\n")

    def parse(self, log, *extra):
        out = os.path.join(self.tmp, "out" + str(len(os.listdir(self.tmp))))
        r = run([log, "-o", out, "--no-browser"] + list(extra))
        return r, out

    def index(self, out):
        with open(os.path.join(out, "index.html"), encoding="utf-8") as f:
            return f.read()

    def find_line(self, lines, needle):
        return next(i for i, l in enumerate(lines) if needle in l)


@needs_fixtures
class BadInput(Case):
    def test_clean_trace_has_no_diagnostics(self):
        r, out = self.parse(JIT, "--strict")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr, "")
        self.assertIn("Every line of the trace was read.", self.index(out))

    def test_line_that_is_not_glog_is_reported_with_its_line(self):
        lines = self.lines_of(JIT)
        i = self.find_line(lines, b'"name": "before_pre_grad_graph"')
        lines.insert(i, b"this is not a glog line")
        log = self.write("t.log", b"\n".join(lines))
        r, out = self.parse(log)
        self.assertEqual(r.returncode, 0)
        self.assertEqual(r.stderr.strip(),
                         "tlparse: %s:%d: not a glog line (1 line that is "
                         "not a glog line)" % (log, i + 1))
        _, clean = self.parse(JIT)
        self.assertEqual(compile_files(out), compile_files(clean))
        r, _ = self.parse(log, "--strict")
        self.assertEqual(r.returncode, 1)

    def test_broken_envelope_skips_its_payload_lines_with_it(self):
        lines = self.lines_of(JIT)
        i = self.find_line(lines, b'"name": "fx_graph_runnable"')
        lines[i] = lines[i].replace(b'"encoding"', b'"encoding', 1)
        log = self.write("t.log", b"\n".join(lines))
        r, out = self.parse(log)
        self.assertEqual(r.returncode, 0)
        err = r.stderr.strip().split("\n")
        self.assertEqual(len(err), 1, r.stderr)
        self.assertTrue(err[0].startswith("tlparse: %s:%d: bad JSON envelope"
                                          % (log, i + 1)), err[0])
        self.assertTrue(err[0].endswith("(its payload lines skipped) "
                                        "(1 broken JSON envelope)"), err[0])
        names = compile_files(out)
        self.assertFalse(any("fx_graph_runnable" in n for n in names))
        # Everything else is still written (the running number shifts by one
        # after the lost entry, as in the Rust tool).
        self.assertIn("-_0_0_0/after_post_grad_graph_10.txt", names)
        self.assertIn("-_0_0_0/before_pre_grad_graph_1.txt", names)

    def test_md5_mismatch_keeps_the_payload_and_counts_it(self):
        lines = self.lines_of(JIT)
        i = self.find_line(lines, b'"name": "before_pre_grad_graph"')
        lines[i + 1] = lines[i + 1] + b"  # edited"
        log = self.write("t.log", b"\n".join(lines))
        r, out = self.parse(log)
        self.assertEqual(r.returncode, 0)
        self.assertIn(":%d: payload md5 " % (i + 1), r.stderr)
        self.assertIn("(1 payload whose md5 does not match)", r.stderr)
        with open(os.path.join(out, "-_0_0_0/before_pre_grad_graph_1.txt"),
                  "rb") as f:
            first = f.read().split(b"\n")[0]
        self.assertEqual(first, lines[i + 1][1:])

    def test_a_cut_at_a_line_end_inside_the_last_payload_is_truncation(self):
        # Cut after the first payload line of a multi-line payload (the
        # output code), at a line's end: the file ends inside the payload.
        lines = self.lines_of(JIT)
        i = self.find_line(lines, b'"inductor_output_code"')
        self.assertTrue(lines[i + 2].startswith(b"\t"))
        log = self.write("t.log", b"\n".join(lines[:i + 2]) + b"\n")
        r, out = self.parse(log)
        self.assertEqual(r.returncode, 0)
        self.assertEqual(r.stderr, "tlparse: %s:%d: file ends inside the "
                         "\"inductor_output_code\" entry's payload (kept as "
                         "read) (1 truncated record)\n" % (log, i + 1))
        # A whole last entry is no cut.
        whole = self.write("w.log", b"\n".join(lines[:i]) + b"\n")
        r, out = self.parse(whole)
        self.assertEqual((r.returncode, r.stderr), (0, ""))

    def test_truncated_last_payload_is_kept_as_read(self):
        lines = self.lines_of(JIT)
        # Cut in the middle of the stack-traces artifact's one payload line.
        i = self.find_line(
            lines, b'"name": "inductor_provenance_tracking_kernel_stack_traces"')
        cut = lines[:i + 1] + [lines[i + 1][:len(lines[i + 1]) // 2]]
        log = self.write("t.log", b"\n".join(cut))
        r, out = self.parse(log)
        self.assertEqual(r.returncode, 0)
        self.assertIn(":%d: file ends inside the \"artifact\" entry's "
                      "payload (kept as read)" % (i + 1), r.stderr)
        self.assertIn("(1 truncated record)", r.stderr)
        self.assertNotIn("md5", r.stderr)
        path = os.path.join(
            out, "-_0_0_0/inductor_provenance_tracking_kernel_stack_traces"
            "_15.json")
        with open(path, "rb") as f:
            self.assertEqual(f.read(), cut[-1][1:])
        # Everything logged before the cut is written as in the full run.
        names = compile_files(out)
        self.assertIn("-_0_0_0/inductor_provenance_tracking_node_mappings_14"
                      ".json", names)
        self.assertEqual(len([n for n in names if "_readable" not in n]), 17)

    def test_payloadless_artifact_is_written_empty_and_reported(self):
        lines = self.lines_of(JIT)
        i = self.find_line(lines, b'"name": "after_pre_grad_graph"')
        head, _, _ = lines[i].rpartition(b', "has_payload"')
        lines[i] = head + b"}"
        j = i + 1
        while lines[j].startswith(b"\t"):
            j += 1
        del lines[i + 1:j]
        log = self.write("t.log", b"\n".join(lines))
        r, out = self.parse(log)
        self.assertEqual(r.returncode, 0)
        self.assertIn(':%d: artifact "after_pre_grad_graph" has no payload'
                      % (i + 1), r.stderr)
        path = os.path.join(out, "-_0_0_0/after_pre_grad_graph_2.txt")
        self.assertEqual(os.path.getsize(path), 0)

    def test_unknown_keys_and_kinds_are_ignored_quietly(self):
        lines = self.lines_of(JIT)
        i = self.find_line(lines, b'"name": "before_pre_grad_graph"')
        lines[i] = lines[i].replace(b'{"artifact"', b'{"artifact"', 1) \
            .replace(b'"frame_id"', b'"new_field": [1, {"x": null}], '
                     b'"frame_id"', 1)
        lines.insert(i, lines[i].split(b"]")[0] +
                     b'] {"some_future_kind": {"a": 1}, "frame_id": 0}')
        log = self.write("t.log", b"\n".join(lines))
        r, out = self.parse(log, "--strict")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr, "")
        _, clean = self.parse(JIT)
        self.assertEqual(compile_files(out), compile_files(clean))

    def test_crlf_and_rank_prefix_read_like_the_original(self):
        with open(SIMPLE, "rb") as f:
            data = f.read()
        crlf = b"\r\n".join((b"[rank0]:" + l if l and l[:1] != b"\t" else l)
                            for l in data.split(b"\n"))
        log = self.write("t.log", crlf)
        r, out = self.parse(log, "--strict")
        self.assertEqual(r.returncode, 0, r.stderr)
        _, clean = self.parse(SIMPLE)
        self.assertEqual(compile_files(out), compile_files(clean))
        a = os.path.join(out, "-_0_0_0/fx_graph_runnable_3.txt")
        b = os.path.join(clean, "-_0_0_0/fx_graph_runnable_3.txt")
        with open(a, "rb") as fa, open(b, "rb") as fb:
            self.assertEqual(fa.read(), fb.read())

    def test_entries_of_another_rank_are_skipped(self):
        lines = self.lines_of(SIMPLE)
        # Rank 0 on every entry, as a distributed run writes it, except one.
        lines = [l.replace(b"] {", b'] {"rank": 0, ', 1)
                 if l[:1] == b"V" else l for l in lines]
        j = self.find_line(lines, b'"name": "fx_graph_runnable"')
        lines[j] = lines[j].replace(b'"rank": 0', b'"rank": 1', 1)
        log = self.write("t.log", b"\n".join(lines))
        r, out = self.parse(log)
        self.assertEqual(r.returncode, 0)
        self.assertEqual(r.stderr, "tlparse: %s:%d: entry of another rank "
                         "skipped (first rank seen: 0) (1 entry of another "
                         "rank (skipped))\n" % (log, j + 1))
        self.assertFalse(any("fx_graph_runnable" in n
                             for n in compile_files(out)))

    def test_empty_file_gives_an_empty_report(self):
        log = self.write("empty.log", b"")
        r, out = self.parse(log, "--strict")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("0 entries, 0 compile folders", self.index(out))
        self.assertEqual(compile_files(out), set())

    def test_binary_file_is_reported_not_fatal(self):
        data = bytes(range(256)) * 64 + b"\x00\xff\n\x00\n"
        log = self.write("bin.log", data)
        r, out = self.parse(log)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("not a glog line", r.stderr)
        self.assertTrue(os.path.exists(os.path.join(out, "index.html")))
        r, _ = self.parse(log, "--strict")
        self.assertEqual(r.returncode, 1)

    def test_plain_text_writes_the_output_code_as_text(self):
        import json
        r, out = self.parse(JIT, "-p", "-i")
        self.assertEqual(r.returncode, 0, r.stderr)
        stem = ("-_0_0_0/inductor_output_code_clrftghodm4tm4zqkq3os2ku43gh6f"
                "xhq2gvsumm3gyvlongh3ut_12")
        names = compile_files(out)
        self.assertIn(stem + ".txt", names)
        self.assertNotIn(stem + ".html", names)
        self.assertNotIn(stem + ".py", names)
        code = next(p for _, env, p in tracelog.records(JIT)
                    if tracelog.kind(env) == "inductor_output_code")
        with open(os.path.join(out, stem + ".txt"), "rb") as f:
            self.assertEqual(f.read(), code.encode())
        if os.environ.get("TLPARSE_WITH_PAGES", "1") == "1":
            with open(os.path.join(out,
                                   "provenance_tracking_-_0_0_0.json")) as f:
                self.assertEqual(json.load(f)["artifacts"]["code"],
                                 stem + ".txt")

    def test_strict_compile_id_fails_only_on_unreadable_ids(self):
        # As the Rust tool: entries without compile-id fields (the chromium
        # events of JIT, the AOT log's id-less artifacts) do not fail it.
        for log in (AOT, JIT):
            r, _ = self.parse(log, "--strict-compile-id")
            self.assertEqual((r.returncode, r.stderr), (0, ""), log)
        lines = self.lines_of(SIMPLE)
        at = self.find_line(lines, b'{"dynamo_output_graph"')
        lines[at] = lines[at].replace(b'"frame_id": 0', b'"frame_id": -1', 1)
        bad = self.write("bad_id.log", b"\n".join(lines))
        r, out = self.parse(bad, "--strict-compile-id")
        self.assertEqual(r.returncode, 1)
        self.assertIn("--strict-compile-id: 1 entry with a compile id that "
                      "cannot be read",
                      r.stderr)
        self.assertTrue(os.path.isdir(os.path.join(out, "unknown_%d" % (at + 1))))


class Environment(Case):
    def test_missing_file_exits_1_with_a_message(self):
        r = run([os.path.join(self.tmp, "nope.log"), "--no-browser"])
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stderr, "tlparse: cannot open %s: no such file or "
                         "folder\n" % os.path.join(self.tmp, "nope.log"))

    def test_folder_without_latest_is_refused(self):
        d = os.path.join(self.tmp, "traces")
        os.mkdir(d)
        r = run([d, "--no-browser", "-o", os.path.join(self.tmp, "o")])
        self.assertEqual(r.returncode, 1)
        self.assertIn("is a folder; pass --latest", r.stderr)

    def test_latest_picks_the_newest_file(self):
        d = os.path.join(self.tmp, "traces")
        os.mkdir(d)
        good = 'V0101 00:00:00.000000 1 a.py:1] {"dynamo_output_graph": ' \
               '{}, "frame_id": 3, "frame_compile_id": 0, "attempt": 0, ' \
               '"has_payload": "%s"}\n\tgraph\n' % tracelog.md5("graph")
        old = os.path.join(d, "old.log")
        new = os.path.join(d, "new.log")
        with open(old, "w") as f:
            f.write(good.replace('"frame_id": 3', '"frame_id": 1'))
        with open(new, "w") as f:
            f.write(good)
        os.utime(old, (1000, 1000))
        out = os.path.join(self.tmp, "o")
        r = run([d, "--latest", "--no-browser", "-o", out])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(compile_files(out),
                         {"-_3_0_0/dynamo_output_graph_0.txt"})

    def test_existing_output_is_refused_without_overwrite(self):
        out = os.path.join(self.tmp, "o")
        os.mkdir(out)
        keep = os.path.join(out, "keep.txt")
        with open(keep, "w") as f:
            f.write("mine")
        log = self.write("e.log", b"")
        r = run([log, "--no-browser", "-o", out])
        self.assertEqual(r.returncode, 1)
        self.assertIn("already exists; pass --overwrite", r.stderr)
        self.assertTrue(os.path.exists(keep))
        # A folder with a file tlparse never writes is not a report: even
        # --overwrite keeps it.
        r = run([log, "--no-browser", "-o", out, "--overwrite"])
        self.assertEqual(r.returncode, 1)
        self.assertIn("does not look like a tlparse report (it holds "
                      "keep.txt)", r.stderr)
        self.assertTrue(os.path.exists(keep))
        os.remove(keep)
        r = run([log, "--no-browser", "-o", out])
        self.assertEqual(r.returncode, 1)
        r = run([log, "--no-browser", "-o", out, "--overwrite"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(os.path.exists(os.path.join(out, "index.html")))

    def test_overwrite_never_follows_a_symlink_out(self):
        outside = os.path.join(self.tmp, "outside")
        os.mkdir(outside)
        precious = os.path.join(outside, "precious.txt")
        with open(precious, "w") as f:
            f.write("keep me")
        out = os.path.join(self.tmp, "o")
        os.mkdir(out)
        self.write("o/index.html", b"old")
        os.symlink(outside, os.path.join(out, "-_0_0_0"))
        log = self.write("e.log", b"")
        r = run([log, "--no-browser", "-o", out, "--overwrite"])
        self.assertEqual(r.returncode, 1)
        self.assertIn("(it holds -_0_0_0)", r.stderr)
        self.assertTrue(os.path.exists(precious))
        self.assertTrue(os.path.islink(os.path.join(out, "-_0_0_0")))

    def test_overwrite_refuses_the_current_folder_and_the_inputs_folder(self):
        log = self.write("e.log", b"")
        keep = self.write("keep.txt", b"mine")
        for out in (".", self.tmp):
            r = subprocess.run([TLPARSE, log, "--no-browser", "-o", out,
                                "--overwrite"], capture_output=True,
                               text=True, cwd=self.tmp,
                               env=dict(os.environ, CI="1"))
            self.assertEqual(r.returncode, 1, out)
            self.assertEqual(r.stderr, "tlparse: refusing to replace %s: it "
                             "holds the current folder or the input (nothing "
                             "was deleted)\n" % out)
            self.assertTrue(os.path.exists(keep))
            self.assertTrue(os.path.exists(log))

    def test_a_folder_named_through_itself_is_refused_before_reading(self):
        log = self.write("e.log", b"")
        out = os.path.join(self.tmp, "o")
        r = run([log, "--no-browser", "-o", out])
        self.assertEqual(r.returncode, 0, r.stderr)
        before = sorted(os.listdir(out))
        for form, last in ((out + "/.", "."), (out + "/./", "."),
                           (out + "/-_0_0_0/..", ".."), (out + "/..", "..")):
            r = run([log, "--no-browser", "-o", form, "--overwrite"])
            self.assertEqual(r.returncode, 1, form)
            self.assertEqual(r.stderr, "tlparse: refusing -o %s: it ends in "
                             "'%s'; name the report's folder itself (nothing "
                             "was read or deleted)\n" % (form.rstrip("/"),
                                                          last))
            # Nothing was staged inside the report or beside it.
            self.assertEqual(sorted(os.listdir(out)), before, form)
            self.assertEqual(sorted(os.listdir(self.tmp)), ["e.log", "o"])
        # The plain form still replaces it.
        r = run([log, "--no-browser", "-o", out, "--overwrite"])
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_an_interrupted_run_leaves_no_report_that_looks_complete(self):
        import glob
        import signal
        import time
        line = ('V0101 00:00:00.000000 1 a.py:1] {"dynamo_output_graph": {}, '
                '"frame_id": %d, "frame_compile_id": 0, "attempt": 0, '
                '"has_payload": "%s"}\n\tg\n')
        log = self.write("big.log", "".join(
            line % (i, tracelog.md5("g")) for i in range(200000)).encode())
        out = os.path.join(self.tmp, "o")
        os.mkdir(out)
        old_index = self.write("o/index.html", b"the old report")
        p = subprocess.Popen([TLPARSE, log, "--no-browser", "-o", out,
                              "--overwrite"], env=dict(os.environ, CI="1"),
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        staging = []
        deadline = time.time() + 20
        while not staging and time.time() < deadline and p.poll() is None:
            staging = glob.glob(out + ".tlparse-*/-_1_0_0")
            time.sleep(0.005)
        self.assertTrue(staging, "the run never started writing")
        p.send_signal(signal.SIGKILL)
        p.wait()
        # The old report is whole; the new one exists only as staging.
        with open(old_index, "rb") as f:
            self.assertEqual(f.read(), b"the old report")
        self.assertEqual(os.listdir(out), ["index.html"])
        self.assertFalse(any(os.path.exists(os.path.join(d, "index.html"))
                             for d in glob.glob(out + ".tlparse-*")))

    def test_unwritable_output_exits_1(self):
        blocker = self.write("file", b"x")
        log = self.write("e.log", b"")
        r = run([log, "--no-browser", "-o", os.path.join(blocker, "out")])
        self.assertEqual(r.returncode, 1)
        self.assertIn("cannot create folder", r.stderr)

    def test_progress_bar_shows_on_a_terminal_for_large_input(self):
        import pty
        line = ('V0101 00:00:00.000000 1 a.py:1] {"chromium_event": {}, '
                '"has_payload": "%s"}\n\t{}\n' % tracelog.md5("{}"))
        log = self.write("big.log",
                         (line * (17 * 1024 * 1024 // len(line) + 1))
                         .encode())
        size = os.path.getsize(log)
        out = os.path.join(self.tmp, "o")
        master, slave = pty.openpty()
        p = subprocess.Popen([TLPARSE, log, "--no-browser", "-o", out],
                             stdout=subprocess.DEVNULL, stderr=slave,
                             env=dict(os.environ, CI="1"))
        os.close(slave)
        shown = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            shown += chunk
        self.assertEqual(p.wait(), 0)
        os.close(master)
        # The terminal turns "\n" into "\r\n"; the bar redraws with "\r".
        last = shown.decode().replace("\r\n", "\n").split("\r")[-1].strip()
        self.assertEqual(last, "[%s] %.1f/%.1f MB" % ("#" * 40, size / 1e6,
                                                       size / 1e6))
        # Not a terminal: no bar.
        r = run([log, "--no-browser", "-o", out, "--overwrite"])
        self.assertEqual(r.stderr, "")

    @needs_fixtures
    def test_the_browser_opens_the_index_with_the_signals_tlparse_got(self):
        # Without --no-browser and CI, with a display, xdg-open is run with
        # OUT/index.html. tlparse ignores SIGXFSZ for itself (a write past
        # a file-size limit fails and is reported instead of killing it);
        # the opener gets the disposition tlparse started with: the default
        # here (subprocess gives every child the default), so its SigIgn
        # mask is empty.
        bin_dir = os.path.join(self.tmp, "bin")
        os.mkdir(bin_dir)
        seen = os.path.join(self.tmp, "seen")
        opener = os.path.join(bin_dir, "xdg-open")
        with open(opener, "w") as f:
            f.write('#!/bin/sh\n{ echo "$1"; grep SigIgn /proc/self/status; '
                    '} > %s.part && mv %s.part %s\n' % (seen, seen, seen))
        os.chmod(opener, 0o755)
        out = os.path.join(self.tmp, "out")
        env = dict(os.environ, DISPLAY=":0",
                   PATH=bin_dir + os.pathsep + os.environ["PATH"])
        env.pop("CI", None)
        r = subprocess.run([TLPARSE, SIMPLE, "-o", out], env=env,
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        # The opener runs detached: wait for what it wrote.
        deadline = time.monotonic() + 30
        while not os.path.exists(seen) and time.monotonic() < deadline:
            time.sleep(0.01)
        with open(seen) as f:
            self.assertEqual(f.read(), "%s/index.html\nSigIgn:\t%016x\n"
                             % (out, 0))

    def test_version_and_help(self):
        r = run(["--version"])
        self.assertEqual(r.returncode, 0)
        self.assertRegex(r.stdout, r"^tlparse \d+\.\d+\.\d+\n$")
        r = run(["--help"])
        self.assertEqual(r.returncode, 0)
        self.assertIn("man tlparse", r.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
