"""Amplification (issue 14, item 3): no small trace may make a large report.

A trace can name a long string once (an interned `str` entry, a frame name)
and refer to it from thousands of entries. Each case here builds such a trace
and asserts the promise of docs/reliability.md: the whole output folder
(every file, `raw.log` included) is at most 16 times the input's size, and
the run's peak memory stays below a bound of its own. The bound is the
documented multiple, not a measured time.

Environment: TLPARSE (the binary).
"""

import hashlib
import json
import os
import resource
import shutil
import subprocess
import tempfile
import unittest

TLPARSE = os.environ.get("TLPARSE", "tlparse")
PREFIX = "V0101 00:00:00.000000 1 model.py:1] "
OUTPUT_MULTIPLE = 16
# What a report costs whatever its input (static/, help.html, the index's
# frame), and what each compile folder may add beyond 16x its entries (the
# compilation_metrics page of a 90-byte metrics line is about 1.3 KB, as in
# the Rust tool; with -i the smallest highlighter page, its first paint
# and that paint's style rules written in, is about 12.3 KB).
# docs/reliability.md states the same bound.
FIXED_ALLOWANCE = 256 * 1024
PER_FOLDER_ALLOWANCE = 16 * 1024


def line(envelope):
    return PREFIX + json.dumps(envelope) + "\n"


def read_text(folder, name):
    with open(os.path.join(folder, name), encoding="utf-8") as f:
        return f.read()


def folder_size(path):
    total = 0
    for root, _, names in os.walk(path):
        for n in names:
            total += os.lstat(os.path.join(root, n)).st_size
    return total


class Amplification(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="tl-amplify-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def check(self, text, *extra):
        log = os.path.join(self.tmp, "t.log")
        with open(log, "w") as f:
            f.write(text)
        out = os.path.join(self.tmp, "out")
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        r = subprocess.run([TLPARSE, log, "-o", out, "--no-browser"]
                           + list(extra), capture_output=True,
                           env=dict(os.environ, CI="1"))
        peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        self.assertEqual(r.returncode, 0, r.stderr[-2000:])
        size_in, size_out = os.path.getsize(log), folder_size(out)
        self.assertLessEqual(
            size_out, OUTPUT_MULTIPLE * size_in,
            "output %d bytes for %d bytes of input" % (size_out, size_in))
        # Memory: a fixed allowance plus the same multiple of the input (not
        # in a sanitizer build, whose shadow memory is no measure of ours).
        if peak_kib > before and \
                os.environ.get("TLPARSE_SANITIZED", "0") in ("0", "FALSE", ""):
            self.assertLess(peak_kib * 1024,
                            64 * 2**20 + OUTPUT_MULTIPLE * size_in)
        return out

    def test_long_interned_filename_used_by_2000_compiles(self):
        name = "/very/long/" + "d" * 200000 + ".py"
        text = line({"str": [name, 0]})
        for i in range(2000):
            text += line({"dynamo_start": {"stack": [
                {"line": 1, "name": "f", "filename": 0},
                {"line": 2, "name": "g", "filename": 0}]},
                "frame_id": i, "frame_compile_id": 0, "attempt": 0})
            text += line({"compilation_metrics": {"co_filename": 0,
                                                  "co_name": "g"},
                          "frame_id": i, "frame_compile_id": 0,
                          "attempt": 0})
        out = self.check(text)
        # Pages show the first 1024 bytes of the name and say what is cut.
        with open(os.path.join(out, "index.html"), encoding="utf-8") as f:
            index = f.read()
        marker = "\u2026(%d bytes more)" % (len(name) - 1024)
        self.assertIn(name[:1024] + '<span class="cut">' + marker, index)

    def test_long_frame_name_repeated_in_every_stack(self):
        text = ""
        for i in range(2000):
            text += line({"dynamo_start": {"stack": [
                {"line": 1, "name": "n" * 2000, "filename": "m.py"}]},
                "frame_id": i, "frame_compile_id": 0, "attempt": 0})
        self.check(text)

    def test_long_interned_filename_on_every_metrics_page(self):
        name = "r" * 100000
        text = line({"str": [name, 0]})
        for i in range(500):
            text += line({"dynamo_start": {"stack": [
                {"line": 1, "name": "f", "filename": 0}]},
                "frame_id": i, "frame_compile_id": 0, "attempt": 0})
            text += line({"compilation_metrics": {
                "fail_type": "E", "fail_reason": "short",
                "fail_user_frame_filename": "x.py",
                "restart_reasons": ["graph break"]},
                "frame_id": i, "frame_compile_id": 0, "attempt": 0})
        self.check(text)

    def test_wide_nested_subgraph_blocks_name_at_most_the_text(self):
        # An AOT wrapper whose run_impl holds a block named by a 1,000-byte
        # subgraph name, and in it 150,000 blocks of subgraph `a`: each
        # inner block's qualified name would be 1,002 bytes for its 20 of
        # log, 50 times the input. The names of a text take at most its
        # size plus 64 KiB (tl_subgraph_budget); past that a block has no
        # name (docs/reliability.md).
        n = 150000
        wrapper = ("void AOTInductorModel::run_impl(AtenTensorHandle* h) {\n"
                   "{// subgraph: " + "o" * 1000 + "\n"
                   + "{// subgraph: a\n}\n" * n + "}\n}\n")
        md5 = hashlib.md5(wrapper.encode()).hexdigest()
        text = (line({"graph_dump": {"name": "inductor_aot_wrapper_code",
                                     "type": "cpp"}, "has_payload": md5})
                + "".join("\t" + l + "\n" for l in wrapper.split("\n")))
        self.check(text, "-i")


class Bound(unittest.TestCase):
    """The general bound: 16 times the input, plus a fixed allowance, plus
    an allowance per compile folder."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="tl-bound-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def check(self, text, folders):
        log = os.path.join(self.tmp, "t.log")
        with open(log, "w") as f:
            f.write(text)
        out = os.path.join(self.tmp, "out")
        r = subprocess.run([TLPARSE, log, "-o", out, "--no-browser", "-i"],
                           capture_output=True, env=dict(os.environ, CI="1"))
        self.assertEqual(r.returncode, 0, r.stderr[-2000:])
        found = sum(1 for n in os.listdir(out)
                    if os.path.isdir(os.path.join(out, n))
                    and n not in ("static", "payloads"))
        self.assertEqual(found, folders)
        size_in, size_out = os.path.getsize(log), folder_size(out)
        bound = (OUTPUT_MULTIPLE * size_in + FIXED_ALLOWANCE
                 + PER_FOLDER_ALLOWANCE * folders)
        self.assertLessEqual(size_out, bound, "output %d bytes for %d bytes "
                             "of input in %d folders" % (size_out, size_in,
                                                         folders))
        return out

    def test_an_empty_trace_costs_the_fixed_allowance(self):
        self.check("", 0)

    def test_2000_minimal_metrics_lines_cost_a_folder_each(self):
        out = self.check("".join(line({"compilation_metrics": {},
                                       "frame_id": i, "frame_compile_id": 0,
                                       "attempt": 0})
                                 for i in range(2000)), 2000)
        # A folder without provenance artifacts gets the short page: no
        # script, and it says why there is nothing to show.
        page = read_text(out, "provenance_tracking_-_7_0_0.html")
        self.assertNotIn("<script", page)
        self.assertIn("This compilation logged no pre-grad graph", page)
        self.assertLess(len(page), 2048)

    def test_2000_compiles_with_a_tiny_graph_each_share_the_scripts(self):
        # With -i each of these gets the full highlighter page; its scripts
        # and style are files of static/, written once, so a page costs its
        # data and a small shell (they were 200 KB of inline scripts each):
        # the first paint and its style rules (about 5 KB) are all a page
        # carries of its own.
        graph = "def forward(self, x):\n    return (x,)"
        md5 = hashlib.md5(graph.encode()).hexdigest()
        text = "".join(
            line({"inductor_post_grad_graph": {}, "frame_id": i,
                  "frame_compile_id": 0, "attempt": 0, "has_payload": md5})
            + "".join("\t" + l + "\n" for l in graph.split("\n"))
            for i in range(2000))
        out = self.check(text, 2000)
        page = read_text(out, "provenance_tracking_-_7_0_0.html")
        self.assertIn('<script data-static="static/">', page)
        self.assertIn("return (x,)", page)
        self.assertLess(len(page), 14336)
        for name in ("provenance.js", "provenance.css", "highlight.min.js"):
            self.assertTrue(os.path.isfile(os.path.join(out, "static", name)))

    def test_a_name_of_3000_subgraphs_links_a_bounded_number_of_lines(self):
        # Every one of 3,000 subgraph classes nested in the post-grad graph
        # defines `mul`, and 3,000 pre-grad nodes each map to `mul` alone:
        # linking every definition would make 9 million line pairs. A name
        # alone past 8 definitions links its first (docs/provenance-json.md).
        n = 3000
        pre = ("class GraphModule(torch.nn.Module):\n"
               "    def forward(self, x):\n"
               + "".join("        x_%d = x + %d\n" % (i, i) for i in range(n))
               + "        return (x,)")
        post = ("class GraphModule(torch.nn.Module):\n"
                "    def forward(self, x):\n"
                "        mul = x * 3\n"
                "        return (mul,)\n"
                + "".join("    class sub_%d(torch.nn.Module):\n"
                          "        def forward(self, y):\n"
                          "            mul = y * 2\n"
                          "            return (mul,)\n" % i
                          for i in range(n)))
        mapping = json.dumps({"preToPost": {"x_%d" % i: ["mul"]
                                            for i in range(n)},
                              "version": 2.0})

        def artifact(name, payload, encoding):
            md5 = hashlib.md5(payload.encode()).hexdigest()
            return (line({"artifact": {"name": name, "encoding": encoding},
                          "frame_id": 0, "frame_compile_id": 0, "attempt": 0,
                          "has_payload": md5})
                    + "".join("\t" + l + "\n" for l in payload.split("\n")))
        text = (artifact("before_pre_grad_graph", pre, "string")
                + artifact("after_post_grad_graph", post, "string")
                + artifact("inductor_provenance_tracking_node_mappings",
                           mapping, "json"))
        out = self.check(text, 1)
        with open(os.path.join(out, "provenance_tracking_-_0_0_0.json")) as f:
            view = json.load(f)
        self.assertEqual(view["unresolved"]["post_nodes"], [])
        self.assertEqual(len(view["node_definitions"]["post"]["mul"]), n + 1)
        # each pre-grad line links the outer `mul` (line 3) alone
        self.assertEqual(len(view["lines"]["preToPost"]), n)
        self.assertEqual({tuple(v) for v in view["lines"]["preToPost"].values()},
                         {(3,)})

    def test_1000_compiles_of_one_frame_bound_their_recompile_pages(self):
        # One frame compiled 1,000 times (a new size each call): a page and
        # a JSON file per recompile, 999 of each, each the size of the two
        # small graphs and guard trees it compares, so the report stays
        # within the bound (measured: 13.5 times, 0.15 s of CPU; 4,000
        # compiles 0.65 s).
        def entry(obj, payload, fc):
            md5 = hashlib.md5(payload.encode()).hexdigest()
            return line(dict(obj, frame_id=0, frame_compile_id=fc, attempt=0,
                             has_payload=md5)) + "".join(
                "\t" + l + "\n" for l in payload.split("\n"))
        parts = []
        n = 1000
        for fc in range(n):
            graph = ('class GraphModule(torch.nn.Module):\n'
                     '    def forward(self, L_x_: "f32[%d][1]cpu"):\n'
                     '        l_x_ = L_x_\n'
                     '        sin: "f32[%d][1]cpu" = torch.sin(l_x_)\n'
                     '        return (sin,)' % (fc + 1, fc + 1))
            reasons = "\n".join(
                "0/%d: tensor 'x' size mismatch at index 0. expected %d, "
                "actual %d" % (k, k + 1, fc + 1) for k in range(min(fc, 3)))
            guards = ("\nTREE_GUARD_MANAGER:\n+- RootGuardManager\n"
                      "| +- GuardManager: source=L['x'], accessed_by=X\n"
                      "| | +- TENSOR_MATCH: check_tensor(L['x'], size=[%d])"
                      % (fc + 1))
            parts += [entry({"artifact": {"name": "recompile_reasons",
                                          "encoding": "json"}}, reasons, fc),
                      entry({"dynamo_output_graph": {}}, graph, fc),
                      entry({"dynamo_cpp_guards_str": {}}, guards, fc)]
        out = self.check("".join(parts), n)
        pages = sorted(f for f in os.listdir(out) if f.startswith("recompile_"))
        self.assertEqual(len(pages), 2 * (n - 1))
        with open(os.path.join(out, "recompile_-_0_998_to_999.json")) as f:
            diff = json.load(f)
        # l_x_ and the output (sin,) the same; L_x_ and sin of a new width
        self.assertEqual(diff["graphs"]["dynamo"]["summary"],
                         {"same": 2, "renamed": 0, "changed": 2, "removed": 0,
                          "added": 0})
        self.assertEqual([r["earlier"] for r in diff["reasons"]],
                         ["0/0", "0/1", "0/2"])

    def test_json_nested_127_deep_is_written_compact(self):
        # 2,000 arrays nested 120 deep: indented two spaces per level, as
        # the Rust tool writes JSON, the artifact and the chromium event
        # would each be about 124 times their text. Past 13 times, they are
        # written compact (keys still sorted), and each is reported.
        deep = "[" + ",".join(["[" * 120 + "1" + "]" * 120] * 2000) + "]"
        event = json.dumps({"ph": "i", "name": "e", "ts": 1, "pid": 0,
                            "args": {"deep": json.loads(deep)}},
                           separators=(",", ":"))

        def payload_entry(envelope, payload):
            md5 = hashlib.md5(payload.encode()).hexdigest()
            return line(dict(envelope, frame_id=0, frame_compile_id=0,
                             attempt=0, has_payload=md5)) + "\t" + payload \
                + "\n"
        text = (payload_entry({"artifact": {"name": "deep",
                                            "encoding": "json"}}, deep)
                + payload_entry({"chromium_event": {}}, event))
        log = os.path.join(self.tmp, "t.log")
        out = self.check(text, 1)
        r = subprocess.run([TLPARSE, log, "-o", out + "2", "--no-browser"],
                           capture_output=True, text=True,
                           env=dict(os.environ, CI="1"))
        self.assertEqual(r.stderr.splitlines(), [
            "tlparse: %s:1: -_0_0_0/deep_0.json: written compact: indented, "
            "it would be more than 13 times its %d bytes (2 JSON texts "
            "written compact (nested too deep to indent))" % (log, len(deep))])
        self.assertEqual(read_text(out, "-_0_0_0/deep_0.json"),
                         deep.replace(" ", ""))
        events = json.loads(read_text(out, "chromium_events.json"))
        self.assertEqual(events, [json.loads(event)])
        self.assertIn('\n  {"args":{"deep":[[[', read_text(
            out, "chromium_events.json"))

if __name__ == "__main__":
    unittest.main(verbosity=2)
