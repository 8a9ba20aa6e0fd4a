"""The pages a Rust-tlparse user knows (single-log parity issue, items 4
and 5): index statuses, cache markers, Failures and Restarts, the metrics,
guards and failures pages.

Expected values were read off the input logs: comp_metrics.log restarts in
[0/0_1] and [1/0_1] (so [0/0] and [1/0] are break, [2/0] ok),
comp_failure.log fails with BackendCompilerFailed and no user frame (N/A:0),
cache_hit_miss.log logs fx_graph_cache_miss as entry 9, aotautograd cache
bypass as 10 and a cache hit as 20. Where the Rust tool (the oracle in
TLPARSE_VENV) is installed, the metrics and failures pages' text must also
equal its text. Skips, saying so, when the fixtures or the oracle are absent.
"""

import hashlib
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import oracle  # noqa: E402
import tracelog  # noqa: E402

TLPARSE = os.environ.get("TLPARSE", "tlparse")
LOGS = {n: tracelog.fixture(n) for n in
        ("comp_metrics.log", "comp_failure.log", "cache_hit_miss.log",
         "simple.log", "links.log", "chromium_events.log")}
needs_fixtures = unittest.skipUnless(
    all(LOGS.values()), "shared fixtures folder is absent: skipped")
needs_oracle = unittest.skipUnless(
    oracle.rust_binary(), "the Rust tlparse is not in TLPARSE_VENV: skipped")

PREFIX = "V1206 15:18:20.252000 1500233 torch/_dynamo/x.py:12] "
IDS = '"frame_id": 0, "frame_compile_id": 0, "attempt": 0'
XSS = "<script>window.__pwned=1</script>"


def entry(body, payload=None, ids=IDS):
    fields = [body] + ([ids] if ids else [])
    if payload is not None:
        fields.append('"has_payload": "%s"'
                      % hashlib.md5(payload.encode()).hexdigest())
    text = PREFIX + "{" + ", ".join(fields) + "}\n"
    if payload is not None:
        text += "".join("\t" + l + "\n" for l in payload.split("\n"))
    return text


def run(binary, log, out, *flags):
    return subprocess.run([binary, log, "-o", out, "--no-browser"]
                          + list(flags), capture_output=True, text=True,
                          env=dict(os.environ, CI="1"))


def page_text(path):
    """What a person reads: no scripts, styles, titles, nor our own nav bar
    and notes; every tag is a space (so "[?]</abbr>:" reads "[?] :")."""
    with open(path, encoding="utf-8") as f:
        s = f.read()
    s = re.sub(r"<script.*?</script>|<style.*?</style>|<title>.*?</title>"
               r"|<nav>.*?</nav>|<p class=\"(cid|note)\">.*?</p>", "", s, flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", s)).split())


class Case(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def ours(self, log, *flags):
        out = os.path.join(self.tmp, "ours-" + os.path.basename(log))
        r = run(TLPARSE, log, out, *flags)
        self.assertEqual(r.returncode, 0, r.stderr)
        return out

    def read(self, out, rel):
        with open(os.path.join(out, rel), encoding="utf-8") as f:
            return f.read()

    def statuses(self, out):
        return re.findall(r'<a href="#([^"]*)" class="(status-[a-z]+)">',
                          self.read(out, "index.html"))


@needs_fixtures
class Index(Case):
    def test_statuses_per_compile_id(self):
        self.assertEqual(self.statuses(self.ours(LOGS["comp_metrics.log"])),
                         [("[0/0]", "status-break"), ("[1/0]", "status-break"),
                          ("[2/0]", "status-ok")])
        self.assertEqual(self.statuses(self.ours(LOGS["comp_failure.log"])),
                         [("[0/0]", "status-error")])
        self.assertEqual(set(self.statuses(self.ours(LOGS["simple.log"]))),
                         {("[0/0]", "status-ok")})

    def test_legend_in_the_rust_order(self):
        index = self.read(self.ours(LOGS["simple.log"]), "index.html")
        legend = re.findall(r'<span class="(status-[a-z]+)">\[', index)
        self.assertEqual(legend, ["status-ok", "status-break", "status-empty",
                                  "status-error", "status-missing"])

    def test_failures_count_links_the_failures_page(self):
        index = self.read(self.ours(LOGS["comp_metrics.log"]), "index.html")
        self.assertIn('<a href="failures_and_restarts.html">2 restart(s) '
                      'and/or compilation failure(s)</a>', index)
        self.assertNotIn("<h2> Failures and Restarts </h2>", self.read(
            self.ours(LOGS["simple.log"]), "index.html"))

    def test_cache_markers_after_the_links(self):
        text = page_text(os.path.join(self.ours(LOGS["cache_hit_miss.log"]),
                                      "index.html"))
        self.assertIn("-_1_0_0/fx_graph_cache_miss_9.json \u274c (9)", text)
        self.assertIn("-_1_0_0/aotautograd_cache_bypass_10.json \u2753 (10)",
                      text)
        self.assertRegex(text, r"cache_hit_20\.json \u2705 \(20\)")

    def test_chromium_section_only_with_events(self):
        with_events = self.read(self.ours(LOGS["chromium_events.log"]),
                                "index.html")
        self.assertIn("<h2> Chromium Events </h2>", with_events)
        self.assertIn('href="https://ui.perfetto.dev/"', with_events)
        self.assertNotIn("<h2> Chromium Events </h2>", self.read(
            self.ours(LOGS["comp_metrics.log"]), "index.html"))

    def test_link_entries_show_their_name(self):
        self.assertIn('<a href="https://www.google.com">manifold_url</a>',
                      self.read(self.ours(LOGS["links.log"]), "index.html"))


@needs_fixtures
class Pages(Case):
    def test_failure_row_with_its_source_cell(self):
        text = page_text(os.path.join(self.ours(LOGS["comp_failure.log"]),
                                      "failures_and_restarts.html"))
        self.assertTrue(text.endswith(
            "[0/0] BackendCompilerFailed backend='broken_backend' raised: "
            "RuntimeError: broken backend N/A:0"), text)

    def test_restart_rows(self):
        page = self.read(self.ours(LOGS["comp_metrics.log"]),
                         "failures_and_restarts.html")
        self.assertEqual(page.count("<td>RestartAnalysis</td>"), 2)
        self.assertIn("<a href=\"-_0_0_1/compilation_metrics_2.html\">"
                      "[0/0_1]</a>", page)
        self.assertIn("</table>", page)

    def test_metrics_page_values(self):
        out = self.ours(LOGS["comp_metrics.log"])
        text = page_text(os.path.join(out, "-_0_0_1/compilation_metrics_2.html"))
        for part in ("Compilation Info for [0/0_1] Stack",
                     "Entire Frame [?] : 0.012439489364624023",
                     "Backend [?] : 0.00003910064697265625",
                     "Dynamo Time Before Restart [?] : 0.006658077239990234",
                     "No failures! Restart Reasons:",
                     "Cache Size: 0 Accumulated Cache Size: 0",
                     "Guard Count: 9 Shape Env Guards: 0 Graph Ops: 1 "
                     "Graph Nodes: 3 Graph Inputs: 1",
                     "Output files: dynamo_output_graph_0.txt (0) "
                     "dynamo_guards_1.html (1) Stack"):
            self.assertIn(part, text)
        page = self.read(out, "-_0_0_1/compilation_metrics_2.html")
        self.assertIn("<h1>Compilation Info for [0/0_1] </h1>", page)

    def test_guards_page_lists_the_guards(self):
        page = self.read(self.ours(LOGS["comp_metrics.log"]),
                         "-_0_0_1/dynamo_guards_1.html")
        self.assertIn("<li><code>utils_device.CURRENT_DEVICE == None</code>",
                      page)

    @needs_oracle
    def test_pages_read_as_the_rust_tools(self):
        for name in ("comp_metrics.log", "comp_failure.log",
                     "cache_hit_miss.log", "simple.log"):
            ours = self.ours(LOGS[name])
            rust = os.path.join(self.tmp, "rust-" + name)
            r = run(oracle.rust_binary(), LOGS[name], rust)
            self.assertEqual(r.returncode, 0, r.stderr)
            for root, _, names in os.walk(rust):
                for n in names:
                    if not re.match(r"(compilation_metrics|dynamo_guards)_\d+"
                                    r"\.html|failures_and_restarts\.html", n):
                        continue
                    rel = os.path.relpath(os.path.join(root, n), rust)
                    with self.subTest(log=name, page=rel):
                        self.assertEqual(page_text(os.path.join(ours, rel)),
                                         page_text(os.path.join(rust, rel)))


class Hostile(Case):
    """Small logs written here: what the fixtures do not have."""

    def parse(self, text, *flags):
        log = os.path.join(self.tmp, "t.log")
        with open(log, "w") as f:
            f.write(text)
        out = os.path.join(self.tmp, "out")
        r = run(TLPARSE, log, out, *flags)
        return r, out

    def test_script_in_every_trace_text_is_escaped(self):
        metrics = json.dumps({"fail_type": XSS, "fail_reason": XSS,
                              "restart_reasons": [XSS],
                              "co_name": XSS, "co_filename": XSS,
                              "co_firstlineno": 1, "graph_op_count": 1})
        r, out = self.parse(
            entry('"dynamo_start": {"stack": [{"line": 1, "name": %s, '
                  '"filename": %s}]}' % (json.dumps(XSS), json.dumps(XSS)))
            + entry('"dynamo_guards": {}', json.dumps([{"code": XSS}]))
            + entry('"compilation_metrics": ' + metrics))
        self.assertEqual(r.returncode, 0, r.stderr)
        for rel in ("index.html", "failures_and_restarts.html",
                    "-_0_0_0/dynamo_guards_0.html",
                    "-_0_0_0/compilation_metrics_1.html"):
            page = self.read(out, rel)
            self.assertNotIn(XSS, page, rel)
            self.assertIn(html.escape(XSS), page, rel)
        self.assertEqual(self.statuses(out), [("[0/0]", "status-error")])

    def test_fail_type_without_fail_reason_is_shown_empty(self):
        r, out = self.parse(entry('"compilation_metrics": '
                                  '{"fail_type": "Boom"}'))
        self.assertEqual(r.returncode, 0, r.stderr)
        text = page_text(os.path.join(out, "failures_and_restarts.html"))
        self.assertTrue(text.endswith("[0/0] Boom N/A:0"), text)

    def test_missing_restart_reasons_is_not_a_restart(self):
        # The Rust tool colours this break; nothing restarted.
        r, out = self.parse(
            entry('"dynamo_start": {"stack": [{"line": 1, "name": "f", '
                  '"filename": "m.py"}]}')
            + entry('"compilation_metrics": {"graph_op_count": 2}'))
        self.assertEqual(self.statuses(out), [("[0/0]", "status-ok")])

    def test_bad_guards_payload_gives_no_page_and_a_diagnostic(self):
        r, out = self.parse(entry('"dynamo_guards": {}', '{"not": "a list"}')
                            + entry('"dynamo_output_graph": {}', "g"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("t.log:1: dynamo_guards payload is not a list", r.stderr)
        # As the Rust tool: no page, the number goes to the next file.
        self.assertTrue(os.path.exists(os.path.join(
            out, "-_0_0_0/dynamo_output_graph_0.txt")))
        self.assertEqual(len(os.listdir(os.path.join(out, "payloads"))), 1)

    def test_numbers_as_the_rust_tool_prints_them(self):
        r, out = self.parse(entry(
            '"compilation_metrics": {"entire_frame_compile_time_s": 2, '
            '"backend_compile_time_s": 1e-7, "guard_count": 12}'))
        text = page_text(os.path.join(out, "-_0_0_0/compilation_metrics_0.html"))
        self.assertIn("Entire Frame [?] : 2.0 Backend [?] : 1e-7", text)
        self.assertIn("Guard Count: 12 Shape Env Guards: Graph Ops:", text)


UNKNOWN_NOTICE = re.compile(
    r'<p class="note">(\d+) unknown entr(?:y|ies) \(first: <code>([^<]*)'
    r'</code>\), not shown here: see <a href="raw.jsonl">raw.jsonl</a>.</p>')


class UnknownEntriesAndHeader(Case):
    """The index's notice of entries of unknown kinds, and where
    --custom-header-html goes, on logs written here, against the Rust tool's
    output on the same log where it is installed."""

    LOGS = {
        "none": entry('"dynamo_output_graph": {}', "g"),
        "one": entry('"dynamo_output_graph": {}', "g")
        + entry('"brand_new_kind": {}', "p"),
        "three": entry('"dynamo_output_graph": {}', "g")
        + entry('"brand_new_kind": {}', "p")
        + entry('"other_new": {"a": 1}')
        + entry('"brand_new_kind": {}', "q"),
    }
    HEADER = '<div id="custom-hdr">Job <a href="https://e.x/1">1</a></div>'

    def both(self, name, *flags):
        log = os.path.join(self.tmp, name + ".log")
        with open(log, "w") as f:
            f.write(self.LOGS[name])
        ours = self.ours(log, *flags)
        rust = None
        if oracle.rust_binary():
            rust = os.path.join(self.tmp, "rust-" + name)
            r = run(oracle.rust_binary(), log, rust, *flags)
            self.assertEqual(r.returncode, 0, r.stderr)
            rust = (rust, r.stderr)
        return ours, rust

    def test_unknown_entry_notice_counts_entries_of_unknown_kinds(self):
        # Wording (src/emit/report.c): "N unknown entr(y|ies) (first: <code>KIND
        # </code>), not shown here: see raw.jsonl", singular for one.
        expected = {"none": None, "one": ("1", "brand_new_kind"),
                    "three": ("3", "brand_new_kind")}
        for name, want in expected.items():
            with self.subTest(log=name):
                ours, rust = self.both(name)
                index = self.read(ours, "index.html")
                found = UNKNOWN_NOTICE.findall(index)
                self.assertEqual(found, [want] if want else [])
                if want:
                    self.assertIn(" unknown entr%s " % (
                        "y" if want[0] == "1" else "ies"), index)
                if rust:
                    # The Rust tool's index has no such notice: it says it on
                    # stderr, "Stats { ..., unknown: N }" and "Unknown
                    # fields: {...}", with the same count as ours.
                    rust_out, stderr = rust
                    self.assertNotIn("unknown entr", self.read(
                        rust_out, "index.html"))
                    count = re.search(r"Stats \{.*?unknown: (\d+)", stderr)
                    self.assertEqual(count and count.group(1),
                                     want and want[0], stderr)
                    # Both keep the entries in raw.jsonl, where the notice
                    # points.
                    kinds = [sorted(json.loads(l)) for l in self.read(
                        ours, "raw.jsonl").splitlines()[1:]]
                    self.assertEqual(
                        [k for k in kinds if "brand_new_kind" in k
                         or "other_new" in k],
                        [k for k in (sorted(json.loads(l)) for l in self.read(
                            rust_out, "raw.jsonl").splitlines()[1:])
                         if "brand_new_kind" in k or "other_new" in k])

    def test_custom_header_is_the_first_thing_in_the_body(self):
        ours, rust = self.both("one", "--custom-header-html", self.HEADER)
        outs = [ours] + ([rust[0]] if rust else [])
        for out in outs:
            with self.subTest(out=os.path.basename(out)):
                index = self.read(out, "index.html")
                self.assertEqual(index.count(self.HEADER), 1)
                body = index.index("<body>") + len("<body>")
                at = index.index(self.HEADER)
                # Only whitespace and wrapper <div>s between <body> and the
                # header (the Rust tool opens one <div>; we open none).
                self.assertRegex(index[body:at], r"^(\s|<div>)*$")
                self.assertLess(at, index.index("<h2>"))
                # Only on the index, not on the sub-pages.
                for page in ("failures_and_restarts.html",):
                    self.assertNotIn(self.HEADER, self.read(out, page))
        # As a person reads it: the header's text first, in both.
        if rust:
            texts = [page_text(os.path.join(o, "index.html")) for o in outs]
            for text in texts:
                self.assertTrue(text.startswith("Job 1 "), text[:80])


if __name__ == "__main__":
    unittest.main()
