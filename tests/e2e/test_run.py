"""`tlparse run -- CMD` with the real torch of the project's venv.

Each test runs the built binary on a small program it writes itself and
checks what the command promises (docs/cli.md): the child gets TORCH_TRACE
(the folder printed), INDUCTOR_PROVENANCE=1 with -i, the rest of the
environment, stdin and stdout; the report is written from what it logged
with links equal to those test_recordings.py computes from the log by
itself; a failing or interrupted child still gets its report and its
status is returned; several rank logs give the multi-rank report; a CMD
that does not exist, or a TORCH_TRACE of the user's own, runs and writes
nothing. Skipped (77) without torch in TLPARSE_VENV.

    TLPARSE=build/tlparse TLPARSE_VENV=build/venv python3 tests/e2e/test_run.py
"""

import glob
import html
import json
import os
import re
import select
import signal
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import test_recordings as rec  # noqa: E402

TLPARSE = os.path.abspath(os.environ.get("TLPARSE", "tlparse"))
VENV = os.path.abspath(os.environ["TLPARSE_VENV"]) if os.environ.get(
    "TLPARSE_VENV") else ""
PYTHON = os.path.join(VENV, "bin", "python") if VENV else ""
TORCHRUN = os.path.join(VENV, "bin", "torchrun") if VENV else ""


def have_torch():
    if not (PYTHON and os.access(PYTHON, os.X_OK)):
        return False
    return subprocess.run([PYTHON, "-c", "import torch"], cwd="/",
                          capture_output=True).returncode == 0


# A model no one tuned the tool to: a small convolutional classifier, its
# inputs read from stdin, with what the child was given printed as JSON.
MODEL = r'''
import json, os, sys
import torch

class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(8)
        self.head = torch.nn.Linear(8, 5)

    def forward(self, x):
        y = torch.nn.functional.silu(self.bn(self.conv(x)))
        y = y.mean(dim=(2, 3))
        return torch.softmax(self.head(y) * 0.5, dim=-1)

torch.manual_seed(0)
batch = int(sys.stdin.read().strip())
net = Net().eval()
x = torch.randn(batch, 3, 8, 8)
with torch.no_grad():
    got = torch.compile(net)(x)
    torch.testing.assert_close(got, net(x))
print(json.dumps({k: os.environ.get(k) for k in
                  ("TORCH_TRACE", "INDUCTOR_PROVENANCE", "RUN_TEST_MARK")}))
print("shape", list(got.shape), flush=True)
if len(sys.argv) > 1 and sys.argv[1] == "raise":
    raise RuntimeError("after compiling")
if len(sys.argv) > 1 and sys.argv[1] == "wait":
    import time
    print("compiled", flush=True)
    while True:
        time.sleep(0.05)
'''

# Two gloo ranks under torchrun, each compiling a region with a collective.
RANKS = r'''
import os
import torch
import torch.distributed as dist

dist.init_process_group("gloo")
rank = dist.get_rank()

def step(x, w):
    y = torch.tanh(x @ w)
    y = torch.ops._c10d_functional.all_reduce(y, "sum", "0")
    y = torch.ops._c10d_functional.wait_tensor(y)
    return y * 2 + 1

torch.manual_seed(rank)
x, w = torch.randn(4, 6), torch.randn(6, 6)
out = torch.compile(step)(x, w)
dist.destroy_process_group()
# One write per line: the ranks share the job's stdout, and print() writes
# its pieces one by one when torchrun makes it unbuffered.
os.write(1, ("rank %d done %s\n" % (rank, list(out.shape))).encode())
'''


# A job-control shell in miniature, run on a pseudo-terminal it makes its
# controlling terminal: it starts `tlparse run ...` (its arguments) as a
# foreground job in a group of its own, and says on the terminal when the
# job stops ("STOPPED signal state-of-tlparse state-of-CMD") and ends
# ("ENDED code"). After a stop it reads a line, then continues the job in
# the foreground as `fg` does: the terminal first, then SIGCONT.
JOB_SHELL = r'''
import fcntl, os, signal, sys, termios

def state(pid):
    with open("/proc/%d/stat" % pid) as f:
        return f.read().rsplit(")", 1)[1].split()[0]

fcntl.ioctl(0, termios.TIOCSCTTY, 0)
signal.signal(signal.SIGTTOU, signal.SIG_IGN)
gate_r, gate_w = os.pipe()
pid = os.fork()
if pid == 0:
    os.setpgid(0, 0)
    os.close(gate_w)
    os.read(gate_r, 1)  # the terminal is the job's once this returns
    signal.signal(signal.SIGTTOU, signal.SIG_DFL)
    os.execv(sys.argv[1], sys.argv[1:])
os.setpgid(pid, pid)
os.tcsetpgrp(0, pid)
os.close(gate_r)
os.close(gate_w)
while True:
    _, status = os.waitpid(pid, os.WUNTRACED)
    if not os.WIFSTOPPED(status):
        break
    os.tcsetpgrp(0, os.getpgrp())
    with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
        kids = [int(k) for k in f.read().split()]
    print("STOPPED", os.WSTOPSIG(status),
          " ".join(state(p) for p in [pid] + kids), flush=True)
    input()
    os.tcsetpgrp(0, pid)
    os.killpg(pid, signal.SIGCONT)
print("ENDED", os.waitstatus_to_exitcode(status), flush=True)
'''

# CMD for the job-control test: it reads a line from the terminal, then
# writes a one-compile trace log to TORCH_TRACE.
READ_THEN_LOG = r'''
import os, sys
print("ready", flush=True)
line = sys.stdin.readline().strip()
log = os.path.join(os.environ["TORCH_TRACE"], "dedicated_log_torch_trace.log")
with open(log, "w") as f:
    f.write('V1127 05:00:00.000000 1 torch/_dynamo/convert_frame.py:1] '
            '{"dynamo_start": {"stack": []}, "frame_id": 0, '
            '"frame_compile_id": 0, "attempt": 0}\n')
print("read", line, flush=True)
'''


def run(args, cwd, stdin=None, env=None):
    return subprocess.run([TLPARSE, "run"] + args, cwd=cwd, input=stdin,
                          capture_output=True, text=True,
                          env=env or dict(os.environ, CI="1"))


def torch_version(entries):
    """pytorch_version of the log's torch_version artifact."""
    for _, env, payload in entries:
        if rec.kind(env) == "artifact:torch_version":
            return json.loads(payload)["pytorch_version"]
    return None


def linked_kernels(entries, cdir):
    """The keys of the last mapping of a folder whose kernel the code
    marks with a provenance comment (what a click can reach)."""
    inputs = rec.view_inputs(entries, cdir, -1)
    code = inputs["code"]
    return [k for k in inputs["mapping"].get("cppCodeToPost", {})
            if re.search(r"(#|//) \[Provenance debug handles\] %s$"
                         % re.escape(k), code, re.M)]


def mapped_folders(entries):
    return sorted({rec.folder(e) for _, e, _ in entries if rec.kind(e) ==
                   "artifact:inductor_provenance_tracking_node_mappings"})


@unittest.skipUnless(have_torch(), "no torch in TLPARSE_VENV: skipped")
class Run(unittest.TestCase):
    maxDiff = None
    check_kernel = rec.Recordings.check_kernel

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        with open(os.path.join(self.dir, "model.py"), "w") as f:
            f.write(MODEL)
        # TMPDIR too: what torch and torchrun make in the temporary folder
        # (torchelastic_*, Inductor's precompiled headers) goes with the
        # test's own folder instead of staying in /tmp.
        self.env = dict(os.environ, CI="1", RUN_TEST_MARK="kept",
                        TORCHINDUCTOR_CACHE_DIR=os.path.join(self.dir, "c"),
                        TMPDIR=self.dir)
        self.env.pop("TORCH_TRACE", None)
        self.env.pop("INDUCTOR_PROVENANCE", None)

    def tearDown(self):
        self.tmp.cleanup()

    def only_log(self, trace):
        logs = glob.glob(os.path.join(trace, "*"))
        self.assertEqual(len(logs), 1, logs)
        return logs[0]

    def check_report(self, out, log):
        """The index names the log and the torch that wrote it; every
        kernel the code marks links as the log says."""
        entries = rec.read_log(log)
        with open(os.path.join(out, "index.html"), encoding="utf-8") as f:
            index = f.read()
        self.assertIn("Trace: <code>%s</code>" % html.escape(log), index)
        version = torch_version(entries)
        self.assertIsNotNone(version)
        self.assertIn("Recorded with torch <code>%s</code>."
                      % html.escape(version), index)
        folders = mapped_folders(entries)
        self.assertTrue(folders)
        checked = 0
        for cdir in folders:
            self.assertTrue(os.path.isfile(os.path.join(
                out, "provenance_tracking_%s.html" % cdir)))
            for key in linked_kernels(entries, cdir):
                with self.subTest(folder=cdir, kernel=key):
                    self.check_kernel(out, entries, cdir, -1,
                                      "provenance_tracking_%s.json" % cdir,
                                      key)
                    checked += 1
        self.assertGreater(checked, 0)

    def test_model_report_with_provenance(self):
        trace = os.path.join(self.dir, "trace")
        out = os.path.join(self.dir, "out")
        r = run(["-i", "--no-browser", "--strict", "-o", out, "--trace-dir",
                 trace, "--", PYTHON, "model.py"], self.dir, stdin="3\n",
                env=self.env)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        # The child's stdout and environment, then tlparse's two lines.
        self.assertEqual(json.loads(lines[0]), {
            "TORCH_TRACE": os.path.realpath(trace),
            "INDUCTOR_PROVENANCE": "1", "RUN_TEST_MARK": "kept"})
        self.assertEqual(lines[1], "shape [3, 5]")
        self.assertEqual(lines[2:], [
            "tlparse: wrote %s/index.html" % out,
            "tlparse: trace logs in %s" % os.path.realpath(trace)])
        self.check_report(out, self.only_log(trace))

    def test_a_temporary_folder_without_i(self):
        """No --trace-dir: a new folder under TMPDIR, kept and named; no
        INDUCTOR_PROVENANCE without -i. The child (no torch needed) copies
        a recorded log where TORCH_TRACE points."""
        out = os.path.join(self.dir, "out")
        log = os.path.join(rec.EXAMPLES, "rec-jit-cpu", "trace.log")
        env = dict(self.env, TMPDIR=self.dir)
        r = run(["--no-browser", "-o", out, "--", "sh", "-c",
                 'echo "${INDUCTOR_PROVENANCE-unset} $TORCH_TRACE"; '
                 'cp "$0" "$TORCH_TRACE/"', log], self.dir, env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        provenance, trace = r.stdout.splitlines()[0].split(" ")
        self.assertEqual(provenance, "unset")
        self.assertRegex(trace, r"^%s/tlparse-run-\w{6}$"
                         % re.escape(os.path.realpath(self.dir)))
        self.assertEqual(r.stderr, "tlparse: run: TORCH_TRACE=%s sh\n"
                         % trace)
        self.assertEqual(r.stdout.splitlines()[1:], [
            "tlparse: wrote %s/index.html" % out,
            "tlparse: trace logs in %s" % trace])
        self.assertEqual(os.listdir(trace), ["trace.log"])
        self.assertEqual(glob.glob(os.path.join(out, "provenance_*")), [])
        self.assertTrue(os.path.isdir(os.path.join(out, "-_0_0_0")))

    def test_rank_logs_give_the_multi_rank_report(self):
        """Several rank logs (copied by a child that needs no torch): the
        --all-ranks-html report, and --profile, which that mode does not
        join, named and left out."""
        out = os.path.join(self.dir, "out")
        trace = os.path.join(self.dir, "trace")
        logs = sorted(glob.glob(os.path.join(
            rec.EXAMPLES, "rec-gloo-2rank", "*_rank_*.log")))
        self.assertEqual(len(logs), 2)
        r = run(["--no-browser", "-i", "--profile", "p.json", "-o", out,
                 "--trace-dir", trace, "--", "cp"] + logs + [trace],
                self.dir, env=self.env)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("tlparse: run: --profile applies to one rank's log "
                      "(tlparse LOG -i --profile TRACE); the multi-rank "
                      "report is written without it\n", r.stderr)
        self.assertIn("Multi-rank report generated under %s\n" % out,
                      r.stdout)
        self.assertTrue(r.stdout.endswith("tlparse: trace logs in %s\n"
                                          % os.path.realpath(trace)))
        for rank in (0, 1):
            self.assertTrue(os.path.isfile(os.path.join(
                out, "rank_%d" % rank, "provenance_tracking_-_0_0_0.json")))

    def test_child_that_raises_after_compiling(self):
        trace = os.path.join(self.dir, "trace")
        out = os.path.join(self.dir, "out")
        r = run(["-i", "--no-browser", "-o", out, "--trace-dir", trace, "--",
                 PYTHON, "model.py", "raise"], self.dir, stdin="1\n",
                env=self.env)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("RuntimeError: after compiling", r.stderr)
        self.assertIn("tlparse: run: %s exited with status 1\n" % PYTHON,
                      r.stderr)
        self.assertIn("tlparse: wrote %s/index.html\n" % out, r.stdout)
        self.check_report(out, self.only_log(trace))

    def test_sigint_while_the_child_runs(self):
        trace = os.path.join(self.dir, "trace")
        out = os.path.join(self.dir, "out")
        p = subprocess.Popen(
            [TLPARSE, "run", "-i", "--no-browser", "-o", out, "--trace-dir",
             trace, "--", PYTHON, "model.py", "wait"], cwd=self.dir,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, env=self.env)
        p.stdin.write("2\n")
        p.stdin.close()
        seen = []
        for line in p.stdout:  # the child says when it has compiled
            seen.append(line)
            if line == "compiled\n":
                break
        self.assertEqual(seen[-1], "compiled\n")
        p.send_signal(signal.SIGINT)  # to tlparse alone: it forwards it
        rest = p.stdout.read()
        err = p.stderr.read()
        code = p.wait()
        p.stdout.close()
        p.stderr.close()
        # Python dies of an uncaught KeyboardInterrupt by SIGINT: 128 + 2.
        self.assertEqual(code, 128 + signal.SIGINT, err)
        self.assertIn("KeyboardInterrupt", err)
        self.assertIn("tlparse: run: %s was ended by signal %d (%s)\n"
                      % (PYTHON, signal.SIGINT,
                         signal.strsignal(signal.SIGINT)), err)
        self.assertIn("tlparse: wrote %s/index.html\n" % out, rest)
        self.check_report(out, self.only_log(trace))

    def test_two_gloo_ranks_under_torchrun(self):
        with open(os.path.join(self.dir, "ranks.py"), "w") as f:
            f.write(RANKS)
        trace = os.path.join(self.dir, "trace")
        out = os.path.join(self.dir, "out")
        r = run(["-i", "--no-browser", "-j", "1", "-o", out, "--trace-dir",
                 trace, "--", TORCHRUN, "--standalone", "--nproc-per-node",
                 "2", "ranks.py"], self.dir, env=self.env)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("rank 0 done [4, 6]", r.stdout)
        self.assertIn("rank 1 done [4, 6]", r.stdout)
        logs = sorted(glob.glob(os.path.join(trace, "*rank_*.log")))
        self.assertEqual(len(logs), 2)
        self.assertIn("Multi-rank report generated under %s" % out, r.stdout)
        with open(os.path.join(out, "index.html"), encoding="utf-8") as f:
            landing = f.read()
        for rank, log in enumerate(logs):
            self.assertIn("_rank_%d_" % rank, os.path.basename(log))
            self.assertIn('href="rank_%d/index.html"' % rank, landing)
            rank_out = os.path.join(out, "rank_%d" % rank)
            entries = rec.read_log(log)
            with self.subTest(rank=rank):
                for cdir in mapped_folders(entries):
                    keys = linked_kernels(entries, cdir)
                    self.assertTrue(any("all_reduce" in k for k in keys),
                                    keys)
                    for key in keys:
                        self.check_kernel(
                            rank_out, entries, cdir, -1,
                            "provenance_tracking_%s.json" % cdir, key)

    def test_a_command_that_does_not_exist_writes_nothing(self):
        trace = os.path.join(self.dir, "trace")
        out = os.path.join(self.dir, "out")
        r = run(["--no-browser", "-o", out, "--trace-dir", trace, "--",
                 "no-such-command-31"], self.dir, env=self.env)
        self.assertEqual(r.returncode, 127)
        self.assertEqual(r.stdout, "")
        self.assertEqual(r.stderr, "tlparse: run: no-such-command-31: "
                         "command not found (nothing was run or written)\n")
        self.assertEqual(os.listdir(self.dir), ["model.py"])

    def test_refusals_run_nothing(self):
        marker = os.path.join(self.dir, "ran")
        cmd = ["--", "sh", "-c", "touch %s" % marker]
        # The user's own TORCH_TRACE is refused, not overridden.
        r = run(["--no-browser", "-o", "out"] + cmd, self.dir,
                env=dict(self.env, TORCH_TRACE="/elsewhere"))
        self.assertEqual((r.returncode, r.stdout, r.stderr), (1, "", (
            "tlparse: run: TORCH_TRACE is already set (to '/elsewhere'); "
            "unset it, and give --trace-dir DIR to choose where the logs "
            "go\n")))
        # An output folder that exists stops the run before the child.
        os.mkdir(os.path.join(self.dir, "out"))
        r = run(["--no-browser", "-o", "out"] + cmd, self.dir, env=self.env)
        self.assertEqual((r.returncode, r.stderr), (1, (
            "tlparse: run: not started: output folder out already exists; "
            "pass --overwrite to replace it (nothing was deleted)\n")))
        # A trace folder with files in it would mix another run's logs in.
        with open(os.path.join(self.dir, "out", "old.log"), "w") as f:
            f.write("x\n")
        r = run(["--no-browser", "-o", "o2", "--trace-dir", "out"] + cmd,
                self.dir, env=self.env)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stderr, (
            "tlparse: run: --trace-dir out is not an empty folder; give a "
            "new or empty one, so the report reads this run's logs only\n"))
        self.assertFalse(os.path.exists(marker))
        self.assertFalse(os.path.exists(os.path.join(self.dir, "o2")))
        # A child that logs nothing: its status, no report, and the trace
        # folder the run made is removed again; one that was there (empty)
        # is kept.
        r = run(["--no-browser", "-o", "o3", "--trace-dir", "t3", "--", "sh",
                 "-c", "exit 4"], self.dir, env=self.env)
        self.assertEqual(r.returncode, 4)
        self.assertTrue(r.stderr.endswith(
            "tlparse: run: sh wrote no trace log to %s (did it run "
            "torch.compile or torch.export?); no report written, the empty "
            "folder removed\n"
            % os.path.realpath(os.path.join(self.dir, "t3"))), r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "o3")))
        self.assertFalse(os.path.exists(os.path.join(self.dir, "t3")))
        os.mkdir(os.path.join(self.dir, "t4"))
        r = run(["--no-browser", "-o", "o4", "--trace-dir", "t4", "--", "sh",
                 "-c", "exit 4"], self.dir, env=self.env)
        self.assertEqual(r.returncode, 4)
        self.assertTrue(r.stderr.endswith(
            "torch.compile or torch.export?); no report written\n"), r.stderr)
        self.assertTrue(os.path.isdir(os.path.join(self.dir, "t4")))


class TraceFolder(unittest.TestCase):
    """A --trace-dir the command writes nothing into: every folder the run
    made for it goes again, and only those. No torch needed."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def run_true(self, trace_dir):
        r = run(["--no-browser", "-o", "out", "--trace-dir", trace_dir, "--",
                 "true"], self.dir)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertTrue(r.stderr.endswith(
            "no report written, the empty folder removed\n"), r.stderr)

    def test_the_folders_made_above_it_go_too(self):
        self.run_true(os.path.join("td", "a", "b"))
        self.assertEqual(os.listdir(self.dir), [])

    def test_a_users_folder_inside_the_name_stays(self):
        # n2/../keep/t: `keep` lies below `n2` in the name but is the
        # user's (empty) folder, not made by the run.
        os.mkdir(os.path.join(self.dir, "keep"))
        self.run_true(os.path.join("n2", "..", "keep", "t"))
        self.assertEqual(os.listdir(self.dir), ["keep"])
        self.assertEqual(os.listdir(os.path.join(self.dir, "keep")), [])

    def test_a_trace_folder_that_cannot_be_made_leaves_nothing(self):
        # nd/../f/t: `nd` is made, then `f` is a file: the folder the run
        # made goes again, the user's file stays, the command never runs.
        with open(os.path.join(self.dir, "f"), "w") as f:
            f.write("kept")
        trace = os.path.join("nd", "..", "f", "t")
        r = run(["--no-browser", "-o", "out", "--trace-dir", trace, "--",
                 "touch", "ran"], self.dir)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(r.stderr, "tlparse: run: --trace-dir %s: cannot "
                         "create folder %s: Not a directory\n"
                         % (trace, trace))
        self.assertEqual(os.listdir(self.dir), ["f"])


class FileSizeSignal(unittest.TestCase):
    """tlparse ignores SIGXFSZ for itself (a write past a file-size limit
    fails with EFBIG and is reported), but the command it runs gets the
    disposition tlparse was started with, as if run directly: an ignored
    signal would otherwise stay ignored across exec. No torch needed."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def ignored_in_command(self, preexec_fn):
        """The SigIgn mask the command's process reports."""
        r = subprocess.run(
            [TLPARSE, "run", "--no-browser", "-o", "out", "--trace-dir", "t",
             "--", "grep", "SigIgn", "/proc/self/status"], cwd=self.dir,
            capture_output=True, text=True, env=dict(os.environ, CI="1"),
            preexec_fn=preexec_fn)
        # It logs nothing: no report, the run's status 1.
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "out")))
        self.assertTrue(r.stdout.startswith("SigIgn:\t"), r.stdout)
        return int(r.stdout.split("\t")[1], 16)

    def test_the_command_gets_the_default_when_tlparse_did(self):
        # subprocess starts tlparse with every signal at its default.
        self.assertEqual(self.ignored_in_command(None), 0)

    def test_the_command_keeps_an_ignore_tlparse_was_given(self):
        def ignore():
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        self.assertEqual(self.ignored_in_command(ignore),
                         1 << (signal.SIGXFSZ - 1))


def kill_session(sid):
    """SIGKILL to every process of session `sid` (each job-control group
    in it: a stopped job would otherwise outlive a failed test)."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            if os.getsid(int(pid)) == sid:
                os.kill(int(pid), signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


class JobControl(unittest.TestCase):
    """Ctrl-Z while CMD holds the terminal stops the whole job (tlparse
    and CMD), so the user's shell gets its prompt back; `fg` continues
    both, with the terminal CMD's again. No torch needed."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        self.seen = b""

    def tearDown(self):
        self.tmp.cleanup()

    def read_line(self, fd, marker, deadline):
        """Reads the terminal until a whole line starting at `marker` has
        come; returns the rest of that line."""
        while not re.search(re.escape(marker) + b"[^\\n]*\\n", self.seen):
            left = deadline - time.monotonic()
            self.assertGreater(left, 0, "no %r on the terminal; it showed "
                               "%r" % (marker, self.seen))
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                try:
                    chunk = os.read(fd, 4096)
                except OSError:  # the terminal's last user left
                    chunk = b""
                self.assertTrue(chunk, "the terminal closed before %r; it "
                                "showed %r" % (marker, self.seen))
                self.seen += chunk
        return re.search(re.escape(marker) + b"([^\\n]*)\\n",
                         self.seen).group(1)

    def test_ctrl_z_stops_the_job_and_fg_continues_it(self):
        shell = os.path.join(self.dir, "job_shell.py")
        with open(shell, "w") as f:
            f.write(JOB_SHELL)
        child = os.path.join(self.dir, "read_then_log.py")
        with open(child, "w") as f:
            f.write(READ_THEN_LOG)
        out = os.path.join(self.dir, "out")
        trace = os.path.join(self.dir, "trace")
        master, slave = os.openpty()
        env = dict(os.environ, CI="1")
        env.pop("TORCH_TRACE", None)
        p = subprocess.Popen(
            [sys.executable, shell, TLPARSE, "run", "--no-browser", "-o", out,
             "--trace-dir", trace, "--", sys.executable, child],
            stdin=slave, stdout=slave, stderr=slave, cwd=self.dir, env=env,
            start_new_session=True)
        os.close(slave)
        try:
            deadline = time.monotonic() + 120
            self.read_line(master, b"ready", deadline)
            os.write(master, b"\x1a")  # Ctrl-Z: SIGTSTP to CMD's group
            stop = self.read_line(master, b"STOPPED", deadline)
            # The job stopped by the terminal's SIGTSTP: tlparse and CMD.
            self.assertEqual(stop.split(),
                             [str(int(signal.SIGTSTP)).encode(), b"T", b"T"])
            os.write(master, b"fg\n")
            os.write(master, b"after fg\n")  # read by CMD once it runs
            self.read_line(master, b"ENDED", deadline)
            self.assertEqual(p.wait(timeout=60), 0)
        finally:
            kill_session(p.pid)  # on a failure: the shell, tlparse and CMD
            p.wait()
            os.close(master)
        text = self.seen.replace(b"\r\n", b"\n").decode()
        self.assertIn("\nread after fg\n", text)
        self.assertIn("tlparse: wrote %s/index.html\n" % out, text)
        self.assertIn("\nENDED 0\n", text)
        self.assertTrue(os.path.isfile(os.path.join(out, "index.html")))


if __name__ == "__main__":
    unittest.main()
