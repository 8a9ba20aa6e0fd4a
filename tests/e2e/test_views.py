"""Provenance views chosen from a compile folder (issue 3) and the reuse of
the analysis of repeated compilations (report.c).

A trace that logs the same compilation twice under one compile id (as a run
repeated after torch._dynamo.reset() does) must give two views: the earlier
named provenance_tracking_<dir>_0, the last provenance_tracking_<dir>, each
pairing the mapping with the artifacts logged in its own run, and each with
exactly the line maps of the single-run view."""

import json
import os
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


if __name__ == "__main__":
    unittest.main(verbosity=2)
