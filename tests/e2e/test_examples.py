"""Runs tlparse -i on every example trace in examples/ and checks that the
report links up: index.html links each provenance page, every relative link
of every page resolves, and each view's JSON names artifact files that exist
and holds kernels with call lines. And that no recorded log names the
machine it was recorded on (examples/record/scrub_paths.py)."""

import gzip
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import links  # noqa: E402

TLPARSE = os.environ.get("TLPARSE", "tlparse")
EXAMPLES = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..",
                                         "examples"))
SHAPES = ["jit-cuda", "jit-cpu", "aot-cuda", "aot-cpu", "combo"]


class Examples(unittest.TestCase):
    def test_recordings_name_no_path_of_the_recording_machine(self):
        # Every Python package path is the neutral /opt/venv one that
        # scrub_paths.py writes, and no log names this checkout.
        checkout = os.path.dirname(EXAMPLES)
        logs = 0
        for root, _, names in os.walk(EXAMPLES):
            for name in names:
                path = os.path.join(root, name)
                if name.endswith(".log"):
                    with open(path, "rb") as f:
                        text = f.read().decode("utf-8", "replace")
                elif name.endswith(".json.gz"):
                    with gzip.open(path, "rb") as f:
                        text = f.read().decode("utf-8", "replace")
                else:
                    continue
                logs += 1
                where = os.path.relpath(path, EXAMPLES)
                self.assertEqual(
                    sorted(p for p in set(re.findall(
                        r"[^\s\"'\\]*site-packages", text))
                        if not re.fullmatch(
                            r"/opt/venv/lib/python3\.\d+/site-packages", p)),
                    [], where)
                self.assertNotIn(checkout, text, where)
        self.assertGreater(logs, 30)

    def test_each_example_report_links_up(self):
        for shape in SHAPES:
            with self.subTest(shape=shape), \
                    tempfile.TemporaryDirectory() as tmp:
                trace = os.path.join(EXAMPLES, shape, "trace.log")
                self.assertTrue(os.path.isfile(
                    os.path.join(EXAMPLES, shape, "README.md")))
                out = os.path.join(tmp, "out")
                r = subprocess.run([TLPARSE, trace, "-i", "-o", out,
                                    "--no-browser", "--strict"],
                                   capture_output=True, text=True,
                                   env=dict(os.environ, CI="1"))
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertEqual(r.stderr, "")
                self.assertEqual(links.broken_links(out), [])
                with open(os.path.join(out, "index.html")) as f:
                    index = f.read()
                views = [n for n in os.listdir(out)
                         if n.startswith("provenance_tracking_")
                         and n.endswith(".json")]
                self.assertTrue(views)
                linked = 0
                for name in views:
                    with open(os.path.join(out, name)) as f:
                        view = json.load(f)
                    page = name[:-len(".json")] + ".html"
                    self.assertIn('href="%s"' % page, index)
                    self.assertTrue(os.path.exists(os.path.join(out, page)))
                    for path in view["artifacts"].values():
                        if path:
                            self.assertTrue(
                                os.path.exists(os.path.join(out, path)), path)
                    if view.get("mapping_version"):
                        linked += 1
                        self.assertTrue(view["kernels"])
                        for k in view["kernels"]:
                            self.assertTrue(k["calls"], k["key"])
                        self.assertEqual(view["unresolved"]["kernels"], [])
                self.assertGreaterEqual(linked, 1)


if __name__ == "__main__":
    unittest.main(verbosity=2)
