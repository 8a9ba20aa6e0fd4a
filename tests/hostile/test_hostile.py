"""Hostile and broken traces, end to end against the real binary (issue 7).

Every trace here is made in the test (big ones in a temporary folder, never
committed), so the suite needs no fixtures. Each case asserts the exact
behaviour: the one-line diagnostics naming the place, the exit code that
docs/cli.md documents (0 for bad input unless --strict), the files written,
and that no trace text becomes markup or script. Where Chromium, node and
playwright-core exist (tests/browser/node_modules) the pages are opened in
headless Chromium to check that nothing from the trace runs.

Environment: TLPARSE (the binary), TLPARSE_WITH_PAGES (1 when the provenance
page is built in), TL_NODE (node, optional).
"""

import hashlib
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import unittest

TLPARSE = os.environ.get("TLPARSE", "tlparse")
WITH_PAGES = os.environ.get("TLPARSE_WITH_PAGES") == "1"
NODE = os.environ.get("TL_NODE") or shutil.which("node")
HERE = os.path.dirname(os.path.abspath(__file__))
PREFIX = b"V0101 00:00:00.000000 1 model.py:1] "
IDS = b'"frame_id": 0, "frame_compile_id": 0, "attempt": 0'

# Payloads that would run if any of them reached a page unescaped.
XSS = '<script>window.__pwned=1;alert(1)</script>' \
      '<img src=x onerror="window.__pwned=1;alert(1)">'
XSS_MARKERS = (b"<script>window.__pwned", b"<img src=x onerror")


def jstr(s):
    """A JSON string literal (bytes) of s."""
    return json.dumps(s).encode()


def entry(kind, payload=None, ids=IDS, md5=None):
    """One record: glog line, envelope, tab-prefixed payload lines."""
    env = b"{" + kind + (b", " + ids if ids else b"")
    if payload is not None:
        env += b', "has_payload": "%s"' % (
            md5 or hashlib.md5(payload).hexdigest()).encode()
    out = PREFIX + env + b"}\n"
    if payload is not None:
        out += b"".join(b"\t" + l + b"\n" for l in payload.split(b"\n"))
    return out


def artifact(name, payload, encoding=b"string"):
    return entry(b'"artifact": {"name": ' + jstr(name) + b', "encoding": "'
                 + encoding + b'"}', payload)


def run(args):
    return subprocess.run([TLPARSE] + args, capture_output=True,
                          env=dict(os.environ, CI="1"))


class Case(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="tl-hostile-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def write(self, name, data):
        path = os.path.join(self.tmp, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def parse(self, log, *extra):
        out = os.path.join(self.tmp, "out%d" % len(os.listdir(self.tmp)))
        r = run([log, "-o", out, "--no-browser"] + list(extra))
        return r, out

    def read(self, out, rel):
        with open(os.path.join(out, rel), "rb") as f:
            return f.read()

    def files(self, out):
        found = set()
        for root, _, names in os.walk(out):
            for n in names:
                found.add(os.path.relpath(os.path.join(root, n), out))
        return found

    def stderr_lines(self, r):
        return r.stderr.decode("utf-8", "replace").splitlines()

    def assert_report_written(self, out):
        """The report's own files exist and the index is a whole page."""
        for rel in ("index.html", "compile_directory.json", "raw.jsonl",
                    "chromium_events.json", "failures_and_restarts.html",
                    "help.html", "static/report.css"):
            self.assertTrue(os.path.exists(os.path.join(out, rel)), rel)
        self.assertTrue(self.read(out, "index.html").endswith(b"</html>\n"))
        json.loads(self.read(out, "compile_directory.json"))
        json.loads(self.read(out, "chromium_events.json"))


# --- a provenance trace carrying the payload everywhere ------------------

PRE = b"def forward(self, x):\n    relu = torch.relu(x)\n    return (relu,)"
POST = (b"def forward(self, arg0_1):\n"
        b"    relu = torch.ops.aten.relu.default(arg0_1)\n"
        b"    # " + XSS.encode() + b"\n    return (relu,)")
CODE = (b"# AOT ID: ['0_inference']\n"
        b"# " + XSS.encode() + b"\n"
        b"s = '</script><script>window.__pwned=1</script>'\n"
        b"def call(args):\n"
        b"    # [Provenance debug handles] triton_poi_fused_relu_0:1\n"
        b"    triton_poi_fused_relu_0.run(buf0)\n"
        b"    return (buf0, )")
KERNEL_KEY = XSS + ":2"


def hostile_trace():
    mapping = json.dumps({
        "preToPost": {"relu": ["relu"], XSS: ["relu"]},
        "postToPre": {"relu": ["relu", XSS]},
        "cppCodeToPost": {"triton_poi_fused_relu_0:1": ["relu"],
                          KERNEL_KEY: ["relu", XSS]},
        "postToCppCode": {"relu": ["triton_poi_fused_relu_0:1", KERNEL_KEY]},
        "version": 2.0}).encode()
    stacks = json.dumps({"triton_poi_fused_relu_0:1": [
        'File "model.py", line 3\\n    ' + XSS], KERNEL_KEY: [XSS]}).encode()
    metrics = json.dumps({"fail_type": XSS, "fail_reason": XSS,
                          "restart_reasons": [XSS], XSS: 1}).encode()
    return (
        PREFIX + b'{"str": [' + jstr(XSS) + b", 0]}\n"
        + entry(b'"dynamo_start": {"stack": [{"line": 1, "name": '
                + jstr(XSS) + b', "filename": 0}]}')
        + artifact("before_pre_grad_graph", PRE)
        + artifact("after_post_grad_graph", POST)
        + entry(b'"inductor_output_code": {"filename": '
                + jstr("/tmp/" + XSS + ".py") + b"}", CODE)
        + artifact("inductor_provenance_tracking_node_mappings", mapping,
                   b"json")
        + artifact("inductor_provenance_tracking_kernel_stack_traces",
                   stacks, b"json")
        + artifact(XSS, XSS.encode())
        + entry(b'"compilation_metrics": ' + metrics)
        + entry(b'"dynamo_guards": {}', json.dumps([{"code": XSS}]).encode())
        + entry(b'"link": {"name": ' + jstr(XSS)
                + b', "url": "javascript:window.__pwned=1"}')
        + entry(b'"link": {"name": "tab", "url": "java\\tscript:alert(1)"}')
        + entry(b'"link": {"name": "data", "url": '
                b'"data:text/html,<script>alert(1)</script>"}')
        + entry(b'"link": {"name": "ok", "url": "https://pytorch.org/"}'))


class Markup(Case):
    """HTML or script in node names, kernel names, artifact names, code
    text, stack traces and link entries never becomes markup."""

    def setUp(self):
        super().setUp()
        self.log = self.write("hostile.log", hostile_trace())
        self.r, self.out = self.parse(self.log, "-i")

    def pages(self):
        return sorted(p for p in self.files(self.out) if p.endswith(".html"))

    def test_exit_code_and_diagnostics_are_exact(self):
        self.assertEqual(self.r.returncode, 0, self.r.stderr)
        # Lines 29, 30, 31 of the trace are the three unsafe links.
        self.assertEqual(self.stderr_lines(self.r), [
            "tlparse: %s:29: link \"%s\" has an unsafe or missing URL (shown "
            "as text) (3 envelopes of an unexpected shape)" % (self.log, XSS)])
        self.assert_report_written(self.out)

    def test_no_page_holds_the_payload_unescaped(self):
        pages = self.pages()
        self.assertIn("index.html", pages)
        # Running numbers: pre 0, post 1, code 2, mappings 3, stack traces
        # 4 (its readable page uses 5), the artifact 6, metrics 7, guards 8.
        self.assertIn("-_0_0_0/compilation_metrics_7.html", pages)
        self.assertIn("-_0_0_0/dynamo_guards_8.html", pages)
        for rel in pages:
            data = self.read(self.out, rel)
            for marker in XSS_MARKERS:
                self.assertNotIn(marker, data, rel)
            self.assertNotRegex(data, rb'(?i)href="\s*(javascript|data)', rel)
        escaped = b"&lt;script&gt;window.__pwned=1;alert(1)&lt;/script&gt;"
        # Shown as text where a person reads it: the diagnostic, the frame's
        # file and name in the stack trie and again next to the compile id
        # ("file:1 in name", twice each), the failure and the link name;
        # and the provenance view's line, in the Provenance Tracking section
        # and under its compile id, names the frame (the function, and the
        # file in its title): four more.
        index = self.read(self.out, "index.html")
        self.assertEqual(index.count(escaped), 11)
        self.assertIn(escaped, self.read(
            self.out, "-_0_0_0/compilation_metrics_7.html"))
        self.assertIn(escaped, self.read(
            self.out, "-_0_0_0/inductor_provenance_tracking_kernel_stack_"
            "traces_4_readable.html"))

    def test_javascript_links_are_text_not_anchors(self):
        index = self.read(self.out, "index.html").decode()
        self.assertIn('<li><a href="https://pytorch.org/">ok</a>', index)
        for name in ("tab", "data"):
            # Rust's link text then its (empty) cache marker: two spaces.
            self.assertIn("<li>%s  <span class=\"num\">" % name, index)
        cd = json.loads(self.read(self.out, "compile_directory.json"))
        # Keyed by compile id as the Rust tool keys it; a link whose URL is
        # not http(s) keeps its entry, with an empty URL.
        urls = [a["url"] for a in cd["[0/0]"]["artifacts"]
                if a["name"] in (XSS, "tab", "data")]
        self.assertEqual(urls, ["", "", ""])

    def test_artifact_name_is_reduced_to_a_safe_file_name(self):
        safe = re.sub(r"[^A-Za-z0-9_.-]", "_", XSS)
        self.assertIn("-_0_0_0/%s_6.txt" % safe, self.files(self.out))
        self.assertEqual(self.read(self.out, "-_0_0_0/%s_6.txt" % safe),
                         XSS.encode())

    @unittest.skipUnless(WITH_PAGES, "provenance page not built in: skipped")
    def test_provenance_page_embeds_texts_as_inert_json(self):
        page = self.read(self.out, "provenance_tracking_-_0_0_0.html")
        # the view, four texts and the loader of static/
        self.assertEqual(page.count(b"<script"), 6)
        self.assertIn(b"\\u003cscript\\u003ewindow.__pwned", page)
        for marker in XSS_MARKERS + (b"</script><script>window",):
            self.assertNotIn(marker, page)

    @unittest.skipUnless(NODE, "node is absent: headless check skipped")
    def test_in_headless_chromium_nothing_runs(self):
        pages = [os.path.join(self.out, p) for p in self.pages()
                 if p != "help.html"]
        r = subprocess.run([NODE, os.path.join(HERE, "nothing_runs.mjs")]
                           + pages, capture_output=True, text=True,
                           timeout=300)
        if r.returncode == 77:
            self.skipTest(r.stdout.strip())
        self.assertEqual(r.returncode, 0, r.stderr)
        results = json.loads(r.stdout.strip().splitlines()[-1])
        self.assertEqual(len(results), len(pages))
        for page, res in results.items():
            self.assertEqual((res["pwned"], res["dialogs"], res["badLinks"]),
                             (False, 0, []), page)

    def test_in_firefox_the_highlighter_runs_nothing(self):
        pairs = []
        for p in self.pages():
            if p.startswith("provenance_tracking_"):
                pairs += [os.path.join(self.out, p),
                          os.path.join(self.out, p[:-len(".html")] + ".json")]
        self.assertTrue(pairs)
        r = subprocess.run([NODE, os.path.join(
            HERE, "..", "browser", "firefox_check.mjs")] + pairs,
            capture_output=True, text=True, timeout=300)
        if r.returncode == 77:
            self.skipTest(r.stdout.strip())
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("nothing injected ran", r.stdout)


class Paths(Case):
    """Names that try to leave the output folder write nothing outside."""

    def test_traversal_absolute_and_nul_names_stay_inside(self):
        trace = (artifact("../../escape", b"a")
                 + artifact("/etc/passwd", b"b")
                 + entry(b'"artifact": {"name": "x\\u0000/../../nul", '
                         b'"encoding": "string"}', b"c")
                 + entry(b'"dump_file": {"name": "../../../dump"}', b"d")
                 + entry(b'"optimize_ddp_split_child": {"name": "/../../c"}',
                         b"e")
                 + entry(b'"inductor_output_code": {"filename": '
                         b'"/x/../../../code.py"}', b"f")
                 + entry(b'"dynamo_output_graph": {}', b"g",
                         ids=b'"frame_id": 0, "frame_compile_id": -1'))
        log = self.write("t.log", trace)
        before = set(os.listdir(self.tmp))
        r, out = self.parse(log)
        self.assertEqual(r.returncode, 0, r.stderr)
        # frame_compile_id -1 is no compile id: as the Rust tool, the entry
        # goes to unknown_<its line>/ (line 13: six entries of two lines).
        self.assertEqual(r.stderr.decode(), (
            "tlparse: %s:13: compile id field is not an integer from 0 to "
            "2^32-1 in \"dynamo_output_graph\" entry (its files go to "
            "unknown_13/) (1 entry whose compile id cannot be read)\n")
            % log)
        self.assertEqual(set(os.listdir(self.tmp)) - before,
                         {os.path.basename(out)})
        self.assertFalse(os.path.exists("/etc/passwd_1.txt"))
        got = {p for p in self.files(out)
               if p.startswith(("-_", "unknown_", "dump_file/"))}
        self.assertEqual(got, {
            "-_0_0_0/_._.._escape_0.txt",
            "-_0_0_0/_etc_passwd_1.txt",
            "-_0_0_0/x_2.txt",  # the name ends at its NUL
            # dump_file pages go to dump_file/ as in the Rust tool, which
            # would write ../../../dump.html outside the report.
            "dump_file/_._.._.._dump.html",
            "-_0_0_0/optimize_ddp_split_child__.._.._c_4.txt",
            "-_0_0_0/inductor_output_code_code_5.html",
            "-_0_0_0/inductor_output_code_code_5.py",
            "unknown_13/dynamo_output_graph_6.txt"})
        self.assertEqual(self.read(out, "-_0_0_0/x_2.txt"), b"c")

    def test_overwrite_through_a_symlinked_output_is_refused(self):
        outside = os.path.join(self.tmp, "outside")
        os.mkdir(outside)
        self.write("outside/precious.txt", b"keep")
        link = os.path.join(self.tmp, "out-link")
        os.symlink(outside, link)
        log = self.write("e.log", b"")
        r = run([log, "-o", link, "--overwrite", "--no-browser"])
        self.assertEqual(r.returncode, 1)
        self.assertIn(b"it is a symbolic link (nothing was deleted)",
                      r.stderr)
        self.assertEqual(os.listdir(outside), ["precious.txt"])
        self.assertTrue(os.path.islink(link))

    def test_long_names_are_cut_not_fatal(self):
        name = "n" * 300
        log = self.write("t.log", artifact(name, b"x")
                         + entry(b'"dynamo_output_graph": {}', b"g"))
        r, out = self.parse(log, "--strict")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual({p for p in self.files(out) if p.startswith("-_")},
                         {"-_0_0_0/%s_0.txt" % ("n" * 200),
                          "-_0_0_0/dynamo_output_graph_1.txt"})


class Broken(Case):
    """Damaged input: one diagnostic line naming the place, the rest kept."""

    GOOD = (entry(b'"dynamo_output_graph": {}', b"graph one")
            + artifact("kept", b"kept payload"))

    def kept(self, out):
        self.assertEqual(self.read(out, "-_0_0_0/dynamo_output_graph_0.txt"),
                         b"graph one")
        self.assertEqual(self.read(out, "-_0_0_0/kept_1.txt"),
                         b"kept payload")
        self.assert_report_written(out)

    def test_empty_file_writes_an_empty_report(self):
        log = self.write("empty.log", b"")
        r, out = self.parse(log, "--strict")
        self.assertEqual((r.returncode, r.stdout.decode(), r.stderr),
                         (0, "tlparse: wrote %s/index.html\n" % out, b""))
        self.assert_report_written(out)
        self.assertEqual(json.loads(self.read(out, "compile_directory.json")),
                         {})
        # As the Rust tool writes them for an empty log (checked with 0.4.3).
        self.assertEqual(self.read(out, "chromium_events.json"), b"[]")
        self.assertEqual(self.read(out, "raw.jsonl"),
                         b'{"string_table":[null]}\n')

    def test_cut_inside_the_last_envelope(self):
        cut = entry(b'"artifact": {"name": "lost", "encoding": "string"}',
                    b"p")[:60]
        log = self.write("t.log", self.GOOD + cut)
        r, out = self.parse(log)
        self.assertEqual(r.returncode, 0)
        # cJSON reports the end of a cut line as its last character.
        self.assertEqual(self.stderr_lines(r), [
            "tlparse: %s:5: bad JSON envelope at column %d (1 broken JSON "
            "envelope)" % (log, len(cut))])
        self.kept(out)
        r, _ = self.parse(log, "--strict")
        self.assertEqual(r.returncode, 1)

    def test_cut_inside_the_glog_prefix(self):
        log = self.write("t.log", self.GOOD + PREFIX[:10])
        r, out = self.parse(log)
        self.assertEqual(r.returncode, 0)
        self.assertEqual(self.stderr_lines(r), [
            "tlparse: %s:5: not a glog line (1 line that is not a glog "
            "line)" % log])
        self.kept(out)

    def test_deeply_nested_envelope_is_bad_json(self):
        deep = PREFIX + b'{"artifact": {"name": "d", "x": ' + b"[" * 100000 \
            + b"]" * 100000 + b"}, " + IDS + b"}\n"
        log = self.write("t.log", self.GOOD + deep)
        r, out = self.parse(log)
        self.assertEqual(r.returncode, 0)
        lines = self.stderr_lines(r)
        self.assertEqual(len(lines), 1, lines)
        # cJSON stops at its nesting limit (1000 levels): the 999th '['
        # nested in the envelope's two objects (1-based column).
        col = len(PREFIX) + len(b'{"artifact": {"name": "d", "x": ') + 999
        self.assertEqual(lines[0], "tlparse: %s:5: bad JSON envelope at "
                         "column %d (1 broken JSON envelope)" % (log, col))
        self.kept(out)

    def test_a_chromium_event_that_is_not_json_is_left_out_alone(self):
        good = b'{"name": "b", "ts": 2, "args": {"z": 1, "a": 2}, "ph": "B"}'
        log = self.write("t.log", self.GOOD
                         + entry(b'"chromium_event": {}', good, ids=None)
                         + entry(b'"chromium_event": {}', b'{"name": "x",',
                                 ids=None)
                         + entry(b'"chromium_event": {}', b"[1, 2.50]",
                                 ids=None))
        r, out = self.parse(log)
        self.assertEqual(r.returncode, 0, r.stderr)
        # the record on line 7 (its glog line), named once
        self.assertEqual(r.stderr.count(b"chromium_event payload is not JSON"),
                         1, r.stderr)
        self.assertIn(b"t.log:7: chromium_event payload is not JSON", r.stderr)
        # the other two, re-written as the Rust tool writes them
        self.assertEqual(self.read(out, "chromium_events.json"), (
            b'[\n  {\n    "args": {\n      "a": 2,\n      "z": 1\n    },\n'
            b'    "name": "b",\n    "ph": "B",\n    "ts": 2\n  },\n'
            b'  [\n    1,\n    2.5\n  ]\n]'))
        self.kept(out)

    def test_deeply_nested_payloads_are_kept_verbatim(self):
        deep = b"[" * 100000 + b"]" * 100000
        log = self.write("t.log", self.GOOD
                         + entry(b'"dynamo_guards": {}', deep)
                         + artifact("inductor_provenance_tracking_kernel_"
                                    "stack_traces", deep, b"json")
                         + artifact("inductor_provenance_tracking_node_"
                                    "mappings", deep, b"json"))
        r, out = self.parse(log, "-i")
        # The guards payload is not a list of guards: as in the Rust tool,
        # no guards page (so no number used) and a payload failure, which
        # --strict would turn into exit code 1.
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(b"dynamo_guards payload is not JSON", r.stderr)
        self.kept(out)
        self.assertEqual(self.read(out, "-_0_0_0/inductor_provenance_"
                                   "tracking_kernel_stack_traces_2.json"),
                         deep)
        self.assertIn(b"The payload is not a JSON object", self.read(
            out, "-_0_0_0/inductor_provenance_tracking_kernel_stack_traces"
            "_2_readable.html"))

    def test_invalid_utf8_is_kept_byte_exact(self):
        bad = b"\xff\xfe caf\xc3 \xed\xa0\x80 \xf4\x90\x80\x80"
        log = self.write("t.log", self.GOOD + artifact("u", bad)
                         + entry(b'"artifact": {"name": "\xff\xfe", '
                                 b'"encoding": "string"}', b"v"))
        r, out = self.parse(log, "--strict")
        # The files keep the bytes; raw.jsonl must stay valid JSON, so its
        # copy of the name says U+FFFD, and says so (the Rust tool stops at
        # the first invalid byte and writes nothing).
        self.assertEqual((r.returncode, r.stderr.decode()), (0, (
            "tlparse: %s:7: 2 invalid UTF-8 sequences written as U+FFFD in "
            "raw.jsonl (1 entry changed or left out in raw.jsonl)\n")
            % log))
        line = self.read(out, "raw.jsonl").split(b"\n")[4]
        self.assertEqual(json.loads(line)["artifact"]["name"], "\ufffd\ufffd")
        self.kept(out)
        self.assertEqual(self.read(out, "-_0_0_0/u_2.txt"), bad)
        self.assertEqual(self.read(out, "-_0_0_0/___3.txt"), b"v")

    def test_nul_bytes_in_payload_kept_and_after_envelope_reported(self):
        log = self.write("t.log", self.GOOD + artifact("z", b"a\x00b\x00")
                         + PREFIX + b'{"dynamo_output_graph": {}}\x00junk\n')
        r, out = self.parse(log)
        self.assertEqual(r.returncode, 0)
        col = len(PREFIX) + len(b'{"dynamo_output_graph": {}}') + 1
        self.assertEqual(self.stderr_lines(r), [
            "tlparse: %s:7: bad JSON envelope at column %d (1 broken JSON "
            "envelope)" % (log, col)])
        self.kept(out)
        self.assertEqual(self.read(out, "-_0_0_0/z_2.txt"), b"a\x00b\x00")

    def test_crlf_payload_lines_read_like_lf(self):
        payload = b"line one\nline two\rwith a lone CR"
        crlf = artifact("c", payload).replace(b"\n", b"\r\n")
        log = self.write("t.log", self.GOOD.replace(b"\n", b"\r\n") + crlf)
        r, out = self.parse(log, "--strict")
        self.assertEqual((r.returncode, r.stderr), (0, b""))
        self.kept(out)
        self.assertEqual(self.read(out, "-_0_0_0/c_2.txt"), payload)

    def test_two_envelopes_run_together_are_bad_json(self):
        line = PREFIX + b'{"dynamo_output_graph": {}}{"link": {}}\n'
        log = self.write("t.log", self.GOOD + line)
        r, out = self.parse(log)
        self.assertEqual(r.returncode, 0)
        col = len(PREFIX) + len(b'{"dynamo_output_graph": {}}') + 1
        self.assertEqual(self.stderr_lines(r), [
            "tlparse: %s:5: bad JSON envelope at column %d (1 broken JSON "
            "envelope)" % (log, col)])
        self.kept(out)

    def test_huge_string_table_index_is_refused(self):
        log = self.write("t.log", PREFIX + b'{"str": ["a", 99999999999]}\n'
                         + PREFIX + b'{"str": ["b", 1e300]}\n' + self.GOOD)
        r, out = self.parse(log)
        self.assertEqual(r.returncode, 0)
        self.assertEqual(self.stderr_lines(r), [
            "tlparse: %s:1: \"str\" index 99999999999 is not the next index "
            "(not kept) (2 envelopes of an unexpected shape)" % log])
        self.kept(out)

    def test_folder_of_mixed_files_with_latest(self):
        d = os.path.join(self.tmp, "traces")
        os.mkdir(d)
        self.write("traces/old.log", artifact("old", b"o"))
        self.write("traces/binary.bin", bytes(range(256)))
        self.write("traces/new.log", self.GOOD)
        os.mkdir(os.path.join(d, "sub"))
        self.write("traces/.hidden", b"x")
        os.mkfifo(os.path.join(d, "fifo"))
        os.symlink("/nonexistent", os.path.join(d, "dangling"))
        for i, name in enumerate(("old.log", "binary.bin", "new.log", "sub",
                                  ".hidden", "fifo")):
            t = 1000000 + i
            os.utime(os.path.join(d, name), (t, t))
        out = os.path.join(self.tmp, "o")
        r = run([d, "--latest", "--no-browser", "-o", out, "--strict"])
        self.assertEqual((r.returncode, r.stderr), (0, b""))
        self.kept(out)
        self.assertEqual({p for p in self.files(out) if p.startswith("-_")},
                         {"-_0_0_0/dynamo_output_graph_0.txt",
                          "-_0_0_0/kept_1.txt"})
        empty = os.path.join(self.tmp, "only-folders")
        os.makedirs(os.path.join(empty, "a"))
        r = run([empty, "--latest", "--no-browser", "-o",
                 os.path.join(self.tmp, "o2")])
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stderr.decode(), "tlparse: %s has no files to "
                         "read\n" % empty)


class Big(Case):
    """Sizes: generated here, in the temporary folder, never committed."""

    def test_100_mb_single_line_payload(self):
        payload = b"x" * (100 * 1024 * 1024)
        log = self.write("big.log", Broken.GOOD + artifact("big", payload))
        del payload
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        r, out = self.parse(log, "--strict")
        peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        self.assertEqual((r.returncode, r.stderr), (0, b""))
        path = os.path.join(out, "-_0_0_0/big_2.txt")
        self.assertEqual(os.path.getsize(path), 100 * 1024 * 1024)
        with open(path, "rb") as f:
            self.assertEqual(hashlib.md5(f.read()).hexdigest(),
                             hashlib.md5(b"x" * (100 << 20)).hexdigest())
        # Memory is bounded by a few copies of the largest payload (line,
        # payload, its raw.jsonl string), not by the file. ThreadSanitizer's
        # shadow memory multiplies every allocation, so its build skips this.
        if peak_kb > before and os.environ.get("TLPARSE_TSAN") != "1":
            self.assertLess(peak_kb * 1024, 8 * (100 << 20))

    def test_a_million_tiny_entries(self):
        event = b'{"ph": "i"}'
        one = entry(b'"chromium_event": {}', event, ids=None)
        log = self.write("many.log", one * 1000000)
        r, out = self.parse(log, "--strict")
        self.assertEqual((r.returncode, r.stderr), (0, b""))
        events = json.loads(self.read(out, "chromium_events.json"))
        self.assertEqual(len(events), 1000000)
        self.assertEqual(events[0], {"ph": "i"})
        # As the Rust tool, raw.jsonl leaves chromium events out: only the
        # string table's line is left.
        self.assertEqual(self.read(out, "raw.jsonl"),
                         b'{"string_table":[null]}\n')
        self.assertIn(b"1000000 entries", self.read(out, "index.html"))

    def test_a_stack_of_half_a_million_frames(self):
        # Issue 14: such a stack crashed the recursive trie. Every frame is
        # one node of one path; the innermost is the last the index shows.
        n = 500000
        frames = b", ".join(b'{"line": %d, "name": "f", "filename": 0}' % i
                            for i in range(n))
        log = self.write("deep.log", entry(b'"str": ["deep.py", 0]', ids=None)
                         + entry(b'"dynamo_start": {"stack": [' + frames
                                 + b"]}"))
        # With a 1 MiB stack (threads get the same in glibc): a recursion
        # over the frames would need tens of MB of it, so a pass here means
        # the stack use does not grow with the depth, and any depth (10^7
        # frames was run by hand, docs/reliability.md) costs memory only.
        def small_stack():
            resource.setrlimit(resource.RLIMIT_STACK, (2**20, 2**20))
        out = os.path.join(self.tmp, "out-deep")
        r = subprocess.run([TLPARSE, log, "-o", out, "--no-browser",
                            "--strict"], capture_output=True,
                           env=dict(os.environ, CI="1"),
                           preexec_fn=small_stack)
        self.assertEqual((r.returncode, r.stderr), (0, b""))
        index = self.read(out, "index.html")
        self.assertEqual(index.count(b"deep.py:"), n + 1)  # + the h3 frame
        self.assertIn(b'class="frame">deep.py:%d in f</span>' % (n - 1), index)


class ViewsWithoutMd5(Case):
    """Views are analyzed once per distinct content, keyed by their
    artifacts' md5s; payload lines kept after entries without has_payload
    have no md5, so such views must each be analyzed, not copied from the
    first (they once all got [0/0]'s lines)."""

    def test_each_view_gets_its_own_lines(self):
        def bare(kind, payload, frame):
            ids = b'"frame_id": %d, "frame_compile_id": 0, "attempt": 0' % frame
            return (PREFIX + b"{" + kind + b", " + ids + b"}\n" +
                    b"".join(b"\t" + l + b"\n" for l in payload.split(b"\n")))
        log = b""
        for frame, pad in ((0, 0), (1, 5), (2, 9)):
            code = (b"# AOT ID: ['0_inference']\n" + b"# pad\n" * pad +
                    b"def call(args):\n    buf0 = empty_strided_cpu((4, ), "
                    b"(1, ), torch.float32)\n    return (buf0, )")
            log += bare(b'"inductor_output_code": {"filename": "/tmp/x%d.py"}'
                        % frame, code, frame)
        r, out = self.parse(self.write("bare.log", log), "-i")
        self.assertEqual(r.returncode, 0, r.stderr)
        firsts = []
        for frame in range(3):
            view = json.loads(self.read(
                out, "provenance_tracking_-_%d_0_0.json" % frame))
            with open(os.path.join(out, view["artifacts"]["code"]), "rb") as f:
                lines = f.read().split(b"\n")
            firsts.append(view["entry"]["first"])
            self.assertEqual(lines[view["entry"]["first"] - 1],
                             b"def call(args):", frame)
        # "def call" after 1 + pad lines of each code.
        self.assertEqual(firsts, [2, 7, 11])


class Mappings(Case):
    """Hostile node mappings: entries of the wrong type are skipped, listed
    in the view's JSON and reported with the place of the mapping artifact;
    invalid UTF-8 in names still gives a valid UTF-8 JSON file."""

    def test_wrong_typed_mapping_entries_are_reported_with_their_place(self):
        mapping = json.dumps({"preToPost": {"x": "relu", "y": ["mul", 7]},
                              "postToPre": []}).encode()
        log = self.write("m.log", entry(b'"dynamo_output_graph": {}', b"g")
                         + artifact("inductor_provenance_tracking_node_"
                                    "mappings", mapping, b"json"))
        r, out = self.parse(log, "-i")
        self.assertEqual(r.returncode, 0, r.stderr)
        # The mapping's envelope is line 3 (line 2 is the graph's payload).
        self.assertEqual(self.stderr_lines(r), [
            "tlparse: %s:3: node mappings: 3 entries of the wrong type "
            "skipped, first preToPost[\"x\"]: a string, not a list of names "
            "(1 provenance view with problems)" % log])
        view = json.loads(self.read(out, "provenance_tracking_-_0_0_0.json"))
        self.assertEqual([(m["section"], m["key"]) for m in view["malformed"]],
                         [("preToPost", "x"), ("preToPost", "y"),
                          ("postToPre", "")])


    def test_invalid_utf8_in_node_names_gives_valid_json(self):
        mapping = b'{"preToPost": {"x\xff\xfe": ["relu\xc0"]}}'
        log = self.write("u.log", entry(b'"dynamo_output_graph": {}', b"g")
                         + artifact("inductor_provenance_tracking_node_"
                                    "mappings", mapping, b"json"))
        r, out = self.parse(log, "-i")
        self.assertEqual(r.returncode, 0, r.stderr)
        # The artifact is re-written as JSON (pretty, sorted, as the Rust
        # tool), so U+FFFD replaces the bytes there already, and says so.
        self.assertEqual(self.stderr_lines(r), [
            "tlparse: %s:3: -_0_0_0/inductor_provenance_tracking_node_"
            "mappings_1.json: 3 invalid UTF-8 sequences written as U+FFFD "
            "(the exact bytes are in raw.log) (1 JSON artifact whose invalid "
            "UTF-8 was written as U+FFFD)" % log])
        view = json.loads(self.read(out, "provenance_tracking_-_0_0_0.json")
                          .decode("utf-8", "strict"))
        self.assertEqual(view["unresolved"]["pre_nodes"], ["x\ufffd\ufffd"])
        self.assertEqual(view["unresolved"]["post_nodes"], ["relu\ufffd"])

    def test_lone_surrogate_escapes_become_one_replacement_each(self):
        # Python's json.dumps writes "\udc00" for a lone surrogate: decoded,
        # its 3-byte form (ED B0 80) is no UTF-8, in any file we write.
        arts = b'{"a": "x\\udc00y", "\\ud800k": [1]}'
        event = b'{"name": "e\\udfff", "ph": "i", "ts": 1, "pid": 0}'
        mapping = b'{"preToPost": {"x\\udc00": ["relu"]}}'
        log = self.write("s.log", entry(b'"dynamo_output_graph": {}', b"g")
                         + artifact("sur", arts, b"json")
                         + entry(b'"chromium_event": {}', event)
                         + artifact("inductor_provenance_tracking_node_"
                                    "mappings", mapping, b"json"))
        r, out = self.parse(log, "-i")
        self.assertEqual(r.returncode, 0, r.stderr)
        # Lines: graph 1, its payload 2, sur 3, event 5, mapping 7.
        self.assertEqual(self.stderr_lines(r), [
            "tlparse: %s:3: -_0_0_0/sur_1.json: 2 invalid UTF-8 sequences "
            "written as U+FFFD (the exact bytes are in raw.log) (3 JSON "
            "artifacts whose invalid UTF-8 was written as U+FFFD)" % log])
        self.assertEqual(json.loads(self.read(out, "-_0_0_0/sur_1.json")),
                         {"a": "x\ufffdy", "\ufffdk": [1]})
        self.assertEqual(json.loads(self.read(out, "chromium_events.json"))
                         [0]["name"], "e\ufffd")
        view = json.loads(self.read(out, "provenance_tracking_-_0_0_0.json"))
        self.assertEqual(view["unresolved"]["pre_nodes"], ["x\ufffd"])
        # Every file of the report is UTF-8; every .json parses.
        for rel in sorted(self.files(out)):
            data = self.read(out, rel)
            if rel == "raw.log":
                continue  # the exact bytes of the trace, by design
            data.decode("utf-8", "strict")
            if rel.endswith(".json"):
                json.loads(data)


class GuardMarks(Case):
    """A changed guard's before and after are shown with what differs in
    <mark>s: the guard's text stays escaped inside and around the marks, a
    mark never splits a character, and a guard too long to compare token by
    token is marked from its first difference to its last."""

    @staticmethod
    def guards(note, size, ys):
        return ("TREE_GUARD_MANAGER:\n+- RootGuardManager\n"
                "| +- GuardManager: source=L['x'], accessed_by=FrameLocals\n"
                "| | +- TENSOR_MATCH: check_tensor(L['x'], size=[%d], "
                "note=\"<script>%s</script>\")\n"
                "| +- GuardManager: source=L['y'], accessed_by=FrameLocals\n"
                "| | +- TENSOR_MATCH: check_tensor(L['y'], size=[%s])"
                % (size, note, ", ".join(map(str, ys)))).encode()

    def test_marks_stay_inside_the_escaped_text(self):
        ys = list(range(3000))
        later = list(ys)
        later[10], later[2990] = 10000, 29900
        ids = b'"frame_id": 0, "frame_compile_id": %d, "attempt": 0'
        log = self.write("t.log", b"".join(
            entry(b'"dynamo_cpp_guards_str": {}', self.guards(note, size, y),
                  ids=ids % fc)
            for fc, note, size, y in ((0, "\u00e91", 4, ys),
                                       (1, "\u00e92", 5, later))))
        r, out = self.parse(log)
        self.assertEqual(r.returncode, 0, r.stderr)
        page = self.read(out, "recompile_-_0_0_to_1.html").decode()
        for marker in XSS_MARKERS:
            self.assertNotIn(marker.decode(), page)
        self.assertIn(
            "<td><code>check_tensor(L[&#39;x&#39;], size=[<mark>4</mark>], "
            "note=&quot;&lt;script&gt;<mark>\u00e91</mark>&lt;/script&gt;"
            "&quot;)</code></td><td><code>check_tensor(L[&#39;x&#39;], "
            "size=[<mark>5</mark>], note=&quot;&lt;script&gt;<mark>\u00e92"
            "</mark>&lt;/script&gt;&quot;)</code></td>", page)
        head = "check_tensor(L[&#39;y&#39;], size=[%s, " % ", ".join(
            map(str, range(10)))
        tail = ", %s])" % ", ".join(map(str, range(2991, 3000)))
        self.assertIn(
            "<td><code>%s<mark>%s</mark>%s</code></td><td><code>%s<mark>%s"
            "</mark>%s</code></td>" % (
                head, ", ".join(map(str, ys[10:2991])), tail,
                head, ", ".join(map(str, later[10:2991])), tail), page)
        self.assertEqual(page.count("<mark>"), 6)


class TornSessionStart(Case):
    """A log of two sessions (torch._dynamo.reset() between them), each
    compiling frame 0 twice, whose first dynamo_start, session 1's [0/0],
    is torn: [0/1]'s start is then the first, and without it no id is
    started twice before session 2's [0/1]. Dynamo gives [0/0] only to the
    first compile after a start or a reset, so session 2 still begins at
    its [0/0], and each session's [0/0] is compared with its own [0/1]."""

    @staticmethod
    def compile_(fc, size, before=None, torn=False):
        """Frame 0's compile `fc` for x of `size` (after one for `before`:
        its recompile reason first, as Dynamo logs it)."""
        ids = b'"frame_id": 0, "frame_compile_id": %d, "attempt": 0' % fc
        out = b""
        if before is not None:
            out += entry(b'"artifact": {"name": "recompile_reasons", '
                         b'"encoding": "json"}',
                         b"0/0: tensor 'x' size mismatch at index 0. "
                         b"expected %d, actual %d" % (before, size), ids=ids)
        start = entry(b'"dynamo_start": {"stack": [{"line": 1, "name": "f", '
                      b'"filename": 0}]}', ids=ids)
        if torn:
            start = start.replace(b'{"dynamo_start"', b'{"dynamo_start"]', 1)
        return out + start + entry(
            b'"dynamo_cpp_guards_str": {}',
            b"TREE_GUARD_MANAGER:\n+- RootGuardManager\n| +- TENSOR_MATCH: "
            b"check_tensor(L['x'], size=[%d])" % size, ids=ids)

    def test_session_2_begins_at_its_0_0(self):
        log = self.write("t.log", PREFIX + b'{"str": ["/m.py", 0]}\n'
                         + self.compile_(0, 2, torn=True)
                         + self.compile_(1, 3, before=2) + self.compile_(0, 5)
                         + self.compile_(1, 7, before=5))
        r, out = self.parse(log)
        self.assertEqual(r.returncode, 0)
        self.assertEqual(self.stderr_lines(r), [
            "tlparse: %s:2: bad JSON envelope at column %d (1 broken JSON "
            "envelope)" % (log, len(PREFIX) + len(b'{"dynamo_start"') + 1)])
        self.assertEqual(sorted(f for f in os.listdir(out)
                                if f.startswith("recompile_")),
                         ["recompile_-_0_0_to_1.html",
                          "recompile_-_0_0_to_1.json",
                          "recompile_-_0_0_to_1_session_2.html",
                          "recompile_-_0_0_to_1_session_2.json"])
        for stem, session, a, b in (("recompile_-_0_0_to_1", 1, 2, 3),
                                    ("recompile_-_0_0_to_1_session_2", 2, 5,
                                     7)):
            d = json.loads(self.read(out, stem + ".json"))
            number = " #2" if session == 2 else ""
            self.assertEqual(
                [(d[side]["compile_id"], d[side]["session"])
                 for side in ("before", "after")],
                [("[0/0]" + number, session), ("[0/1]" + number, session)])
            self.assertEqual(
                [(c["change"], c["before"], c["after"])
                 for c in d["guards"]["changes"]],
                [("changed", "check_tensor(L['x'], size=[%d])" % a,
                  "check_tensor(L['x'], size=[%d])" % b)])
            self.assertEqual(
                [r["words"] for r in d["reasons"]],
                ["[0/0]%s was compiled for tensor x with size %d at "
                 "dimension 0; it is now %d" % (number, a, b)])
        self.assertIn(b"<p>This log holds 2 sessions:",
                      self.read(out, "index.html"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
