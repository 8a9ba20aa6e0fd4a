"""`tlparse diff A B` (src/command/diff_command.c, src/diff/run_diff.c,
src/emit/run_diff_pages.c) against an independent reading of the two logs.

The pairs: one model recorded with torch 2.13 before and after a small
change (examples/rec-change-before, rec-change-after: a wider layer, an
extra op, a graph break moved, one more function compiled), and the same
model on two versions of torch (rec-jit-cpu with rec-jit-cpu-2.14 and
-2.15). For each, the logs are read here again (tracelog.py): the frames
from dynamo_start's stacks, matched by file name and function name then
order; the compiles of matched frames paired in order; each pair's graphs
read with `ast` and checked as test_recompiles.py checks a recompile (a
longest common subsequence of ops, each verdict right); the guards that
differ, object and type ids read as one; the graph breaks from their
reason texts; the kernels from the node mappings.

Hostile pairs: one side empty, unrelated logs, a missing input (one line
naming it, nothing written), a folder of rank logs (refused, naming the
rank logs), thousands of compiles (the output bounded by a multiple of the
input, no time asserted).

Environment: TLPARSE (the binary).
"""

import ast
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tracelog  # noqa: E402
import test_recompiles as rc  # noqa: E402
import links  # noqa: E402

TLPARSE = os.environ.get("TLPARSE", "tlparse")
if os.sep in TLPARSE:  # one test runs it from another folder
    TLPARSE = os.path.abspath(TLPARSE)
EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                        "..", "examples")
PAIRS = [("rec-change-before", "rec-change-after"),
         ("rec-jit-cpu", "rec-jit-cpu-2.14"),
         ("rec-jit-cpu", "rec-jit-cpu-2.15")]
# Logs whose ids start again (torch._dynamo.reset()): rec-sessions holds
# three sessions, frame 0 another function in each of the first two;
# rec-dynamic two (its second session's compiles FX graph cache hits).
SESSION_PAIRS = [("rec-sessions", "rec-sessions"),
                 ("rec-dynamic", "rec-dynamic")]


def log(name):
    return os.path.join(EXAMPLES, name, "trace.log")


def frames_of(path):
    """{(autograd, frame, session): {"file", "function", "line", "compiles":
    [ids], "breaks": {(reason, where)}}} read from the log; a session
    (tracelog.sessions) starts where the ids start again."""
    strings, frames = {}, {}
    for (_, env, payload), session in zip(tracelog.records(path),
                                          tracelog.sessions(path)):
        k = tracelog.kind(env)
        if k == "str":
            strings[env["str"][1]] = env["str"][0]
            continue
        if env.get("frame_id") is None or env.get("frame_compile_id") is None:
            continue
        key = ("-" if env.get("compiled_autograd_id") is None
               else str(env["compiled_autograd_id"]), env["frame_id"],
               session)
        f = frames.setdefault(key, {"file": "", "function": "", "line": 0,
                                    "compiles": set(), "breaks": set()})
        f["compiles"].add(env["frame_compile_id"])
        if k == "dynamo_start" and not f["function"]:
            top = env["dynamo_start"]["stack"][-1]
            name = top.get("filename")
            f["file"] = strings.get(name, "") if isinstance(name, int) \
                else top.get("uninterned_filename", "")
            f["function"], f["line"] = top["name"], top["line"]
        if k == "artifact" and \
                env["artifact"]["name"] == "dynamo_graph_break_reason":
            f["breaks"].add(graph_break(payload))
        name = env["artifact"]["name"] if k == "artifact" else k
        if name in COMPARED:
            f["compared"] = True
    for key in [k for k, f in frames.items()
                if not f["function"] and not f["breaks"] and
                not f.get("compared")]:
        del frames[key]  # no compile: only descriptions of its inputs
    for f in frames.values():
        f["compiles"] = sorted(f["compiles"])
        f.pop("compared", None)
    return frames


# What a compile is compared by: a frame that logged none of these and no
# dynamo_start is no compile.
COMPARED = {"dynamo_cpp_guards_str", "dynamo_output_graph",
            "before_pre_grad_graph", "inductor_pre_grad_graph",
            "after_post_grad_graph", "inductor_post_grad_graph",
            "inductor_output_code",
            "inductor_provenance_tracking_node_mappings"}


def unnamed_files(path):
    """The first payload of each kind among the entries without a compile
    id (torch.export, AOTInductor), as rc.compiles gives a compile's."""
    files = {}
    for _, env, payload in tracelog.records(path):
        if env.get("frame_id") is not None or payload is None:
            continue
        k = tracelog.kind(env)
        name = env["artifact"]["name"] if k == "artifact" else \
            env["graph_dump"]["name"] if k == "graph_dump" else k
        files.setdefault(name, payload)
    files["pre"] = files.get("before_pre_grad_graph",
                             files.get("inductor_pre_grad_graph"))
    files["post"] = files.get("after_post_grad_graph",
                              files.get("inductor_post_grad_graph"))
    return files


def graph_break(text):
    where, reason = "", ""
    for line in text.split("\n"):
        line = line.strip()
        if line.startswith("Graph break in user code at "):
            where = os.path.basename(line[len("Graph break in user code at "):])
        elif line.startswith("Graph Break Reason: "):
            reason = line[len("Graph Break Reason: "):]
            break
    return reason, where


def in_order(key):
    """A frame key in the tool's frame order: session, autograd, frame."""
    return (key[2], key[0], key[1])


def ids(key, compile_id):
    """The compile id as shown: "[0/1]", a later session's "[0/1] #2"."""
    return "[%d/%d]%s" % (key[1], compile_id,
                          " #%d" % key[2] if key[2] > 1 else "")


def match_frames(fa, fb):
    """[(key a or None, key b or None)]: matched in A's order, then A's
    alone, then B's alone. Session k of A is matched with session k of B."""
    def group(f):
        return (os.path.basename(f["file"]), f["function"])

    def place(key, f):
        return (f["file"], f["line"], key[1])
    ga, gb = {}, {}
    for k, f in fa.items():
        ga.setdefault((k[2], k[0]) + group(f), []).append(k)
    for k, f in fb.items():
        gb.setdefault((k[2], k[0]) + group(f), []).append(k)
    matched, used_a, used_b = [], set(), set()
    for g, keys in ga.items():
        ka = sorted(keys, key=lambda k: place(k, fa[k]))
        kb = sorted(gb.get(g, []), key=lambda k: place(k, fb[k]))
        for x, y in zip(ka, kb):
            matched.append((x, y))
            used_a.add(x)
            used_b.add(y)
    matched.sort(key=lambda p: in_order(p[0]))
    return (matched +
            [(k, None) for k in sorted(fa, key=in_order) if k not in used_a] +
            [(None, k) for k in sorted(fb, key=in_order) if k not in used_b])


def expected_breaks(a, b):
    """{(change, reason, where before, where after)} of two frames' breaks:
    the same reason at the same place is the same; the same reason left
    on both sides has moved."""
    left_a, left_b = sorted(a - b), sorted(b - a)
    out = set()
    for x in list(left_a):
        y = next((y for y in left_b if y[0] == x[0]), None)
        if y:
            out.add(("moved", x[0], x[1], y[1]))
            left_a.remove(x)
            left_b.remove(y)
    out |= {("gone", x[0], x[1], None) for x in left_a}
    out |= {("appeared", y[0], None, y[1]) for y in left_b}
    return out


def without_ids(code):
    return re.sub(r"(___check_(?:obj|type)_id\(.*), \d+\)", r"\1, #)", code
                  or "")


def expected_guards_across_runs(a, b):
    """rc.expected_guard_changes without the changes that only an object or
    type id makes (two processes give one object two ids)."""
    changes = {c for c in rc.expected_guard_changes(a, b)
               if not (c[0] == "changed" and
                       without_ids(c[3]) == without_ids(c[4]))}
    removed = [c for c in changes if c[0] == "removed"]
    for c in sorted((c for c in changes if c[0] == "added"), key=str):
        twin = next((r for r in sorted(removed, key=str)
                     if r[1:3] == c[1:3] and
                     without_ids(r[3]) == without_ids(c[4])), None)
        if twin:
            removed.remove(twin)
            changes -= {twin, c}
    return changes


def mapping_kernels(files):
    """{kernel key: frozenset(post nodes)} of a compile's node mappings."""
    text = files.get("inductor_provenance_tracking_node_mappings")
    if not text:
        return None
    m = json.loads(text)
    out = {}
    for section in ("cppCodeToPost",):
        for key, nodes in (m.get(section) or {}).items():
            out.setdefault(key, set()).update(nodes)
    for post, keys in (m.get("postToCppCode") or {}).items():
        for key in keys:
            out.setdefault(key, set()).add(post)
    return {k: frozenset(v) for k, v in out.items()}


def run(*args):
    return subprocess.run([TLPARSE, "diff", *args, "--no-browser"],
                          capture_output=True, text=True,
                          env=dict(os.environ, CI="1"))


class RunDiff(unittest.TestCase):
    check_graph = rc.Recompiles.check_graph

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="tl-run-diff-")
        cls.outs = {}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def diff(self, a, b):
        if (a, b) not in self.outs:
            out = os.path.join(self.tmp, "%s_vs_%s" % (a, b))
            r = run(log(a), log(b), "-o", out, "-i", "--strict")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stderr, "")
            self.assertIn("tlparse: wrote %s/index.html" % out, r.stdout)
            self.outs[(a, b)] = out
        return self.outs[(a, b)]

    def load(self, out, name):
        with open(os.path.join(out, name), encoding="utf-8") as f:
            return json.load(f)

    def test_the_two_pairs_are_one_model(self):
        # rec-jit-cpu-2.14/2.15 were recorded by rec-jit-cpu's script: one
        # frame, the same function, the same graph ops.
        fa = frames_of(log("rec-jit-cpu"))
        for other in ("rec-jit-cpu-2.14", "rec-jit-cpu-2.15"):
            fb = frames_of(log(other))
            self.assertEqual(
                [(os.path.basename(f["file"]), f["function"], f["line"])
                 for f in fa.values()],
                [(os.path.basename(f["file"]), f["function"], f["line"])
                 for f in fb.values()])

    def test_frames_and_compiles_match_an_independent_reading(self):
        for a, b in PAIRS + SESSION_PAIRS:
            out = self.diff(a, b)
            self.check_frames(self.load(out, "diff.json"), log(a), log(b),
                              (a, b))

    def check_frames(self, got, la, lb, where_):
        """diff.json's frames, pairs and counts as read here from the logs
        `la` and `lb`."""
        fa, fb = frames_of(la), frames_of(lb)
        want = match_frames(fa, fb)
        self.assertEqual(len(got["frames"]), len(want), where_)
        summary = dict.fromkeys(
            ("frames_matched", "frames_only_a", "frames_only_b",
             "compiles_matched", "compiles_only_a", "compiles_only_b"), 0)
        for f, (ka, kb) in zip(got["frames"], want):
            where = where_ + (ka, kb)
            self.assertEqual(f["status"], "matched" if ka and kb else
                             "only_a" if ka else "only_b", where)
            one = fa[ka] if ka else fb[kb]
            self.assertEqual(f["function"], one["function"], where)
            self.assertEqual(f["session"], (ka or kb)[2], where)
            for side, key, frames in (("a", ka, fa), ("b", kb, fb)):
                if key is None:
                    self.assertIsNone(f[side], where)
                    continue
                self.assertEqual(f[side]["frame"], key[1], where)
                self.assertEqual(f[side]["line"], frames[key]["line"])
                self.assertEqual(
                    f[side]["compiles"],
                    [ids(key, c) for c in frames[key]["compiles"]], where)
            ca = fa[ka]["compiles"] if ka else []
            cb = fb[kb]["compiles"] if kb else []
            n = min(len(ca), len(cb))
            self.assertEqual(
                [(p["a"], p["b"]) for p in f["pairs"]],
                [(ids(ka, x), ids(kb, y)) for x, y in zip(ca, cb)], where)
            self.assertEqual(f["only_a"], [ids(ka, x) for x in ca[n:]],
                             where)
            self.assertEqual(f["only_b"], [ids(kb, y) for y in cb[n:]],
                             where)
            self.assertEqual(
                {(c["change"], c["reason"],
                  c["before"] and c["before"]["where"],
                  c["after"] and c["after"]["where"])
                 for c in f["graph_breaks"]},
                expected_breaks(fa[ka]["breaks"] if ka else set(),
                                fb[kb]["breaks"] if kb else set()),
                where)
            key = "matched" if ka and kb else "only_a" if ka else "only_b"
            summary["frames_" + key] += 1
            summary["compiles_matched"] += n
            summary["compiles_only_a"] += len(ca) - n
            summary["compiles_only_b"] += len(cb) - n
        for k, v in summary.items():
            self.assertEqual(got["summary"][k], v, where_ + (k,))
        return fa, fb, want

    def test_sessions_are_paired_in_order(self):
        """Session k of A with session k of B: B made here from
        rec-sessions without its third session (its frames only in A),
        and without its first (B's first is A's second: frame 0 is `shift`
        in B's, `scale` in A's, paired by function within the session;
        A's third session is A's alone)."""
        with open(log("rec-sessions")) as f:
            lines = f.read().split("\n")[:-1]
        recs = list(tracelog.records(log("rec-sessions")))
        sessions = tracelog.sessions(log("rec-sessions"))
        self.assertEqual(max(sessions), 3)
        first = {}
        for (n, _, _), s in zip(recs, sessions):
            first.setdefault(s, n)
        # each session from its first entry (entries before its first
        # dynamo_start that belong to the one before are chromium events,
        # which no compile reads)
        # (the file names interned before the second session kept)
        strings = [lines[n - 1] for n, env, _ in recs
                   if n < first[2] and tracelog.kind(env) == "str"]
        cases = {"two_sessions": lines[:first[3] - 1],
                 "later_sessions": strings + lines[first[2] - 1:]}
        for name, kept in cases.items():
            b = os.path.join(self.tmp, name + ".log")
            with open(b, "w") as f:
                f.write("\n".join(kept) + "\n")
            out = os.path.join(self.tmp, "sessions_vs_" + name)
            r = run(log("rec-sessions"), b, "-o", out)
            self.assertEqual(r.returncode, 0, r.stderr)
            got = self.load(out, "diff.json")
            self.assertEqual((got["a"]["sessions"], got["b"]["sessions"]),
                             (3, 2), name)
            self.check_frames(got, log("rec-sessions"), b, (name,))
            self.assertEqual(links.broken_links(out), [])
            with open(os.path.join(out, "index.html")) as f:
                index = f.read()
            if name == "two_sessions":
                self.assertEqual(got["summary"]["compiles_matched"], 6)
                self.assertEqual(got["summary"]["compiles_only_a"], 1)
                self.assertEqual(
                    [(f["function"], f["session"], f["status"])
                     for f in got["frames"]][-1], ("scale", 3, "only_a"))
                self.assertIn("scale (record_sessions.py:20) #2", index)
            else:
                self.assertEqual(
                    [(f["function"], f["session"], f["a"] and f["a"]["frame"],
                      f["b"] and f["b"]["frame"]) for f in got["frames"]],
                    [("scale", 1, 0, 1), ("shift", 1, 1, 0),
                     ("scale", 2, 1, 0), ("shift", 2, 0, None),
                     ("scale", 3, 0, None)])

    def test_the_change_is_what_was_changed(self):
        # What the recording changed, as the user would read it.
        got = self.load(self.diff("rec-change-before", "rec-change-after"),
                        "diff.json")
        by_function = {f["function"]: f for f in got["frames"]}
        forward = by_function["forward"]
        self.assertEqual(forward["status"], "matched")
        self.assertEqual([(c["change"], c["before"]["where"],
                           c["after"]["where"])
                          for c in forward["graph_breaks"]],
                         [("moved", "change_model.py:29",
                           "change_model.py:33")])
        self.assertEqual(by_function["postprocess"]["status"], "only_b")
        self.assertEqual(
            by_function["torch_dynamo_resume_in_forward_at_29"]["status"],
            "only_a")
        self.assertEqual(
            by_function["torch_dynamo_resume_in_forward_at_33"]["status"],
            "only_b")
        self.assertEqual(got["summary"]["graph_breaks_moved"], 1)
        for p in forward["pairs"]:
            self.assertTrue(p["changed"])
            # fc2 and the relu moved into forward's graph: both kernels new
            self.assertEqual(p["kernels"]["added"], 2)
            self.assertEqual(p["kernels"]["removed"], 0)
        # both new kernels are new provenance; gelu's and fc1's addmm are
        # made from the same nodes (the gelu's code changed: 32 -> 48)
        self.assertEqual(got["summary"]["kernels_provenance_changed"], 4)

    def test_each_pair_matches_an_independent_reading(self):
        checked = 0

        def key(frame, shown):
            """rc.compiles' key of a compile shown as "[1/0] #2"."""
            ids, _, session = shown.partition(" #")
            return ("-", frame, int(ids[1:-1].split("/")[1])) + (
                (int(session),) if session else ())
        for a, b in PAIRS + SESSION_PAIRS:
            out = self.diff(a, b)
            got = self.load(out, "diff.json")
            ca, cb = rc.compiles(log(a)), rc.compiles(log(b))
            for f in got["frames"]:
                for p in f["pairs"]:
                    d = self.load(out, p["diff"])
                    ka, kb = key(f["a"]["frame"], p["a"]), key(f["b"]["frame"],
                                                               p["b"])
                    self.assertEqual(p["diff"], "compile_-_%d_%d_vs_-_%d_%d%s"
                                     ".json" % (ka[1], ka[2], kb[1], kb[2],
                                                "_session_%d" % f["session"]
                                                if f["session"] > 1 else ""))
                    self.assertEqual(d["before"]["session"], f["session"])
                    self.assertEqual(d["after"]["session"], f["session"])
                    xa, xb = ca[ka], cb[kb]
                    where = (a, b, p["a"], p["b"])
                    self.assertTrue(d["before"]["folder"].startswith("a/"))
                    self.assertTrue(d["after"]["folder"].startswith("b/"))
                    self.assertNotIn("reasons", d)
                    g = d["guards"]
                    self.assertEqual(
                        {(c["change"], c["kind"], c["source"],
                          c.get("before"), c.get("after"))
                         for c in g["changes"]},
                        expected_guards_across_runs(
                            xa["dynamo_cpp_guards_str"],
                            xb["dynamo_cpp_guards_str"]), where)
                    self.assertEqual(p["guards_differ"], len(g["changes"]))
                    for graph, kind in (("dynamo", "dynamo_output_graph"),
                                        ("pre_grad", "pre"),
                                        ("post_grad", "post")):
                        if xa.get(kind) is None or xb.get(kind) is None:
                            # a cache hit logs no pre-grad graph
                            self.assertFalse(
                                d["graphs"][graph]["available"], where)
                            continue
                        self.check_graph(d["graphs"][graph], xa[kind],
                                         xb[kind], where + (graph,))
                        self.assertEqual(p["graphs"][graph],
                                         d["graphs"][graph]["summary"])
                        checked += 1
                    self.check_kernels(d, xa, xb, where)
        self.assertGreaterEqual(checked, 12)

    def check_kernels(self, d, xa, xb, where):
        k = d["kernels"]
        ma, mb = mapping_kernels(xa), mapping_kernels(xb)
        self.assertTrue(k["available"], where)
        s = k["summary"]
        self.assertEqual(s["same"] + s["renamed"] + s["changed"] +
                         s["removed"], len(ma), where)
        self.assertEqual(s["same"] + s["renamed"] + s["changed"] +
                         s["added"], len(mb), where)
        # Through the post-grad alignment, A's nodes named as B's: the
        # kernels made from exactly the nodes of a kernel of B are paired
        # with it, their nodes unchanged.
        rows = d["graphs"]["post_grad"]["nodes"]
        to_b = {r["before"]["name"]: r["after"]["name"] for r in rows
                if r["before"] and r["after"]}
        want_b = sorted(frozenset(to_b[n] for n in nodes if n in to_b)
                        for nodes in ma.values())
        have_b = list(mb.values())
        exact = 0
        for nodes in want_b:
            if nodes in have_b:
                have_b.remove(nodes)
                exact += 1
        paired = [r for r in k["kernels"] if r["before"] and r["after"]]
        self.assertEqual(len([r for r in paired if not r["nodes_changed"]]),
                         exact, where)
        self.assertEqual(len(paired), s["same"] + s["renamed"] +
                         s["changed"], where)

    def test_a_training_step_on_two_torch_versions_compares_its_backward(
            self):
        """rec-train-cpu on torch 2.13 and 2.14.1: the model's compile has
        a forward and a backward; the backward's AOT graph and post-grad
        graph match the independent reading, diff.json gives their
        summaries and the backward kernels', and a pair is changed when
        anything of it, the backward's too, differs."""
        a, b = "rec-train-cpu", "rec-train-cpu-2.14"
        out = self.diff(a, b)
        got = self.load(out, "diff.json")
        ca, cb = rc.compiles(log(a)), rc.compiles(log(b))
        backward = 0
        for f in got["frames"]:
            for p in f["pairs"]:
                d = self.load(out, p["diff"])
                ka = ("-", f["a"]["frame"], int(p["a"][1:-1].split("/")[1]))
                kb = ("-", f["b"]["frame"], int(p["b"][1:-1].split("/")[1]))
                xa, xb = ca[ka], cb[kb]
                where = (p["a"], p["b"])
                for key, kind in (("backward", "aot_backward_graph"),
                                  ("backward_post_grad", "bw_post")):
                    if not xa.get(kind) or not xb.get(kind):
                        self.assertFalse(d["graphs"][key]["available"])
                        self.assertIsNone(p["graphs"][key])
                        continue
                    self.check_graph(d["graphs"][key], xa[kind], xb[kind],
                                     where + (key,))
                    self.assertEqual(p["graphs"][key],
                                     d["graphs"][key]["summary"])
                    backward += 1
                bk = d["backward_kernels"]
                self.assertEqual(p["backward_kernels"], bk["summary"]
                                 if bk["available"] else None, where)
                post = d["graphs"]["backward_post_grad"]
                if post["available"]:
                    # The backward's nodes link the provenance pages whose
                    # view is of the backward's post-grad graph.
                    with open(os.path.join(out, p["diff"][:-5] + ".html"),
                              encoding="utf-8") as f:
                        page = f.read()
                    section = page[page.index(
                        "<h2>Backward post-grad graph</h2>"):]
                    section = section[:section.index("<h2", 4)]
                    linked = sorted(set(re.findall(
                        r'href="([^"#]*)\.html#post=', section)))
                    graphs = []
                    for run_page in linked:
                        view = self.load(out, run_page + ".json")
                        graphs.append(run_page.split("/")[0] + "/" +
                                      view["artifacts"]["post_grad_graph"])
                    self.assertEqual(graphs, [post["before"], post["after"]],
                                     where)

                def changes(s):
                    return s and s["changed"] + s["added"] + s["removed"]
                self.assertEqual(p["changed"], bool(
                    p["guards_differ"] or
                    any(changes(s) for s in p["graphs"].values()) or
                    changes(p["kernels"]) or changes(p["backward_kernels"])),
                    where)
        self.assertEqual(backward, 2)

    def test_aot_compiles_without_a_compile_id_are_one_frame(self):
        # AOTInductor logs its compilation without a compile id: one pair,
        # its graphs and kernels as read here, on torch 2.13 vs 2.14 / 2.15.
        for other in ("rec-aot-cpu-2.14", "rec-aot-cpu-2.15"):
            out = self.diff("rec-aot-cpu", other)
            got = self.load(out, "diff.json")
            unnamed = [f for f in got["frames"] if f["a"] and
                       f["a"]["frame"] == -1]
            self.assertEqual(len(unnamed), 1, other)
            f = unnamed[0]
            self.assertEqual(f["status"], "matched")
            self.assertEqual(f["function"],
                             "(no compile id: torch.export or AOTInductor)")
            self.assertEqual([(p["a"], p["b"]) for p in f["pairs"]],
                             [("[-/-]", "[-/-]")])
            d = self.load(out, f["pairs"][0]["diff"])
            xa = unnamed_files(log("rec-aot-cpu"))
            xb = unnamed_files(log(other))
            for key, kind in (("pre_grad", "pre"), ("post_grad", "post")):
                self.check_graph(d["graphs"][key], xa[kind], xb[kind],
                                 (other, key))
            self.assertFalse(d["graphs"]["dynamo"]["available"])
            self.check_kernels(d, xa, xb, other)
            # the frames with a compile id: none compiled in either run
            self.assertEqual(len(got["frames"]), 1, other)

    def test_the_aot_wrappers_c_api_is_compared_function_by_function(self):
        # The AOT wrapper keeps its C API in `extern "C" { }` blocks, which
        # are read into their members: each function is a unit of its own
        # name. Read here: the names of the wrapper's `AOTIRuntimeError
        # NAME(` functions (at a line's start) of each run. A name in both
        # is paired (same or changed, never added nor removed, even where a
        # macro makes it a declaration to the parser in one run); one in a
        # single run is added or removed under its name.
        def api(text):
            names = []
            for line in text.split("\n"):
                head = line.split("(")[0].split()
                if len(head) == 2 and head[0] == "AOTIRuntimeError" and \
                        line.startswith("AOTIRuntimeError"):
                    names.append(head[1])
            return names
        checked = 0
        xa = unnamed_files(log("rec-aot-cpu"))
        for other in ("rec-aot-cpu-2.14", "rec-aot-cpu-2.15"):
            xb = unnamed_files(log(other))
            na = api(xa["inductor_aot_wrapper_code"])
            nb = api(xb["inductor_aot_wrapper_code"])
            self.assertGreater(len(na), 20, other)
            out = self.diff("rec-aot-cpu", other)
            f = [f for f in self.load(out, "diff.json")["frames"]
                 if f["a"] and f["a"]["frame"] == -1][0]
            units = self.load(out, f["pairs"][0]["diff"])["kernels"][
                "other_code"]["units"]
            self.assertLess(len(units), 200, other)  # none cut
            listed = {}
            for u in units:
                listed.setdefault(u["name"], []).append(u["change"])
            for name in na + nb:
                got = listed.get(name, ["same"])
                want = ("changed", "same") if name in na and name in nb \
                    else ("removed",) if name in na else ("added",)
                self.assertIn(got[0], want, (other, name, got))
                self.assertEqual(len(got), 1, (other, name, got))
                checked += 1
        self.assertGreater(checked, 80)

    def test_pages_link_up_and_escape(self):
        out = self.diff("rec-change-before", "rec-change-after")
        self.assertEqual(links.broken_links(out), [])
        with open(os.path.join(out, "index.html"), encoding="utf-8") as f:
            index = f.read()
        self.assertIn("Graph break moved from <code>change_model.py:29</code>"
                      " to <code>change_model.py:33</code>", index)
        self.assertIn('href="compile_-_0_0_vs_-_0_0.html"', index)
        with open(os.path.join(out, "compile_-_0_0_vs_-_0_0.html"),
                  encoding="utf-8") as f:
            page = f.read()
        # post-grad lines link each run's own provenance page
        self.assertRegex(page, r'href="a/provenance_tracking_-_0_0_\d+'
                               r'\.html#post=\d+"')
        self.assertRegex(page, r'href="b/provenance_tracking_-_0_0_\d+'
                               r'\.html#post=\d+"')
        self.assertNotIn("<script", page)

    def test_the_output_folder_rules_are_the_main_commands(self):
        out = os.path.join(self.tmp, "rules")
        a, b = log("rec-jit-cpu"), log("rec-jit-cpu-2.14")
        self.assertEqual(run(a, b, "-o", out).returncode, 0)
        r = run(a, b, "-o", out)  # exists: refused, kept
        self.assertEqual(r.returncode, 1)
        self.assertIn("tlparse: diff: ", r.stderr)
        self.assertEqual(len(r.stderr.strip().split("\n")), 1)
        r = run(a, b, "-o", out, "--overwrite")  # our own report: replaced
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(out, "mine.txt"), "w") as f:
            f.write("a user's file")
        r = run(a, b, "-o", out, "--overwrite")  # not ours alone: kept
        self.assertEqual(r.returncode, 1)
        self.assertIn("mine.txt", r.stderr)
        self.assertTrue(os.path.exists(os.path.join(out, "mine.txt")))
        # the default folder is tl_diff, in the current folder
        r = subprocess.run([TLPARSE, "diff", a, b, "--no-browser"],
                           cwd=self.tmp, capture_output=True, text=True,
                           env=dict(os.environ, CI="1"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(os.path.isfile(os.path.join(self.tmp, "tl_diff",
                                                    "diff.json")))

    # ---- hostile pairs --------------------------------------------------

    def test_one_side_empty(self):
        empty = os.path.join(self.tmp, "empty.log")
        open(empty, "w").close()
        out = os.path.join(self.tmp, "empty_vs_change")
        r = run(empty, log("rec-change-after"), "-o", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        got = self.load(out, "diff.json")
        fb = frames_of(log("rec-change-after"))
        self.assertEqual(got["summary"]["frames_only_b"], len(fb))
        self.assertEqual(got["summary"]["compiles_matched"], 0)
        self.assertEqual(got["summary"]["graph_breaks_appeared"],
                         sum(len(f["breaks"]) for f in fb.values()))
        self.assertEqual(got["a"]["compiles"], 0)
        r = run(empty, empty, "-o", os.path.join(self.tmp, "both_empty"))
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(self.tmp, "both_empty", "index.html")) as f:
            self.assertIn("Neither run compiled anything", f.read())

    def test_unrelated_logs(self):
        a, b = "rec-jit-cpu", "rec-recompiles"
        out = self.diff(a, b)
        got = self.load(out, "diff.json")
        want = match_frames(frames_of(log(a)), frames_of(log(b)))
        self.assertEqual([(f["a"] and f["a"]["frame"],
                           f["b"] and f["b"]["frame"])
                          for f in got["frames"]],
                         [(x and x[1], y and y[1]) for x, y in want])

    def test_a_file_that_cannot_be_written_is_named_under_the_output(self):
        # Under a 200 KB file-size limit run A's raw.log (its 517 KB log)
        # cannot be written: both lines name it under -o, not under the
        # staging folder the run wrote into (gone when they are read), and
        # nothing is left.
        out = os.path.join(self.tmp, "limited")
        a, b = log("rec-jit-cpu"), log("rec-change-after")

        def limit_file_size():
            resource.setrlimit(resource.RLIMIT_FSIZE, (200000, 200000))
        r = subprocess.run([TLPARSE, "diff", a, b, "-o", out, "--no-browser"],
                           capture_output=True, text=True,
                           env=dict(os.environ, CI="1"),
                           preexec_fn=limit_file_size)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stderr, (
            "tlparse: %s: cannot write %s/a/raw.log: File too large (1 output "
            "file not written)\n"
            "tlparse: diff: cannot write %s/a/raw.log: File too large\n")
            % (a, out, out))
        self.assertFalse(os.path.exists(out))
        self.assertEqual([n for n in os.listdir(self.tmp)
                          if n.startswith("limited")], [])

    def test_a_missing_input_is_named_and_nothing_written(self):
        out = os.path.join(self.tmp, "missing")
        gone = os.path.join(self.tmp, "no-such.log")
        for args in ((gone, log("rec-jit-cpu")), (log("rec-jit-cpu"), gone)):
            r = run(*args, "-o", out)
            self.assertEqual(r.returncode, 1)
            self.assertEqual(r.stderr.count("\n"), 1, r.stderr)
            self.assertIn(gone, r.stderr)
            self.assertFalse(os.path.exists(out))
        r = run(log("rec-jit-cpu"), "-o", out)
        self.assertEqual(r.returncode, 1)
        self.assertIn("missing B", r.stderr)

    def test_a_folder_is_its_log_and_rank_logs_are_refused(self):
        # A TORCH_TRACE folder with one log is that log.
        trace_a = os.path.join(self.tmp, "trace_a")
        trace_b = os.path.join(self.tmp, "trace_b")
        for folder, name in ((trace_a, "rec-jit-cpu"),
                             (trace_b, "rec-jit-cpu-2.14")):
            os.makedirs(folder, exist_ok=True)
            shutil.copy(log(name), os.path.join(
                folder, "dedicated_log_torch_trace_x.log"))
        out = os.path.join(self.tmp, "folders")
        r = run(trace_a, trace_b, "-o", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr, "")
        self.assertEqual(self.load(out, "diff.json")["summary"]
                         ["compiles_matched"], 1)
        # Several logs: the latest, named on stderr.
        older = os.path.join(trace_b, "dedicated_log_torch_trace_old.log")
        shutil.copy(log("rec-recompiles"), older)
        os.utime(older, (1, 1))
        r = run(trace_a, trace_b, "-o", out, "--overwrite")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("holds 2 logs; comparing the latest, %s" % os.path.join(
            trace_b, "dedicated_log_torch_trace_x.log"), r.stderr)
        # Rank logs beside one log: refused, naming what to give.
        ranks = os.path.join(EXAMPLES, "rec-gloo-2rank")
        r = run(ranks, log("rec-jit-cpu"), "-o", out + "2")
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stderr.count("\n"), 1, r.stderr)
        self.assertIn("holds 2 rank logs and %s (B) one log" %
                      log("rec-jit-cpu"), r.stderr)
        self.assertIn("dedicated_log_torch_trace_rank_0.log", r.stderr)
        self.assertFalse(os.path.exists(out + "2"))

    def test_two_jobs_are_compared_rank_by_rank(self):
        ranks = os.path.join(EXAMPLES, "rec-gloo-2rank")
        logs = sorted(f for f in os.listdir(ranks) if f.endswith(".log"))
        self.assertEqual(len(logs), 2)
        # B: the same job without rank 1.
        only0 = os.path.join(self.tmp, "only_rank0")
        os.makedirs(only0, exist_ok=True)
        shutil.copy(os.path.join(ranks, logs[0]), only0)
        shutil.copy(os.path.join(ranks, logs[0]),
                    os.path.join(only0, logs[0].replace(".log", "_b.log")))
        out = os.path.join(self.tmp, "ranks")
        r = run(ranks, only0, "-o", out)  # two logs of rank 0 in B
        self.assertEqual(r.returncode, 1)
        self.assertIn("holds two logs of rank 0", r.stderr)
        self.assertFalse(os.path.exists(out))
        os.remove(os.path.join(only0, logs[0].replace(".log", "_b.log")))
        r = run(ranks, only0, "-o", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        top = self.load(out, "diff.json")
        self.assertEqual([x["rank"] for x in top["ranks"]], [0])
        self.assertEqual((top["ranks_only_a"], top["ranks_only_b"]), ([1], []))
        got = self.load(out, "rank_0/diff.json")
        fa = frames_of(os.path.join(ranks, logs[0]))
        want = match_frames(fa, fa)
        self.assertEqual([(f["a"]["frame"], f["b"]["frame"])
                          for f in got["frames"]],
                         [(x[1], y[1]) for x, y in want])
        self.assertEqual(got["summary"]["compiles_matched"],
                         sum(len(f["compiles"]) for f in fa.values()))
        self.assertEqual(got["summary"]["compiles_changed"], 0)
        self.assertEqual(top["ranks"][0]["summary"], got["summary"])
        self.assertEqual(links.broken_links(out), [])
        # No rank in common: refused before anything is written.
        other = os.path.join(self.tmp, "rank5")
        os.makedirs(other, exist_ok=True)
        for k in (5, 6):
            shutil.copy(os.path.join(ranks, logs[0]), os.path.join(
                other, "dedicated_log_torch_trace_rank_%d.log" % k))
        r = run(ranks, other, "-o", out + "2")
        self.assertEqual(r.returncode, 1)
        self.assertIn("no rank in common: ranks 0 to 1 and 5 to 6", r.stderr)
        self.assertFalse(os.path.exists(out + "2"))

    def test_thousands_of_compiles_stay_bounded(self):
        # 2,000 functions compiled once in each run, every graph one op
        # wider in B: 2,000 pairs, each a page and a JSON file of the size
        # of the two small graphs it compares. The output is bounded by the
        # documented multiple of the inputs (docs/run-diff-json.md); no
        # time is asserted (measured in that page).
        n = 2000

        def trace(width):
            parts = ['V0101 00:00:00.000000 1 m.py:1] {"str": ["/w/m.py", 0]}'
                     '\n']
            for i in range(n):
                graph = ('class GraphModule(torch.nn.Module):\n'
                         '    def forward(self, L_x_: "f32[%d][1]cpu"):\n'
                         '        l_x_ = L_x_\n'
                         '        sin: "f32[%d][1]cpu" = torch.sin(l_x_)\n'
                         '        return (sin,)' % (width, width))
                ids = {"frame_id": i, "frame_compile_id": 0, "attempt": 0}
                start = dict(ids, dynamo_start={"stack": [
                    {"line": 10 + i, "name": "f%d" % i, "filename": 0}]})
                parts.append("V0101 00:00:00.000000 1 m.py:1] %s\n"
                             % json.dumps(start))
                md5 = hashlib.md5(graph.encode()).hexdigest()
                parts.append("V0101 00:00:00.000000 1 m.py:1] %s\n"
                             % json.dumps(dict(ids, dynamo_output_graph={},
                                               has_payload=md5)))
                parts += ["\t%s\n" % l for l in graph.split("\n")]
            path = os.path.join(self.tmp, "w%d.log" % width)
            with open(path, "w") as f:
                f.write("".join(parts))
            return path
        a, b = trace(4), trace(5)
        out = os.path.join(self.tmp, "thousands")
        r = run(a, b, "-o", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        got = self.load(out, "diff.json")
        self.assertEqual(got["summary"]["compiles_matched"], n)
        self.assertEqual(got["summary"]["compiles_changed"], n)
        last = self.load(out, "compile_-_%d_0_vs_-_%d_0.json" % (n - 1, n - 1))
        # l_x_ and the output (sin,) the same; L_x_ and sin of a new width
        self.assertEqual(last["graphs"]["dynamo"]["summary"],
                         {"same": 2, "renamed": 0, "changed": 2, "removed": 0,
                          "added": 0})
        size_in = os.path.getsize(a) + os.path.getsize(b)
        size_out = sum(os.path.getsize(os.path.join(root, f))
                       for root, _, files in os.walk(out) for f in files)
        self.assertLessEqual(size_out, 16 * size_in + 2 * 256 * 1024 +
                             n * 8 * 1024,
                             "%d bytes for %d" % (size_out, size_in))


if __name__ == "__main__":
    unittest.main()
