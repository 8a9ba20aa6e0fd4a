"""Golden end-to-end runs: the real binary on each real fixture log.

For every log in the shared fixtures, checks that each path the Rust tlparse
writes (expected-files/<log>.txt) is written by us too, and that every
artifact file holds exactly the payload bytes of its entry in the log (read
independently by tracelog.py). Skips, saying so, when the fixtures are absent.
"""

import collections
import html
import os
import re
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import links  # noqa: E402
import tracelog  # noqa: E402

TLPARSE = os.environ.get("TLPARSE", "tlparse")
# 0 when the binary was built without the highlighter page (a core-only
# developer build); then the provenance_tracking_* pages are not expected.
WITH_PAGES = os.environ.get("TLPARSE_WITH_PAGES", "1") == "1"
NUMBERED = re.compile(r"^(.*)_(\d+)\.(txt|json|py)$")


def run(args, **kw):
    return subprocess.run([TLPARSE] + args, capture_output=True, text=True,
                          env=dict(os.environ, CI="1"), **kw)


@unittest.skipUnless(os.path.isdir(tracelog.FIXTURES),
                     "shared fixtures folder is absent: golden runs skipped")
class GoldenRuns(unittest.TestCase):
    def logs(self):
        expected_dir = os.path.join(tracelog.FIXTURES, "expected-files")
        for listing in sorted(os.listdir(expected_dir)):
            stem = listing[:-len(".txt")]
            for cand in (stem, stem + ".log", stem + ".txt"):
                path = os.path.join(tracelog.FIXTURES, cand)
                if os.path.isfile(path):
                    yield path, os.path.join(expected_dir, listing)
                    break

    def test_every_rust_output_path_is_written(self):
        count = 0
        for log, listing in self.logs():
            with self.subTest(log=os.path.basename(log)), \
                    tempfile.TemporaryDirectory() as tmp:
                out = os.path.join(tmp, "out")
                r = run([log, "-o", out, "-i", "--no-browser"])
                self.assertEqual(r.returncode, 0, r.stderr)
                with open(listing) as f:
                    expected = [l.strip() for l in f if l.strip()]
                if not WITH_PAGES:
                    expected = [p for p in expected
                                if not p.startswith("provenance_tracking_")]
                missing = [p for p in expected
                           if not os.path.exists(os.path.join(out, p))]
                self.assertEqual(missing, [])
                self.assertEqual(links.broken_links(out), [])
                count += 1
        self.assertEqual(count, 13)

    def test_artifact_files_hold_the_exact_payload_bytes(self):
        checked = 0
        for log, _ in self.logs():
            with self.subTest(log=os.path.basename(log)), \
                    tempfile.TemporaryDirectory() as tmp:
                out = os.path.join(tmp, "out")
                r = run([log, "-o", out, "--no-browser"])
                self.assertEqual(r.returncode, 0, r.stderr)
                files = collections.defaultdict(list)
                for d in os.listdir(out):
                    if not os.path.isdir(os.path.join(out, d)):
                        continue
                    for name in os.listdir(os.path.join(out, d)):
                        m = NUMBERED.match(name)
                        if m:
                            files[(d, m.group(1))].append(
                                (int(m.group(2)), name))
                seen = collections.Counter()
                for _, env, payload in tracelog.records(log):
                    stem = tracelog.artifact_stem(env)
                    if stem is None or payload is None:
                        continue
                    key = (tracelog.dir_name(env), stem)
                    k = seen[key]
                    seen[key] += 1
                    numbered = sorted(files[key])
                    self.assertLess(k, len(numbered), key)
                    path = os.path.join(out, key[0], numbered[k][1])
                    with open(path, "rb") as f:
                        self.assertEqual(f.read(), payload.encode("utf-8"),
                                         path)
                    checked += 1
        # Every artifact of the 13 logs was compared (count read off the
        # logs by tracelog: entries with a file stem and a payload).
        self.assertGreater(checked, 100)


class StackTrie(unittest.TestCase):
    """The index's stack trie: every dynamo_start stack of the log, merged by
    common prefix, each compile id linked at the end of its stack."""

    @unittest.skipUnless(os.path.isdir(tracelog.FIXTURES),
                         "shared fixtures folder is absent: skipped")
    def test_trie_lists_each_stack_with_its_compile_id(self):
        log = tracelog.fixture("cache_hit_miss.log")
        strings = {}
        stacks = []
        for _, env, _ in tracelog.records(log):
            if "str" in env:
                strings[env["str"][1]] = env["str"][0]
            if tracelog.kind(env) == "dynamo_start":
                frames = ["%s:%d in %s" % (strings.get(f["filename"], "?"),
                                           f["line"], f["name"])
                          for f in env["dynamo_start"]["stack"]]
                stacks.append((frames, "[%d/%d]" % (
                    env["frame_id"], env["frame_compile_id"])))
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "out")
            r = run([log, "-o", out, "--no-browser"])
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(os.path.join(out, "index.html")) as f:
                page = f.read()
        start = page.index('<section id="stack-trie">')
        trie = page[start:page.index("</section>", start)]
        # Depth-first order of the trie = the stacks sorted by first
        # appearance of each prefix; here (read off the log) every stack ends
        # in a distinct frame, so each id appears once per stack.
        self.assertEqual(len(stacks), 6)
        self.assertEqual(re.findall(r">(\[\d+/\d+\])</a>", trie),
                         ["[0/0]", "[1/0]", "[0/0]", "[1/0]", "[0/0]",
                          "[1/0]"])
        for frames, _ in stacks:
            for frame in frames:
                self.assertIn(html.escape(frame, quote=True), trie)


if __name__ == "__main__":
    unittest.main(verbosity=2)
