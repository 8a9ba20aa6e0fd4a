"""The Rust tlparse's own integration tests that concern one log, run as
command lines against our binary (parity spec, the "[test]" marks).

Each test states what upstream asserts, with the same flags (`strict: true`
there is `--strict` here) and the same expected values; the values are
upstream's, and each was checked against the shared fixture it names (the
counts in the comments are read off the logs). Multi-rank and export tests
live with their modes. Skips, saying so, where the fixtures are absent.
"""

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


def files_of(out):
    found = set()
    for root, _, names in os.walk(out):
        for n in names:
            found.add(os.path.relpath(os.path.join(root, n), out))
    return found


@unittest.skipUnless(os.path.isdir(tracelog.FIXTURES),
                     "shared fixtures folder is absent: skipped")
class Upstream(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def parse(self, name, *flags):
        out = os.path.join(self.tmp, "out%d" % len(os.listdir(self.tmp)))
        r = subprocess.run([TLPARSE, tracelog.fixture(name), "-o", out,
                            "--no-browser"] + list(flags),
                           capture_output=True, text=True,
                           env=dict(os.environ, CI="1"))
        self.assertEqual(r.returncode, 0, r.stderr)
        return out, files_of(out)

    def assert_prefixes(self, files, prefixes):
        for prefix in prefixes:
            self.assertTrue(any(f.startswith(prefix) for f in files), prefix)

    def raw_jsonl(self, out):
        with open(os.path.join(out, "raw.jsonl"), encoding="utf-8") as f:
            return f.read().splitlines()

    SIMPLE_FILES = ["-_0_0_0/aot_forward_graph", "-_0_0_0/dynamo_output_graph",
                    "index.html", "compile_directory.json",
                    "failures_and_restarts.html",
                    "-_0_0_0/inductor_post_grad_graph",
                    "-_0_0_0/inductor_output_code"]

    def test_parse_simple(self):
        out, files = self.parse("simple.log", "--strict")
        self.assert_prefixes(files, self.SIMPLE_FILES)
        # 1 string table + 14 entries (50 chromium events and 12 str left out).
        lines = self.raw_jsonl(out)
        self.assertEqual(len(lines), 15)
        self.assertTrue(lines[0].startswith('{"string_table":'))

    def test_parse_simple_corrupted_json(self):
        out, files = self.parse("simple_corrupted_json.log")
        self.assert_prefixes(files, self.SIMPLE_FILES)
        lines = self.raw_jsonl(out)
        self.assertEqual(len(lines), 15)
        self.assertTrue(lines[0].startswith('{"string_table":'))

    def test_parse_compilation_metrics(self):
        out, files = self.parse("comp_metrics.log", "--strict")
        self.assert_prefixes(files, [
            "-_0_0_1/dynamo_output_graph", "-_0_0_1/compilation_metrics",
            "-_1_0_1/dynamo_output_graph", "-_1_0_1/compilation_metrics",
            "-_2_0_0/dynamo_output_graph", "-_2_0_0/compilation_metrics",
            "index.html", "compile_directory.json",
            "failures_and_restarts.html"])
        lines = self.raw_jsonl(out)
        self.assertEqual(len(lines), 13)  # 1 + 12 entries (14 str left out)
        self.assertTrue(lines[0].startswith('{"string_table":'))
        # Exactly the payloads of its three dynamo_guards entries.
        payloads = {f[len("payloads/"):-len(".txt")] for f in files
                    if f.startswith("payloads/")}
        self.assertEqual(payloads, {"11726d08889974e57b12edee2812504e",
                                    "29e35548d59d0e446f0c8a3f3010cc72",
                                    "e18e1bcb67140c0a67427a6119556f7a"})
        with_fields = named = 0
        for line in lines:
            obj = json.loads(line)
            if {"timestamp", "thread", "pathname"} <= obj.keys():
                with_fields += 1
                self.assertIsInstance(obj["timestamp"], str)
                self.assertIsInstance(obj["thread"], int)
                self.assertIsInstance(obj["pathname"], str)
                self.assertIsInstance(obj["lineno"], int)
            if "payload_filename" in obj:
                named += 1
                self.assertIn(obj["payload_filename"], files)
        self.assertEqual(with_fields, 12)
        self.assertGreaterEqual(named, 3)

    def test_parse_compilation_failures(self):
        _, files = self.parse("comp_failure.log", "--strict")
        self.assert_prefixes(files, [
            "-_0_0_0/dynamo_output_graph", "-_0_0_0/compilation_metrics",
            "index.html", "compile_directory.json",
            "failures_and_restarts.html"])

    def test_parse_artifact(self):
        _, files = self.parse("artifacts.log", "--strict")
        self.assert_prefixes(files, ["-_0_0_0/fx_graph_cache_hash",
                                     "index.html"])

    def test_parse_chromium_event(self):
        _, files = self.parse("chromium_events.log", "--strict")
        self.assert_prefixes(files, ["chromium_events.json", "index.html"])

    def test_cache_hit_miss(self):
        _, files = self.parse("cache_hit_miss.log", "--strict")
        self.assert_prefixes(files, [
            "-_1_0_0/fx_graph_cache_miss_33.json",
            "-_1_0_0/fx_graph_cache_miss_9.json",
            "-_1_0_0/fx_graph_cache_hit_20.json",
            "compile_directory.json", "index.html"])

    def test_every_payload_filename_names_a_file(self):
        for name in ("simple.log", "comp_metrics.log", "cache_hit_miss.log",
                     "inductor_provenance_jit_debug_handle_log.txt"):
            for flags in ([], ["-p"]):
                with self.subTest(log=name, flags=flags):
                    out, files = self.parse(name, *flags)
                    for line in self.raw_jsonl(out)[1:]:
                        obj = json.loads(line)
                        if "payload_filename" in obj:
                            self.assertIn(obj["payload_filename"], files)

    def test_plain_text_output_code_is_its_payload_file(self):
        # simple.log has one payload file, its HTML output code; none with -p.
        _, files = self.parse("simple.log")
        self.assertEqual({f for f in files if f.startswith("payloads/")},
                         {"payloads/35842d763c8905794995d6c4a089d3b3.txt"})
        _, files = self.parse("simple.log", "-p")
        self.assertEqual({f for f in files if f.startswith("payloads/")},
                         set())

    def test_chromium_numbers_are_copied(self):
        out, _ = self.parse("chromium_events.log")
        with open(os.path.join(out, "chromium_events.json")) as f:
            text = f.read()
        self.assertIn('"ts": 1733527214084600.2', text)

    def test_readable_kernel_stack_traces(self):
        out, files = self.parse(
            "inductor_provenance_jit_debug_handle_log.txt", "-i")
        readable = sorted(f for f in files if f.endswith("_readable.html"))
        self.assertEqual(len(readable), 1)
        with open(os.path.join(out, "compile_directory.json")) as f:
            directory = json.load(f)
        urls = [a["readable_url"] for v in directory.values()
                for a in v["artifacts"] if a["readable_url"]]
        self.assertEqual(urls, readable)
        with open(os.path.join(out, readable[0]), encoding="utf-8") as f:
            page = f.read()
        self.assertNotIn("\\n", page)

    def test_provenance_stack_trace_readable(self):
        # Upstream reads inductor_provenance_extended_log.txt, not among the
        # shared fixtures; inductor_provenance_jit_debug_handle_log.txt logs
        # inductor_provenance_tracking_kernel_stack_traces (entry 15) too.
        out, files = self.parse(
            "inductor_provenance_jit_debug_handle_log.txt", "-i")
        traces = "inductor_provenance_tracking_kernel_stack_traces"
        self.assertTrue(any(traces in f and f.endswith(".json")
                            for f in files))
        readable = [f for f in files
                    if traces in f and f.endswith("_readable.html")]
        self.assertEqual(readable, [
            "-_0_0_0/inductor_provenance_tracking_kernel_stack_traces_15"
            "_readable.html"])
        with open(os.path.join(out, readable[0]), encoding="utf-8") as f:
            page = f.read()
        # Upstream's "line 1\n  foo()" is its log's text; the literal \n of
        # this log's traces must be newlines too.
        self.assertNotIn("\\n", page)
        with open(os.path.join(out, "index.html"), encoding="utf-8") as f:
            index = f.read()
        self.assertIn('_readable.html">readable_html</a>', index)
        self.assertIn('<a href="%s">readable_html</a>' % readable[0], index)

    # test_provenance_tracking_*: with -i, these files exist (prefixes, as
    # upstream checks them), for each fixture upstream names.
    PROVENANCE = {
        "inductor_provenance_aot_cuda_log.txt": [
            "-_-_-_-/before_pre_grad_graph_0.txt",
            "-_-_-_-/after_post_grad_graph_6.txt",
            "provenance_tracking_-_-_-_-.html",
            "-_-_-_-/inductor_provenance_tracking_node_mappings_12.json"],
        "inductor_provenance_aot_log.txt": [
            "-_-_-_-/before_pre_grad_graph_0.txt",
            "-_-_-_-/after_post_grad_graph_6.txt",
            "provenance_tracking_-_-_-_-.html",
            "-_-_-_-/inductor_provenance_tracking_node_mappings_11.json"],
        "inductor_provenance_aot_log_old.txt": [
            "-_-_-_-/inductor_pre_grad_graph_0.txt",
            "-_-_-_-/inductor_post_grad_graph_8.txt",
            "provenance_tracking_-_-_-_-.html",
            "-_-_-_-/inductor_provenance_tracking_node_mappings_11.json"],
        "inductor_provenance_jit_cuda_log.txt": [
            "-_0_0_0/before_pre_grad_graph_1.txt",
            "-_0_0_0/after_post_grad_graph_8.txt",
            "provenance_tracking_-_0_0_0.html",
            "-_0_0_0/inductor_provenance_tracking_node_mappings_14.json"],
    }

    def test_provenance_tracking(self):
        for name, expected in sorted(self.PROVENANCE.items()):
            with self.subTest(log=name):
                _, files = self.parse(name, "-i")
                self.assert_prefixes(files, expected)

    def test_provenance_tracking_aot_cuda_line_mappings(self):
        # Upstream also compares the page's lineMappings with fixed values.
        # Our page carries them in provenance_tracking_-_-_-_-.json
        # ("lines", docs/provenance-json.md): the graph maps are upstream's;
        # code lines are 1-based lines of the wrapper file, upstream's
        # 0-based (its 1060 is line 1061, the aoti_torch_cuda_mm_out call).
        out, _ = self.parse("inductor_provenance_aot_cuda_log.txt", "-i")
        with open(os.path.join(out, "provenance_tracking_-_-_-_-.json")) as f:
            lines = json.load(f)["lines"]
        self.assertEqual(lines["preToPost"], {
            "11": [18], "14": [21], "17": [24], "20": [27, 28],
            "23": [31, 32, 33, 34, 35], "8": [11, 14, 15]})
        self.assertEqual(lines["postToPre"], {
            "11": [8], "14": [8], "15": [8], "18": [11], "21": [14],
            "24": [17], "27": [20], "28": [20], "31": [23], "32": [23],
            "33": [23], "34": [23], "35": [23]})
        upstream_code_to_post = {
            1060: [14, 27, 24], 1064: [21, 18, 15], 1071: [24],
            1079: [14, 27, 24], 1084: [35, 31, 28, 34, 33, 32]}
        self.assertEqual(lines["codeToPost"], {
            str(k + 1): sorted(v) for k, v in upstream_code_to_post.items()})
        with open(os.path.join(out, "-_-_-_-/inductor_aot_wrapper_code_9.txt"),
                  encoding="utf-8") as f:
            self.assertIn("aoti_torch_cuda_mm_out", f.read().split("\n")[1060])


if __name__ == "__main__":
    unittest.main(verbosity=2)
