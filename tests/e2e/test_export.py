"""Export mode (-e): the Draft Export Report, end to end.

On the shared export.log: the files written (the Rust tool's list), the
exported program (the whole payload), the failure rows and the symbolic
page's expression tree, each checked against what the log says (read with
tracelog.py) and, where it is installed, against the Rust tlparse 0.4.3.
On logs written here: evaluated guards with locals and symbols, fake
kernels, entries missing their fields, <script> in every text, cycles and a
100,000-deep chain in argument_ids. Skips, saying so, when the fixtures or
the Rust tool are absent.
"""

import html
import html.parser
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
EXPORT_LOG = tracelog.fixture("export.log")
RUST = oracle.rust_binary()
needs_fixture = unittest.skipUnless(
    EXPORT_LOG, "shared fixtures folder is absent: skipped")
needs_rust = unittest.skipUnless(
    RUST, "no Rust tlparse in TLPARSE_VENV: oracle comparison skipped")
SYMBOLIC = "symbolic_guard_information_%d.html"
# Files we write in export mode and the Rust tool does not, each with why.
# None today: the export report is self-contained (no static/ folder).
ALLOWED_EXTRA_FILES = []


def run(binary, log, out, *flags):
    return subprocess.run([binary, log, "-o", out, "--no-browser"] +
                          list(flags), capture_output=True, text=True,
                          env=dict(os.environ, CI="1"), timeout=600)


def files(out):
    found = set()
    for root, _, names in os.walk(out):
        for n in names:
            found.add(os.path.relpath(os.path.join(root, n), out))
    return found


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def squash(text):
    return " ".join(text.split())


class Page(html.parser.HTMLParser):
    """What a person reads on a page: table rows (cell texts), headings,
    the tree's cards (result, method, arguments, indent), links, pre
    blocks, every element's name."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.rows, self.h1, self.cards, self.links, self.pres = \
            [], [], [], [], []
        self.tags, self.stack, self.texts = [], [], []
        self.margin = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        attrs = dict(attrs)
        m = re.match(r"margin-left: (\d+)px", attrs.get("style") or "")
        if tag == "div" and m:
            self.margin = int(m.group(1))
        if tag == "a":
            self.links.append(attrs.get("href"))
        if tag == "tr":
            self.rows.append([])
        if tag in ("td", "h1", "h3", "p", "pre"):
            self.stack.append((tag, len(self.texts)))

    def handle_data(self, data):
        self.texts.append(data)

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1][0] != tag:
            return
        _, start = self.stack.pop()
        text = "".join(self.texts[start:])
        if tag == "td":
            self.rows[-1].append(squash(text))
        elif tag == "h1":
            self.h1.append(text)
        elif tag == "h3":
            self.cards.append({"result": text, "indent": self.margin})
        elif tag == "pre":
            self.pres.append(text)
        elif tag == "p" and self.cards and text.startswith("Method:"):
            self.cards[-1]["method"] = text[len("Method: "):]
        elif tag == "p" and self.cards and text.startswith("Arguments:"):
            self.cards[-1]["arguments"] = text[len("Arguments: "):]

    def failures(self):
        return [r for r in self.rows if r]


def page(out, rel):
    return Page(read(os.path.join(out, rel)))


# ---- writing export logs --------------------------------------------------

FILES = ["/src/model.py", "/torch/fx/experimental/symbolic_shapes.py"]


def frame(k, name="forward", loc="return x + 1"):
    return {"line": 10 + k, "name": name, "filename": k % len(FILES),
            "loc": loc}


def entry(envelope, payload=None):
    """One log entry as torch/_logging writes it."""
    if payload is not None:
        envelope = dict(envelope, has_payload=tracelog.md5(payload))
    line = "V0211 16:42:20.419000 77 torch/x.py:1] " + json.dumps(envelope)
    if payload is None:
        return line + "\n"
    return line + "\n" + "".join("\t" + l + "\n" for l in payload.split("\n"))


def strings():
    return "".join(entry({"str": [f, i]}) for i, f in enumerate(FILES))


def expression(eid, method, result, arguments, argument_ids):
    return entry({"expression_created": {
        "method": method, "result": result, "result_id": eid,
        "arguments": arguments, "argument_ids": argument_ids,
        "user_stack": [frame(0)], "stack": [frame(1, "evaluate_expr")]}})


def guard(expr, node_id, prefix="eval", **extra):
    meta = {"expr": expr, "expr_node_id": node_id,
            "user_stack": [frame(0)], "stack": [frame(1, "evaluate_expr")]}
    if prefix is not None:
        meta["prefix"] = prefix
    meta.update(extra)
    return entry({"guard_added": meta})


PROGRAM = "ExportedProgram:\n    class GraphModule(torch.nn.Module):\n" \
          "        def forward(self, x):\n\n            return (x,)"


class Case(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def log(self, text, name="export.log"):
        path = os.path.join(self.tmp, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path

    def export(self, log, *flags, binary=TLPARSE, ok=True):
        out = os.path.join(self.tmp, "out%d" % len(os.listdir(self.tmp)))
        r = run(binary, log, out, "-e", *flags)
        if ok:
            self.assertEqual(r.returncode, 0, r.stderr)
        return r, out


# ---- the shared export.log ---------------------------------------------------

@needs_fixture
class ExportLog(Case):
    def setUp(self):
        super().setUp()
        self.entries = list(tracelog.records(EXPORT_LOG))
        self.r, self.out = self.export(EXPORT_LOG)

    def of_kind(self, kind):
        return [(n, env, p) for n, env, p in self.entries
                if kind in env]

    def test_files_are_the_rust_tools(self):
        listing = os.path.join(tracelog.FIXTURES, "expected-files",
                               "export--export.txt")
        with open(listing) as f:
            expected = set(f.read().split())
        self.assertEqual(files(self.out), expected)
        # Read off the log: one data-dependent error (number 0, the first
        # output), then the exported program (1); no guard has a prefix.
        self.assertEqual(len(self.of_kind("propagate_real_tensors_provenance")),
                         1)
        self.assertEqual(len(self.of_kind("guard_added")), 7)
        self.assertFalse(any("prefix" in env["guard_added"]
                             for _, env, _ in self.of_kind("guard_added")))
        self.assertEqual(expected, {"index.html",
                                    "-_-_-_-/" + SYMBOLIC % 0,
                                    "-_-_-_-/exported_program_1.txt"})

    def test_exported_program_is_the_whole_payload(self):
        # 24 lines, 6 of them blank in the fixture: it was whitespace-
        # stripped (each blank line held a tab and 12 spaces, which the
        # declared md5 shows), so its md5 check fails for any reading. We
        # keep the blank lines as empty lines; the Rust tool drops them.
        [(_, _, program)] = self.of_kind("exported_program")
        self.assertEqual(len(program.split("\n")), 24)
        self.assertEqual(program.split("\n").count(""), 6)
        with open(os.path.join(self.out, "-_-_-_-/exported_program_1.txt"),
                  "rb") as f:
            self.assertEqual(f.read(), program.encode())

    def test_failure_rows_say_what_the_log_says(self):
        [(_, env, _)] = self.of_kind("propagate_real_tensors_provenance")
        meta = env["propagate_real_tensors_provenance"]
        self.assertEqual((meta["expr"], meta["result"]),
                         ("Eq((((-u0)//3)) + 5, 0)", "False"))
        index = page(self.out, "index.html")
        self.assertEqual(index.failures(), [[
            "Data Dependent Error",
            "When exporting, we were unable to figure out if the expression "
            "Eq((((-u0)//3)) + 5, 0) always holds. As a result, it was "
            "specialized to evaluate to False, and asserts were inserted "
            "into the graph.",
            "Please click here for more information."]])
        self.assertEqual(index.links, ["-_-_-_-/" + SYMBOLIC % 0,
                                       "-_-_-_-/exported_program_1.txt"])
        self.assertIn("1 issue(s) were found during export",
                      read(os.path.join(self.out, "index.html")))

    def walk(self, root, before_line):
        """The tree the log describes, walked here recursively (the log is
        small): (result, method, depth) in pre-order, each id once."""
        nodes = {}
        for n, env, _ in self.entries:
            if n >= before_line:
                break
            if "expression_created" in env:
                m = env["expression_created"]
                nodes[m["result_id"]] = (m["result"], m["method"],
                                         m["argument_ids"])
            if "create_unbacked_symbol" in env:
                m = env["create_unbacked_symbol"]
                nodes[m["node_id"]] = (m["symbol"], "", [])
        seen, order = set(), []

        def visit(i, depth):
            if i in seen or i not in nodes:
                return
            seen.add(i)
            order.append((nodes[i][0], nodes[i][1], depth))
            for a in nodes[i][2]:
                visit(a, depth + 1)
        visit(root, 0)
        return order

    def test_symbolic_page_draws_the_expression_tree(self):
        [(line, env, _)] = self.of_kind("propagate_real_tensors_provenance")
        meta = env["propagate_real_tensors_provenance"]
        expected = self.walk(meta["expr_node_id"], line)
        sym = page(self.out, "-_-_-_-/" + SYMBOLIC % 0)
        drawn = [(c["result"], c["method"], c["indent"] // 20)
                 for c in sym.cards]
        self.assertEqual(drawn, expected)
        methods = [m for _, m, _ in drawn]
        self.assertEqual(methods[:5],
                         ["eq", "int_floordiv", "sub", "add", "sub"])
        # ...then down to the unbacked symbol u0 (no method).
        self.assertEqual(methods[5:], ["add", "int_floordiv", "neg", ""])
        self.assertEqual(drawn[-1], ("u0", "", 8))
        self.assertEqual(sym.h1, ["More detailed information on "
                                  "Eq((((-u0)//3)) + 5, 0)"])
        # Locals and symbols in the log's order.
        self.assertEqual(sym.pres[:2], [
            "\n    z: Tensor(shape: torch.Size([2*s0]), stride: (1,), "
            "storage_offset: 0)\n    a: (((-u0)//3)) + 5\n",
            "\n    s0: L['args'][0][1].size()[0]\n"])

    def test_strict_modes_are_not_enforced(self):
        for flag in ("--strict", "--strict-compile-id"):
            r, _ = self.export(EXPORT_LOG, flag)
            self.assertEqual(r.returncode, 0, r.stderr)
        # Without -e, --strict fails on the log's md5 mismatch (the
        # exported program's, which no reading of the fixture matches).
        r = run(TLPARSE, EXPORT_LOG, os.path.join(self.tmp, "strict"),
                "--strict")
        self.assertEqual(r.returncode, 1)

    @needs_rust
    def test_pages_agree_with_the_rust_tool(self):
        r, rust = self.export(EXPORT_LOG, "--strict", binary=RUST)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(files(self.out), files(rust))
        ours, theirs = (page(o, "index.html") for o in (self.out, rust))
        self.assertEqual(ours.failures(), theirs.failures())
        self.assertEqual(ours.links, theirs.links)
        # The symbolic page's body is the Rust tool's, byte for byte.
        rel = "-_-_-_-/" + SYMBOLIC % 0
        body = [read(os.path.join(o, rel)).split("<body>")[1]
                for o in (self.out, rust)]
        self.assertEqual(body[0], body[1])


# ---- logs written here ----------------------------------------------------

LOCALS = {"zeta": "Tensor(shape: [s0])", "alpha": "3", "gone": None,
          "mid": "x + 1", "beta": "s0 * 2", "omega": "7", "kappa": "k"}
SYMBOLS = {"s0": "L['x'].size()[0]", "u1": "item()", "s9": "L['y']"}


def mixed_log():
    """Every export entry kind once, with outputs numbered 0 to 4."""
    return (strings() +
            expression(1, "add", "s0 + 1", ["s0", "1"], []) +
            expression(2, "eq", "Eq(s0 + 1, 3)", ["s0 + 1", "3"], [1]) +
            entry({"propagate_real_tensors_provenance": {
                "expr": "Eq(s0 + 1, 3)", "result": "True",
                "expr_node_id": 2, "user_stack": [frame(0)],
                "stack": [frame(1)]}}) +
            entry({"exported_program": {}}, PROGRAM) +
            guard("Eq(s0, 3)", 2, frame_locals={"locals": LOCALS,
                                               "symbols": SYMBOLS}) +
            guard("Ne(s0, 1)", 2, prefix=None) +
            guard("Ne(s0, 2)", 2, prefix="hint") +
            entry({"missing_fake_kernel": {"op": "mylib.foo.default"}}) +
            entry({"mismatched_fake_kernel": {
                "op": "mylib.bar.default",
                "reason": "Mismatched aliasing spec between fake kernel "
                          "and real kernel"}}) +
            entry({"exported_program": {}}, PROGRAM + "\n# second") +
            entry({"guard_added": {"expr": "x", "prefix": "eval",
                                   "expr_node_id": 99}}, "guard payload"))


class Generated(Case):
    def test_every_kind_numbered_and_written(self):
        _, out = self.export(self.log(mixed_log()))
        self.assertEqual(files(out), {
            "index.html", "-_-_-_-/" + SYMBOLIC % 0,
            "-_-_-_-/exported_program_1.txt", "-_-_-_-/" + SYMBOLIC % 2,
            "-_-_-_-/exported_program_3.txt", "-_-_-_-/" + SYMBOLIC % 4,
            "payloads/%s.txt" % tracelog.md5("guard payload")})
        index = page(out, "index.html")
        rows = index.failures()
        self.assertEqual([r[0] for r in rows], [
            "Data Dependent Error", "Guard Evaluated", "Missing Fake Kernel",
            "Mismatched Fake Kernel", "Guard Evaluated"])
        self.assertEqual(rows[1][1], "When exporting, the following guard "
                         "was evaluated Eq(s0, 3). This might've resulted "
                         "in a constraint violation error.")
        self.assertEqual(rows[2][1], "torch.ops.mylib.foo.default is "
                         "missing a fake kernel implementation")
        self.assertEqual(rows[3][1], "torch.ops.mylib.bar.default has a "
                         "fake kernel implementation, but it has incorrect "
                         "behavior, based on the real kernel. The reason "
                         "for the mismatch is: Mismatched aliasing spec "
                         "between fake kernel and real kernel")
        self.assertEqual(rows[2][2], "Please refer to this doc for more "
                         "detailed instructions on how to write a fake "
                         "kernel.")
        # The first exported program is the one linked.
        self.assertEqual(index.links[-1], "-_-_-_-/exported_program_1.txt")
        with open(os.path.join(out, "-_-_-_-/exported_program_3.txt")) as f:
            self.assertEqual(f.read(), PROGRAM + "\n# second")

    def test_locals_and_symbols_in_the_logs_order(self):
        _, out = self.export(self.log(mixed_log()))
        sym = page(out, "-_-_-_-/" + SYMBOLIC % 2)
        self.assertEqual(sym.pres[0], "\n" + "".join(
            "    %s: %s\n" % (k, v) for k, v in LOCALS.items() if v))
        self.assertEqual(sym.pres[1], "\n" + "".join(
            "    %s: %s\n" % kv for kv in SYMBOLS.items()))
        self.assertEqual([(c["result"], c["method"], c["arguments"])
                          for c in sym.cards],
                         [("Eq(s0 + 1, 3)", "eq", "s0 + 1, 3"),
                          ("s0 + 1", "add", "s0, 1")])
        # The stacks, files from the str table.
        text = read(os.path.join(out, "-_-_-_-/" + SYMBOLIC % 2))
        self.assertIn("/src/model.py:10 in forward<br>&nbsp;&nbsp;&nbsp;"
                      "&nbsp;return x + 1", text)
        # A guard on an unknown expression has no tree.
        self.assertEqual(page(out, "-_-_-_-/" + SYMBOLIC % 4).cards, [])

    @needs_rust
    def test_generated_log_agrees_with_the_rust_tool(self):
        log = self.log(mixed_log())
        _, ours = self.export(log)
        _, rust = self.export(log, binary=RUST)
        self.assertEqual(files(ours), files(rust))
        a, b = page(ours, "index.html"), page(rust, "index.html")
        self.assertEqual(a.failures(), b.failures())
        self.assertEqual(a.links, b.links)
        for n in (0, 2, 4):
            a, b = (page(o, "-_-_-_-/" + SYMBOLIC % n) for o in (ours, rust))
            self.assertEqual(a.cards, b.cards)
            self.assertEqual(a.h1, b.h1)
            # The Rust tool lists locals in hash order: same lines.
            self.assertEqual([sorted(p.split("\n")) for p in a.pres],
                             [sorted(p.split("\n")) for p in b.pres])

    def test_linked_program_is_in_the_first_folder_named(self):
        # The Rust tool links the first exported program of the compile
        # folder the log names first, not the first program logged.
        log = self.log(
            entry({"missing_fake_kernel": {"op": "a"}, "frame_id": 1,
                   "frame_compile_id": 0}) +
            entry({"exported_program": {}}, PROGRAM) +
            entry({"exported_program": {}, "frame_id": 1,
                   "frame_compile_id": 0}, PROGRAM))
        _, out = self.export(log)
        self.assertEqual(files(out), {"index.html",
                                      "-_-_-_-/exported_program_0.txt",
                                      "-_1_0_-/exported_program_1.txt"})
        self.assertEqual(page(out, "index.html").links[-1],
                         "-_1_0_-/exported_program_1.txt")
        if RUST:
            _, rust = self.export(log, binary=RUST)
            self.assertEqual(files(rust), files(out))
            self.assertEqual(page(rust, "index.html").links,
                             page(out, "index.html").links)

    def test_no_failures_congratulates(self):
        _, out = self.export(self.log(strings() + guard("x", 1, None)))
        text = read(os.path.join(out, "index.html"))
        self.assertIn("Congratulations! No issues are found", text)
        self.assertEqual(page(out, "index.html").links, [""])
        self.assertEqual(files(out), {"index.html"})

    def test_missing_fields_are_shown_empty(self):
        log = self.log(
            entry({"guard_added": {"prefix": "eval"}}) +
            entry({"propagate_real_tensors_provenance": {}}) +
            entry({"missing_fake_kernel": {}}) +
            entry({"mismatched_fake_kernel": {"op": "x"}}) +
            entry({"expression_created": {"method": "add"}}))
        r, out = self.export(log, "-v")  # -v: every diagnostic
        rows = page(out, "index.html").failures()
        self.assertEqual(rows[0][1], "When exporting, the following guard "
                         "was evaluated . This might've resulted in a "
                         "constraint violation error.")
        self.assertIn("expression always holds. As a result, it was "
                      "specialized to evaluate to , and", rows[1][1])
        self.assertEqual(rows[2][1], "torch.ops. is missing a fake kernel "
                         "implementation")
        self.assertTrue(rows[3][1].endswith("The reason for the mismatch "
                                            "is:"))
        self.assertEqual(page(out, "-_-_-_-/" + SYMBOLIC % 0).h1,
                         ["More detailed information on "])
        # One line each, naming the place.
        for line, field in ((1, "expr"), (2, "expr"), (2, "result"),
                            (3, "op"), (4, "reason"), (5, "result_id")):
            self.assertRegex(r.stderr, r"export\.log:%d: .*\"%s\"" %
                             (line, field))

    def test_script_in_every_text_is_escaped(self):
        s = "<script>alert(1)</script>&"
        FILES.append(s)
        try:
            bad = {"line": 1, "name": s, "filename": len(FILES) - 1,
                   "loc": s}
            log = self.log(
                strings() +
                entry({"expression_created": {
                    "method": s, "result": s, "result_id": 1,
                    "arguments": [s, s], "argument_ids": [2],
                    "user_stack": [bad], "stack": [bad]}}) +
                entry({"create_unbacked_symbol": {
                    "symbol": s, "node_id": 2, "user_stack": [bad]}}) +
                guard(s, 1, frame_locals={"locals": {s: s},
                                          "symbols": {s: s}},
                      user_stack=[bad], stack=[bad]) +
                entry({"propagate_real_tensors_provenance": {
                    "expr": s, "result": s, "expr_node_id": 1}}) +
                entry({"missing_fake_kernel": {"op": s}}) +
                entry({"mismatched_fake_kernel": {"op": s, "reason": s}}) +
                entry({"exported_program": {}}, s))
        finally:
            FILES.pop()
        _, out = self.export(log)
        pages = [p for p in files(out) if p.endswith(".html")]
        self.assertEqual(len(pages), 3)
        for p in pages:
            text = read(os.path.join(out, p))
            self.assertNotIn("<script", text.lower(), p)
        sym = page(out, "-_-_-_-/" + SYMBOLIC % 0)
        self.assertEqual(sym.h1, ["More detailed information on " + s])
        self.assertEqual([c["result"] for c in sym.cards], [s, s])
        self.assertEqual(sym.cards[0]["arguments"], s + ", " + s)
        self.assertEqual(sym.pres[0], "\n    %s: %s\n" % (s, s))
        rows = page(out, "index.html").failures()
        self.assertEqual(len(rows), 4)
        self.assertEqual(rows[2][1], "torch.ops.%s is missing a fake "
                         "kernel implementation" % s)
        self.assertTrue(rows[3][1].endswith("is: " + s))
        # The exported program is a text file: kept as it is.
        with open(os.path.join(out, "-_-_-_-/exported_program_2.txt")) as f:
            self.assertEqual(f.read(), s)

    def test_cycles_draw_each_expression_once(self):
        log = self.log(
            expression(1, "add", "a", ["b"], [2]) +
            expression(2, "mul", "b", ["a", "b", "c"], [1, 2, 3]) +
            expression(3, "neg", "c", ["c", "c"], [3, 3, 404]) +
            guard("a", 1))
        _, out = self.export(log)
        cards = page(out, "-_-_-_-/" + SYMBOLIC % 0).cards
        self.assertEqual([(c["result"], c["indent"]) for c in cards],
                         [("a", 0), ("b", 20), ("c", 40)])

    def test_deep_chain_is_drawn_without_recursion(self):
        depth = 100000
        chain = "".join(
            entry({"expression_created": {
                "method": "add", "result": "e%d" % i, "result_id": i,
                "argument_ids": [i - 1] if i > 1 else []}})
            for i in range(1, depth + 1))
        _, out = self.export(self.log(chain + guard("top", depth)))
        text = read(os.path.join(out, "-_-_-_-/" + SYMBOLIC % 0))
        self.assertEqual(text.count("<h3 "), depth)
        last = "margin-left: %dpx;\">" % ((depth - 1) * 20)
        self.assertIn(last, text)
        self.assertIn(">e1</h3>", text.split(last)[1])

    def test_profile_is_refused_with_export(self):
        r = subprocess.run([TLPARSE, "x.log", "-e", "--profile", "p.json"],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 1)
        self.assertIn("-e", r.stderr)
        r = subprocess.run([TLPARSE, "--help"], capture_output=True,
                           text=True)
        self.assertIn("-e|--export", r.stdout)


if __name__ == "__main__":
    unittest.main()
