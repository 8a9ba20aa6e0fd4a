"""The output folder and the process under attack (issue 14, items 2, 4, 5
and the argument checks of 6), end to end against the real binary.

Promises held here (docs/reliability.md): nothing is deleted that tlparse did
not create, in any race a test can script; --overwrite replaces only a folder
that looks like a tlparse report; the staging folder is unpredictable, so a
planted link cannot redirect the report; SIGINT, SIGTERM and SIGHUP leave no
staging folder behind and exit with 128+N; inputs that are not regular files
are refused at once; every argument is checked before the trace is read.

Environment: TLPARSE (the binary); TLPARSE_WITH_PAGES=1 when the provenance
page is built in; TLPARSE_SANITIZED=1 or TLPARSE_TSAN=1 skip the memory
limit (the sanitizers' shadow memory).
"""

import glob
import hashlib
import os
import re
import resource
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import unittest

TLPARSE = os.environ.get("TLPARSE", "tlparse")
ENV = dict(os.environ, CI="1")
WITH_PAGES = os.environ.get("TLPARSE_WITH_PAGES") == "1"
try:
    with open("/proc/sys/kernel/random/boot_id") as boot_file:
        BOOT_ID = boot_file.read().strip()
except OSError:
    BOOT_ID = ""
SANITIZED = any(os.environ.get(k, "").upper() in ("1", "ON", "TRUE")
                for k in ("TLPARSE_SANITIZED", "TLPARSE_TSAN"))


def run(args, **kw):
    return subprocess.run([TLPARSE] + args, capture_output=True, text=True,
                          env=ENV, **kw)


def big_log(path, entries=30000):
    """A log that takes a second or so to write (30,000 small graphs in 100
    compile folders), long enough for a test to act while it runs."""
    md5 = hashlib.md5(b"g").hexdigest()
    line = ('V0101 00:00:00.000000 1 a.py:1] {"dynamo_output_graph": {}, '
            '"frame_id": %d, "frame_compile_id": 0, "attempt": 0, '
            '"has_payload": "' + md5 + '"}\n\tg\n')
    with open(path, "w") as f:
        f.write("".join(line % (i % 100) for i in range(entries)))


class Case(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.shared = tempfile.mkdtemp(prefix="tl-outdir-log-")
        cls.log = os.path.join(cls.shared, "big.log")
        big_log(cls.log)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.shared, ignore_errors=True)

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="tl-outdir-")
        self.out = os.path.join(self.tmp, "o")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def start(self, *extra):
        return subprocess.Popen([TLPARSE, self.log, "--no-browser", "-o",
                                 self.out] + list(extra), env=ENV,
                                stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)

    def wait_for_staging(self, p):
        """Waits until the run writes into its staging folder; returns it."""
        deadline = time.time() + 30
        while time.time() < deadline and p.poll() is None:
            found = glob.glob(self.out + ".tlparse-*/-_1_0_0")
            if found:
                return os.path.dirname(found[0])
            time.sleep(0.002)
        self.fail("the run never started writing")

    def staging_folders(self):
        return glob.glob(self.out + ".tlparse-*")

    def make_report(self, path, marker=b"old report"):
        """A folder shaped like a report of the Rust tool."""
        os.makedirs(os.path.join(path, "-_0_0_0"))
        os.makedirs(os.path.join(path, "payloads"))
        for name in ("index.html", "raw.jsonl", "compile_directory.json",
                     "-_0_0_0/dynamo_output_graph_0.txt"):
            with open(os.path.join(path, name), "wb") as f:
                f.write(marker)


class Races(Case):
    def test_folder_created_during_the_run_is_kept(self):
        p = self.start()
        staging = self.wait_for_staging(p)
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
        self.assertTrue(os.path.isfile(os.path.join(staging, "index.html")))

    def test_two_runs_into_one_folder_publish_one_report(self):
        first, second = self.start(), self.start()
        results = [first.communicate(), second.communicate()]
        codes = sorted([first.returncode, second.returncode])
        self.assertEqual(codes, [0, 1])
        loser = results[[first.returncode, second.returncode].index(1)]
        self.assertIn("appeared during the run: nothing was replaced",
                      loser[1])
        self.assertTrue(os.path.isfile(os.path.join(self.out, "index.html")))

    def test_a_user_file_added_to_the_old_report_during_the_run_is_kept(self):
        self.make_report(self.out)
        p = self.start("--overwrite")
        staging = self.wait_for_staging(p)
        with open(os.path.join(self.out, "notes.txt"), "w") as f:
            f.write("user data")
        _, err = p.communicate()
        self.assertEqual(p.returncode, 1)
        self.assertIn("refusing to replace %s: it does not look like a "
                      "tlparse report (it holds notes.txt); nothing was "
                      "deleted; the new report is in %s" % (self.out, staging),
                      err)
        with open(os.path.join(self.out, "notes.txt")) as f:
            self.assertEqual(f.read(), "user data")
        with open(os.path.join(self.out, "index.html"), "rb") as f:
            self.assertEqual(f.read(), b"old report")
        # The new report is kept for the user, whole.
        self.assertTrue(os.path.isfile(os.path.join(staging, "index.html")))

    def test_planted_links_at_staging_names_are_never_followed(self):
        target = os.path.join(self.tmp, "target")
        os.mkdir(target)
        with open("/proc/sys/kernel/ns_last_pid") as f:
            last = int(f.read())
        # The earlier tool named its staging folder after its pid: plant a
        # link at each of the next pids' names.
        for pid in range(last + 1, last + 400):
            os.symlink(target, "%s.tlparse-%d" % (self.out, pid))
        r = run([self.log, "--no-browser", "-o", self.out])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(os.listdir(target), [])
        self.assertTrue(os.path.isfile(os.path.join(self.out, "index.html")))


class Overwrite(Case):
    def test_a_report_of_either_tool_is_replaced(self):
        self.make_report(self.out)
        r = run([self.log, "--no-browser", "-o", self.out, "--overwrite"])
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(self.out, "index.html"), "rb") as f:
            self.assertNotEqual(f.read(), b"old report")
        self.assertEqual(glob.glob(self.out + ".tlparse-*"), [])

    def test_a_regular_file_is_not_replaced(self):
        with open(self.out, "w") as f:
            f.write("a file")
        r = run([self.log, "--no-browser", "-o", self.out, "--overwrite"])
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stderr, "tlparse: refusing to replace %s: it is "
                         "not a folder (nothing was deleted)\n" % self.out)
        with open(self.out) as f:
            self.assertEqual(f.read(), "a file")

    def test_a_symbolic_link_is_not_replaced_or_followed(self):
        target = os.path.join(self.tmp, "target")
        self.make_report(target)
        os.symlink(target, self.out)
        r = run([self.log, "--no-browser", "-o", self.out, "--overwrite"])
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stderr, "tlparse: refusing to replace %s: it is a "
                         "symbolic link (nothing was deleted)\n" % self.out)
        self.assertTrue(os.path.islink(self.out))
        with open(os.path.join(target, "index.html"), "rb") as f:
            self.assertEqual(f.read(), b"old report")

    def test_a_folder_with_other_files_is_not_replaced(self):
        self.make_report(self.out)
        os.symlink("/", os.path.join(self.out, "-_1_0_0"))
        r = run([self.log, "--no-browser", "-o", self.out, "--overwrite"])
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stderr, "tlparse: refusing to replace %s: it does "
                         "not look like a tlparse report (it holds -_1_0_0); "
                         "nothing was deleted\n" % self.out)
        self.assertTrue(os.path.islink(os.path.join(self.out, "-_1_0_0")))


class Signals(Case):
    def interrupt(self, signo):
        self.make_report(self.out)
        p = self.start("--overwrite")
        self.wait_for_staging(p)
        p.send_signal(signo)
        p.communicate()
        self.assertEqual(p.returncode, 128 + signo)
        self.assertEqual(self.staging_folders(), [])
        with open(os.path.join(self.out, "index.html"), "rb") as f:
            self.assertEqual(f.read(), b"old report")

    def test_sigint_removes_the_staging_folder(self):
        self.interrupt(signal.SIGINT)

    def test_sigterm_removes_the_staging_folder(self):
        self.interrupt(signal.SIGTERM)

    def test_sighup_removes_the_staging_folder(self):
        self.interrupt(signal.SIGHUP)

    @unittest.skipUnless(BOOT_ID, "no boot id to prove a run ended by")
    def test_a_later_run_removes_what_a_killed_run_left_and_nothing_else(self):
        # SIGKILL cannot be caught: the staging folder stays. The next run
        # for the same -o proves its run is gone (the marker names a process
        # of this boot that no longer exists) and removes it, saying so.
        p = self.start()
        left = self.wait_for_staging(p)
        p.kill()
        p.communicate()
        self.assertEqual(self.staging_folders(), [left])
        self.assertFalse(os.path.exists(
            os.path.join(self.out, ".tlparse-staging")))
        # Not proof, so kept: a folder of the same shape without a marker,
        # one whose marker names a live process (this test), a link to a
        # dead run's folder, and a dead run's folder for another -o.
        keep = []
        for name, marker in (("NoMark", None),
                             ("Live12", "pid %d\nboot %s\n" % (
                                 os.getpid(), BOOT_ID))):
            path = self.out + ".tlparse-" + name
            os.mkdir(path)
            if marker:
                with open(os.path.join(path, ".tlparse-staging"), "w") as f:
                    f.write(marker)
            keep.append(path)
        os.symlink(left, self.out + ".tlparse-Link99")
        keep.append(self.out + ".tlparse-Link99")
        other = os.path.join(self.tmp, "other.tlparse-Dead99")
        os.mkdir(other)
        with open(os.path.join(other, ".tlparse-staging"), "w") as f:
            f.write("pid 999999999\nboot %s\n" % BOOT_ID)
        r = run([self.log, "--no-browser", "-o", self.out])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr, "tlparse: removed %s, a staging folder "
                         "left by a run that ended\n" % left)
        self.assertEqual(sorted(self.staging_folders()), sorted(keep))
        self.assertTrue(os.path.isdir(other))
        self.assertTrue(os.path.islink(self.out + ".tlparse-Link99"))
        # The report itself holds no marker.
        self.assertFalse(os.path.exists(
            os.path.join(self.out, ".tlparse-staging")))

    def test_a_write_error_names_the_file_and_its_reason(self):
        # A file-size limit (tlparse ignores SIGXFSZ, so the write fails
        # with EFBIG instead of killing it and leaving its staging folder):
        # one line, exit 1, nothing left behind. The
        # log's 20,000 tensor descriptions make a 3.4 MB raw.log, a 4 MB
        # raw.jsonl and no other file (the big log's 30,000 files took 90 s
        # under load).
        log = os.path.join(self.tmp, "descriptions.log")
        line = ('V0101 00:00:00.000000 1 a.py:1] {"describe_tensor": '
                '{"id": %d, "ndim": 1, "dtype": "torch.float32", "size": '
                '[16]}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0}\n')
        with open(log, "w") as f:
            f.write("".join(line % i for i in range(20000)))

        r = self.run_with_file_size_limit([log], 2000000)
        self.assertEqual(r.returncode, 1)
        # raw.log (3.4 MB, a copy of the log) is past the limit first;
        # named under the output folder the user gave, not the staging
        # folder the run wrote into (gone by the time the line is read).
        self.assertEqual(r.stderr, "tlparse: %s: cannot write %s/raw.log: "
                         "File too large (1 output file not written)\n"
                         % (log, self.out))
        self.assertEqual(self.staging_folders(), [])
        self.assertFalse(os.path.exists(self.out))

    def one_entry_log(self, name, kind, payload):
        """A log of one entry `{kind..., ids, has_payload}` and `payload`."""
        log = os.path.join(self.tmp, name)
        with open(log, "w") as f:
            f.write('V0101 00:00:00.000000 1 a.py:1] {%s, "frame_id": 0, '
                    '"frame_compile_id": 0, "attempt": 0, "has_payload": '
                    '"%s"}\n' % (kind, hashlib.md5(payload.encode())
                                 .hexdigest()))
            f.write("".join("\t%s\n" % l for l in payload.split("\n")))
        return log

    def run_with_file_size_limit(self, args, limit):
        """tlparse ARGS -o OUT under a file-size limit, SIGXFSZ at its
        default (tlparse ignores it itself, so a write past the limit fails
        with EFBIG instead of killing it)."""
        def limit_file_size():
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        return subprocess.run([TLPARSE] + args + ["--no-browser", "-o",
                                                  self.out],
                              env=ENV, capture_output=True, text=True,
                              preexec_fn=limit_file_size)

    def test_raw_log_past_the_limit_names_itself_and_its_reason(self):
        # A million one-byte payload lines: 2 MB in the artifact's file, 3
        # MB in raw.log (each line gets its tab back). Under a 2.5 MB limit
        # only raw.log fails; once, with its reason, where it said "a write
        # failed" and went on writing.
        log = self.one_entry_log(
            "lines.log", '"artifact": {"name": "x", "encoding": "string"}',
            "\n".join(["a"] * 1000000))
        r = self.run_with_file_size_limit([log], 2500000)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stderr, "tlparse: %s: cannot write %s/raw.log: "
                         "File too large (1 output file not written)\n"
                         % (log, self.out))
        self.assertEqual(self.staging_folders(), [])
        self.assertFalse(os.path.exists(self.out))

    @unittest.skipUnless(WITH_PAGES, "the provenance page is not built in")
    def test_a_provenance_page_that_cannot_be_written_fails_the_run(self):
        # Output code of 4,000 lines of 200 backslashes each: 0.8 MB in the
        # log, raw.log, the .py and its page, but 1.6 MB in the provenance
        # page, whose embedded JSON doubles each backslash. Under a 1.2 MB
        # file-size limit only that page fails; the run must fail with it
        # (it once exited 0 with an index linking the missing page).
        line = 's = "' + "\\" * 200 + '"'
        log = self.one_entry_log(
            "backslashes.log",
            '"inductor_output_code": {"filename": "/tmp/big.py"}',
            "\n".join(["# AOT ID: ['0_inference']"] + [line] * 4000 +
                      ["def call(args):", "    return ()"]))
        r = self.run_with_file_size_limit([log, "-i"], 1200000)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stderr, "tlparse: %s: cannot write %s/provenance_"
                         "tracking_-_0_0_0.html: File too large (1 output "
                         "file not written)\n" % (log, self.out))
        self.assertEqual(self.staging_folders(), [])
        self.assertFalse(os.path.exists(self.out))

    @unittest.skipIf(SANITIZED, "the sanitizers reserve more address "
                     "space than the limit allows")
    def test_out_of_memory_leaves_no_staging_folder(self):
        # One 80 MB payload line under a 100 MiB address-space limit: the
        # line's buffer grows by doubling to 128 MiB, which cannot fit
        # whatever else the process maps (under 150 MiB, whether it fitted
        # depended on the rest), so the allocation fails; the run says so and
        # removes its staging folder as a fatal signal does (it used to
        # stay, one per failed run).
        big = os.path.join(self.tmp, "big-line.log")
        payload = b"x" * 80000000
        with open(big, "wb") as f:
            f.write(b'V0101 00:00:00.000000 1 a.py:1] {"artifact": {"name": '
                    b'"b", "encoding": "string"}, "frame_id": 0, '
                    b'"frame_compile_id": 0, "attempt": 0, "has_payload": '
                    b'"%s"}\n\t' % hashlib.md5(payload).hexdigest().encode()
                    + payload + b"\n")
        del payload

        def limit_memory():
            resource.setrlimit(resource.RLIMIT_AS, (100 << 20, 100 << 20))
        r = subprocess.run([TLPARSE, big, "--no-browser", "-o", self.out],
                           env=ENV, capture_output=True, text=True,
                           preexec_fn=limit_memory)
        self.assertNotEqual(r.returncode, 0)
        self.assertRegex(r.stderr, r"^tlparse: out of memory allocating "
                         r"\d+ bytes\n$")
        self.assertEqual(self.staging_folders(), [])
        self.assertFalse(os.path.exists(self.out))

    def test_parent_folders_made_for_o_are_removed_after_a_signal(self):
        # -o a/b/c/o where `a` exists (with a user's file) and b/c do not:
        # the run makes b and c; interrupted, it removes them again, and
        # only them.
        top = os.path.join(self.tmp, "a")
        os.makedirs(top)
        with open(os.path.join(top, "keep.txt"), "w") as f:
            f.write("user data")
        self.out = os.path.join(top, "b", "c", "o")
        p = self.start()
        self.wait_for_staging(p)
        p.send_signal(signal.SIGTERM)
        p.communicate()
        self.assertEqual(p.returncode, 128 + signal.SIGTERM)
        self.assertEqual(sorted(os.listdir(top)), ["keep.txt"])

    def test_a_signal_removes_only_the_folders_the_run_made(self):
        # -o new/../keep/b/o: the run makes `new` and `keep/b`; `keep` is
        # the user's (empty) folder, below `new` in the name but not made by
        # the run: after a SIGTERM it is still there, and only it.
        keep = os.path.join(self.tmp, "keep")
        os.makedirs(keep)
        self.out = os.path.join(self.tmp, "new", "..", "keep", "b", "o")
        p = self.start()
        self.wait_for_staging(p)
        p.send_signal(signal.SIGTERM)
        p.communicate()
        self.assertEqual(p.returncode, 128 + signal.SIGTERM)
        self.assertEqual(sorted(os.listdir(self.tmp)), ["keep"])
        self.assertEqual(os.listdir(keep), [])

    def test_a_failed_run_removes_only_the_folders_it_made(self):
        # The same names, the run failing on its own (a file-size limit
        # below the size of static/highlight.min.js): `new`, `a/b/c` go
        # again, the user's empty `keep` stays.
        log = os.path.join(self.tmp, "one.log")
        with open(log, "w") as f:
            f.write('V0101 00:00:00.000000 1 a.py:1] {"dynamo_start": '
                    '{"stack": []}, "frame_id": 0, "frame_compile_id": 0, '
                    '"attempt": 0}\n')
        os.makedirs(os.path.join(self.tmp, "keep"))
        for out in (os.path.join("new", "..", "keep", "b", "o"),
                    os.path.join("a", "b", "c", "o")):
            with self.subTest(out=out):
                self.out = os.path.join(self.tmp, out)
                r = self.run_with_file_size_limit([log], 50000)
                self.assertEqual(r.returncode, 1)
                self.assertIn("File too large", r.stderr)
                self.assertEqual(sorted(os.listdir(self.tmp)),
                                 ["keep", "one.log"])
                self.assertEqual(os.listdir(os.path.join(self.tmp, "keep")),
                                 [])

    def test_a_signal_during_the_removal_of_a_failed_run_leaves_nothing(self):
        # The run fails late (a file-size limit makes raw.jsonl unwritable;
        # tlparse ignores SIGXFSZ, so the write fails instead of killing),
        # so its staging folder, 30,000 files, is removed as
        # <staging>-removing; a SIGTERM then waits for the removal and still
        # exits 128+15.
        def limit_file_size():
            resource.setrlimit(resource.RLIMIT_FSIZE, (2000000, 2000000))
        p = subprocess.Popen([TLPARSE, self.log, "--no-browser", "-o",
                              self.out], env=ENV, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True,
                             preexec_fn=limit_file_size)
        deadline = time.time() + 60
        removing = []
        while not removing and time.time() < deadline and p.poll() is None:
            removing = glob.glob(self.out + ".tlparse-*-removing")
            time.sleep(0.001)
        if not removing:
            p.communicate()
            self.skipTest("the removal ended before the test saw it")
        p.send_signal(signal.SIGTERM)
        _, err = p.communicate()
        self.assertEqual(p.returncode, 128 + signal.SIGTERM, err)
        self.assertEqual(self.staging_folders(), [])
        self.assertFalse(os.path.exists(self.out))


class Inputs(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="tl-inputs-")
        self.out = os.path.join(self.tmp, "o")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def refused(self, path):
        # A hang would fail here (timeout), not pass.
        r = run([path, "--no-browser", "-o", self.out], timeout=10)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stderr, "tlparse: %s is not a regular file (a "
                         "device, FIFO or socket); save the trace to a file "
                         "first\n" % path)
        self.assertFalse(os.path.exists(self.out))

    def test_fifo_without_a_writer_is_refused(self):
        fifo = os.path.join(self.tmp, "fifo")
        os.mkfifo(fifo)
        self.refused(fifo)

    def test_endless_device_is_refused(self):
        self.refused("/dev/zero")

    def test_socket_is_refused(self):
        path = os.path.join(self.tmp, "sock")
        s = socket.socket(socket.AF_UNIX)
        s.bind(path)
        try:
            self.refused(path)
        finally:
            s.close()

    def test_empty_output_name_is_refused_before_reading(self):
        log = os.path.join(self.tmp, "t.log")
        with open(log, "w") as f:
            f.write("")
        r = run([log, "--no-browser", "-o", ""])
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stderr, "tlparse: -o needs a folder name\n")
        self.assertEqual(os.listdir(self.tmp), ["t.log"])

    def empty_log(self):
        log = os.path.join(self.tmp, "t.log")
        with open(log, "w") as f:
            f.write("")
        return log

    def test_profile_fifo_and_device_are_refused_before_reading(self):
        fifo = os.path.join(self.tmp, "p.json")
        os.mkfifo(fifo)
        for path in (fifo, "/dev/zero"):
            r = run([self.empty_log(), "--no-browser", "-o", self.out,
                     "--profile", path], timeout=10)
            self.assertEqual((r.returncode, r.stderr), (1, (
                "tlparse: --profile %s is not a regular file or a folder (a "
                "device, FIFO or socket); save the trace to a file first\n"
                % path)))
            self.assertFalse(os.path.exists(self.out))

    def test_missing_profile_is_refused_before_reading(self):
        path = os.path.join(self.tmp, "none.json")
        r = run([self.empty_log(), "--no-browser", "-o", self.out,
                 "--profile", path], timeout=10)
        self.assertEqual((r.returncode, r.stderr), (1, (
            "tlparse: --profile %s: cannot open it: No such file or "
            "directory\n" % path)))
        self.assertFalse(os.path.exists(self.out))

    def test_fifo_inside_a_profile_folder_is_skipped_with_a_diagnostic(self):
        folder = os.path.join(self.tmp, "profiles")
        os.mkdir(folder)
        os.mkfifo(os.path.join(folder, "rank0.json"))
        log = self.empty_log()
        r = run([log, "--no-browser", "-o", self.out, "--profile", folder],
                timeout=10)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("profile: profile files that are not regular files "
                      "(1): first %s/rank0.json" % folder, r.stderr)
        self.assertTrue(os.path.isfile(os.path.join(self.out, "index.html")))


if __name__ == "__main__":
    unittest.main(verbosity=2)
