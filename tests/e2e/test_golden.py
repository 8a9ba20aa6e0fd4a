"""Golden end-to-end runs: the real binary on each real fixture log.

For every log in the shared fixtures, checks that each path the Rust tlparse
writes (expected-files/<log>.txt) is written by us too, and that every
artifact file holds exactly the payload bytes of its entry in the log (read
independently by tracelog.py). Skips, saying so, when the fixtures are absent.
"""

import collections
import html
import json
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
        # One run per single-log listing (the "--" listings are other modes).
        listings = [l for l in os.listdir(os.path.join(
            tracelog.FIXTURES, "expected-files")) if "--" not in l]
        self.assertEqual(count, len(listings))

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
                        data = f.read()
                    if path.endswith(".json") and is_json(payload):
                        # As the Rust tool: JSON artifacts are re-written
                        # pretty, keys sorted (formats.md), same value.
                        self.assertEqual(json.loads(data), json.loads(payload),
                                         path)
                        self.assertEqual(data, pretty_sorted(payload), path)
                    else:
                        self.assertEqual(data, payload.encode("utf-8"), path)
                    checked += 1
        # Every artifact of the logs was compared (count read off the logs
        # by tracelog: entries with a file stem and a payload).
        self.assertGreater(checked, 100)


def is_json(text):
    try:
        json.loads(text)
        return True
    except ValueError:
        return False


def pretty_sorted(text):
    """serde_json's pretty form, as Python writes it: equal for payloads
    whose numbers are integers or print alike in both (the fixtures')."""
    return json.dumps(json.loads(text), indent=2, sort_keys=True,
                      ensure_ascii=False).encode("utf-8")


def glog_entry(envelope, payload, line_end="\n", strip_tabs=False):
    """One entry as torch/_logging writes it: every payload line behind a
    tab. strip_tabs removes the tab of lines that hold nothing else, as a
    whitespace-stripping editor does."""
    envelope = dict(envelope, has_payload=tracelog.md5(payload))
    lines = ["V1120 10:00:00.000000 77 torch/x.py:1] " + json.dumps(envelope)]
    for l in payload.split("\n"):
        lines.append("" if strip_tabs and l == "" else "\t" + l)
    return "".join(l + line_end for l in lines)


class PayloadsAreNeverCut(unittest.TestCase):
    """A payload is every payload line after its envelope, blank lines
    included, until the next envelope; the md5 covers exactly those bytes."""

    PAYLOADS = [
        "def f(x):\n\n    return x  \n\n\n# end",  # blank lines, spaces
        "\nleading blank line",
        "trailing newline\n",
        "two trailing newlines\n\n",
        "tab\tinside\n  \t\n",
    ]

    def check(self, line_end, strip_tabs):
        log = "".join(
            glog_entry({"artifact": {"name": "piece%d" % k,
                                     "encoding": "string"},
                        "frame_id": 0, "frame_compile_id": 0, "attempt": 0},
                       payload, line_end, strip_tabs)
            for k, payload in enumerate(self.PAYLOADS))
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "blank.log")
            with open(path, "w", newline="") as f:
                f.write(log)
            out = os.path.join(tmp, "out")
            r = run([path, "-o", out, "--no-browser", "--strict"])
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertNotIn("md5", r.stderr)
            for k, payload in enumerate(self.PAYLOADS):
                name = os.path.join(out, "-_0_0_0", "piece%d_%d.txt" % (k, k))
                with open(name, "rb") as f:
                    self.assertEqual(f.read(), payload.encode(), name)
            # The independent reader agrees, entry by entry.
            read = [p for _, _, p in tracelog.records(path)]
            self.assertEqual(read, self.PAYLOADS)

    def test_blank_lines_and_trailing_spaces_are_kept(self):
        self.check("\n", strip_tabs=False)

    def test_empty_lines_whose_tab_was_stripped_are_blank_payload_lines(self):
        # The log an editor that strips trailing whitespace leaves: an empty
        # payload line, "\t" as torch writes it, becomes a blank line.
        self.check("\n", strip_tabs=True)

    def test_crlf_line_ends_are_not_payload_bytes(self):
        self.check("\r\n", strip_tabs=True)

    @unittest.skipUnless(tracelog.fixture("export.log"),
                         "shared fixtures folder is absent: skipped")
    def test_exported_program_of_export_log_is_whole(self):
        log = tracelog.fixture("export.log")
        program = next(p for _, env, p in tracelog.records(log)
                       if tracelog.kind(env) == "exported_program")
        # Read off the log (lines 61-84): 18 lines behind a tab and 6 blank
        # ones between them. The fixture was whitespace-stripped: each blank
        # line held a tab and 12 spaces, and the payload ended in a newline
        # (that rebuilt text has the declared md5), so the md5 check fails
        # for any reading of the file, the Rust tool's (which drops the
        # blank lines) and ours (which keeps them as empty lines).
        self.assertEqual(len(program.split("\n")), 24)
        self.assertEqual(program.split("\n").count(""), 6)
        declared = next(env["has_payload"]
                        for _, env, _ in tracelog.records(log)
                        if tracelog.kind(env) == "exported_program")
        self.assertNotEqual(tracelog.md5(program), declared)
        rebuilt = "\n".join(l or " " * 12 for l in program.split("\n"))
        self.assertEqual(tracelog.md5(rebuilt + "\n"), declared)
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "out")
            r = run([log, "-o", out, "--no-browser"])
            self.assertEqual(r.returncode, 0, r.stderr)
            # Without -e, as the Rust tool: the payload goes to payloads/,
            # named by its declared md5 (parity spec 2.5).
            with open(os.path.join(out, "payloads", declared + ".txt"),
                      "rb") as f:
                self.assertEqual(f.read(), program.encode())


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
