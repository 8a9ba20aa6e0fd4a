"""The recompile diffs (src/diff/, src/emit/recompile_pages.c) against an
independent reading of the same traces.

For every frame of the recorded examples that compiled more than once, the
trace is read here again (tracelog.py), and:
- the reasons: each line of the later compile's recompile_reasons (a text,
  or a JSON array of lines), its compile id, its kind and its numbers, and
  the sentence the index shows, derived here from the line;
- the guards: the leaf guards of both compiles' guard trees, those that
  differ (Dynamo's ___N global numbers read as one), changed where one
  guard of a kind on a source is left on each side;
- the graphs: each forward read with Python's `ast`; the node pairs the
  tool reports must be a longest common subsequence of the two op
  sequences (computed here), in order, each pair's verdict (same, renamed,
  type or arguments changed) right by this reading, arguments compared
  through the tool's pairing;
- the kernels: each compile's node mappings (cppCodeToPost) read here,
  every kernel of both compiles listed once, the kernels whose nodes,
  carried through the post-grad pairing, are exactly another's paired with
  it, each pair's verdict (nodes, fused ops, code: the definition read
  with `ast` from the output code, its own name left out) right;
- the metrics: compilation_metrics of each compile as logged.

Environment: TLPARSE (the binary).
"""

import ast
import hashlib
import html
import io
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tokenize
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tracelog  # noqa: E402

TLPARSE = os.environ.get("TLPARSE", "tlparse")
EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                        "..", "examples")
RECORDINGS = ["rec-recompiles", "rec-dynamic", "rec-recompile-kernels",
              "rec-train-recompiles", "rec-sessions"]


def compiles(path):
    """{(autograd, frame, compile): {name: payload}}: per compile, the first
    payload of each kind, its attempts read from the last one down. A
    compile of a later session (tracelog.sessions: the ids restarted) is
    keyed (autograd, frame, compile, session)."""
    found, metrics, logged = {}, {}, {}
    for (_, env, payload), session in zip(tracelog.records(path),
                                          tracelog.sessions(path)):
        if env.get("frame_id") is None or env.get("frame_compile_id") is None:
            continue
        key = ("-" if env.get("compiled_autograd_id") is None
               else str(env["compiled_autograd_id"]), env["frame_id"],
               env["frame_compile_id"]) + ((session,) if session > 1 else ())
        if "compilation_metrics" in env:
            metrics.setdefault(key, env["compilation_metrics"])
        k = tracelog.kind(env)
        name = env["artifact"]["name"] if k == "artifact" else k
        attempt = env.get("attempt") or 0
        found.setdefault(key, {}).setdefault(attempt, {}).setdefault(
            name, payload)
        logged.setdefault((key, attempt), []).append((name, payload))
    out = {}
    for key, attempts in found.items():
        files = {}
        for attempt in sorted(attempts, reverse=True):
            for name, payload in attempts[attempt].items():
                files.setdefault(name, payload)
        files["metrics"] = metrics.get(key)
        files["pre"] = files.get("before_pre_grad_graph",
                                 files.get("inductor_pre_grad_graph"))
        files["post"] = files.get("after_post_grad_graph",
                                  files.get("inductor_post_grad_graph"))
        files.update(backward_of(files, [logged[(key, attempt)]
                                         for attempt in sorted(
                                             attempts, reverse=True)]))
        out[key] = files
    return out


POST_GRAD = ("after_post_grad_graph", "inductor_post_grad_graph")
CODE = ("inductor_output_code", "inductor_aot_wrapper_code")


def backward_of(files, attempts):
    """A training compile's backward (it logged an aot_backward_graph): in
    the attempt that logged the forward's post-grad graph, the next
    post-grad graph of that name, and the output code and node mappings
    after it, before any further post-grad graph."""
    if files.get("aot_backward_graph") is None or files["post"] is None:
        return {}
    kind = "after_post_grad_graph" if files.get("after_post_grad_graph") \
        is not None else "inductor_post_grad_graph"
    for records in attempts:
        graphs = [i for i, (name, _) in enumerate(records) if name == kind]
        if not graphs:
            continue
        if len(graphs) < 2:
            return {}
        out = {"bw_post": records[graphs[1]][1]}
        for name, payload in records[graphs[1] + 1:]:
            if name in POST_GRAD:
                break
            if name in CODE:
                out.setdefault("bw_code", payload)
            if name == "inductor_provenance_tracking_node_mappings":
                out.setdefault("bw_mappings", payload)
        return out
    return {}


# ---- reasons --------------------------------------------------------------

TENSOR = re.compile(r"tensor '([^']*)' (.+?) mismatch(?: at index (\d+))?\."
                    r"(?: expected (.*?)(?:, actual (.*))?)?$")


def reason_lines(payload):
    try:
        value = json.loads(payload)
    except ValueError:
        value = None
    # A JSON array's line may hold the user's stack after its reason
    # ("...\nUser stack trace:\n  File ..."): its lines read as the text's.
    return [part for line in value for part in line.split("\n")] \
        if isinstance(value, list) else payload.split("\n")


def top_level_split(text):
    """The reasons of one line: split at "; " outside brackets (a guard's
    comment may hold "(... framework; to avoid ...)")."""
    out, depth, start, i = [], 0, 0, 0
    while i < len(text):
        c = text[i]
        if c in "([{":
            depth += 1
        elif c in ")]}" and depth:
            depth -= 1
        elif text.startswith("; ", i) and depth == 0:
            out.append(text[start:i])
            start = i + 2
            i += 1
        i += 1
    return out + [text[start:]]


def expected_reasons(payload, session=1):
    """The reasons of a compile of session `session`: its words name the
    earlier compile (of that session too) as the pages label it, "[0/0]",
    "[!0/0/0]", in a later session "[0/0] #2"."""
    out = []
    for line in reason_lines(payload or ""):
        m = re.match(r"([0-9_!/]+): (.*)$", line.strip())
        if not m or "/" not in m.group(1):
            continue
        label = "[%s]%s" % (m.group(1),
                            " #%d" % session if session > 1 else "")
        for text in top_level_split(m.group(2)):
            where = ""
            if "  #" in text:
                text, where = text.split("  #", 1)
            text, where = text.strip(), where.strip()
            r = {"earlier": m.group(1), "text": text}
            t = TENSOR.match(text)
            if t:
                name, what, index, expected, actual = t.groups()
                r["kind"] = "tensor"
                words = "%s was compiled for tensor %s with %s %s" % (
                    label, name, what, expected)
                if index:
                    words += " at dimension " + index
                words += "; it is now " + actual if actual else \
                    "; it differs now"
                r["words"] = words
            elif ("<" in text or ">" in text) and "size()" in text:
                r["kind"] = "size_range"
                r["words"] = ("%s was compiled for sizes in a range that "
                              "no longer holds: %s" % (label, text))
            elif " == " in text and "<" not in text and ">" not in text:
                subject, value = text.split(" == ", 1)
                r["kind"] = "equals"
                r["words"] = ("%s was compiled for %s == %s; that no longer "
                              "holds" % (label, subject, value))
            if where:
                r["where"] = where
            out.append(r)
    return out


# ---- guards ---------------------------------------------------------------

def leaf_guards(text):
    sources, out = {}, []
    for line in (text or "").split("\n"):
        m = re.match(r"((?:\| )*)\+- (.*)$", line)
        if not m:
            continue
        level, item = len(m.group(1)) // 2, m.group(2)
        head, sep, rest = item.partition(":")
        if head.strip().endswith("GuardManager") or not sep:
            s = re.search(r"source=(.*?)(?:, accessed_by=|$)", rest)
            sources[level + 1] = s.group(1) if s else ""
            continue
        code = re.split(r"  +#", rest.strip(), maxsplit=1)[0].strip()
        out.append((head.strip(), sources.get(level, ""), code))
    return out


def norm(s):
    return re.sub(r"(?<=___)\d+", "#", s)


def expected_guard_changes(a, b):
    ka = [(norm(s), k, norm(c), s, c) for k, s, c in leaf_guards(a)]
    kb = [(norm(s), k, norm(c), s, c) for k, s, c in leaf_guards(b)]
    left_a = list(ka)
    left_b = []
    for g in kb:
        same = next((x for x in left_a if x[:3] == g[:3]), None)
        if same:
            left_a.remove(same)
        else:
            left_b.append(g)
    changes = set()
    for g in list(left_b):
        on_a = [x for x in left_a if x[:2] == g[:2]]
        on_b = [x for x in left_b if x[:2] == g[:2]]
        if len(on_a) == 1 and len(on_b) == 1:
            changes.add(("changed", g[1], g[3], on_a[0][4], g[4]))
            left_a.remove(on_a[0])
            left_b.remove(g)
    changes |= {("added", g[1], g[3], None, g[4]) for g in left_b}
    changes |= {("removed", g[1], g[3], g[4], None) for g in left_a}
    return changes


def top_level_args(call):
    """The arguments of `f(a, b=[1, 2])`, split at top-level commas."""
    inner = call[call.index("(") + 1:-1]
    out, depth, cur = [], 0, ""
    for c in inner + ",":
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += c
    return out


def dims_words(x, y):
    """What changed from size list x to y (lists of str), in words."""
    if len(x) != len(y):
        return ["rank %d -> %d ([%s] -> [%s])" % (
            len(x), len(y), ", ".join(x), ", ".join(y))]
    out = []
    for d, (p, q) in enumerate(zip(x, y)):
        if p == q:
            continue
        how = "became dynamic" if p.isdigit() and not q.isdigit() else \
            "became static" if q.isdigit() and not p.isdigit() else "size"
        out.append("dim %d %s (%s -> %s)" % (d, how, p, q))
    return out


def tensor_guard_words(before, after):
    """The words of a changed check_tensor guard, or None."""
    if not (before and after and before.startswith("check_tensor(") and
            after.startswith("check_tensor(")):
        return None
    a, b = top_level_args(before), top_level_args(after)
    if len(a) != len(b):
        return None
    out, sizes = [], False
    for x, y in zip(a, b):
        if x == y:
            continue
        if x.startswith("torch.") and y.startswith("torch."):
            out.append("dtype %s -> %s" % (x, y))
        elif x.startswith("size=[") and y.startswith("size=["):
            split = (lambda v: [d.strip() for d in v[6:-1].split(",")]
                     if v[6:-1].strip() else [])
            out += dims_words(split(x), split(y))
            sizes = True
        else:
            for key in ("device", "requires_grad"):
                if x.startswith(key + "=") and y.startswith(key + "="):
                    out.append("%s %s -> %s" % (key, x[len(key) + 1:],
                                                y[len(key) + 1:]))
    if not sizes and not out:
        for x, y in zip(a, b):
            if x.startswith("stride=") and y.startswith("stride=") and \
                    x != y:
                out.append("strides %s -> %s" % (x[7:], y[7:]))
    return "; ".join(out) or None


# ---- graphs ---------------------------------------------------------------

def in_order(node):
    yield node
    for child in ast.iter_child_nodes(node):
        yield from in_order(child)


def placeholder_op(t):
    head = re.match(r"[^\[(]*", t).group(0)
    if not t[len(head):].startswith("["):
        return "placeholder " + t  # Sym(s77): with its symbol
    inside = t[len(head) + 1:t.index("]")]
    return "placeholder %s %dd" % (head, inside.count(",") + 1 if inside
                                   else 0)


def source_key(comment):
    """A `# File:` comment's text -> its file name, function and code:
    `/w/m.py:10 in f, code: y = x + 1` -> `m.py in f, code: y = x + 1`."""
    head, sep, code = comment.partition(", code: ")
    where, sep_in, function = head.rpartition(" in ")
    if not sep_in:
        return comment
    path = where.rpartition(":")[0] if ":" in where else where
    path = re.split(r"[/\\]", path)[-1]
    return path + " in " + function + sep + code


def comments_of(text):
    """[(line, text)] of every comment of the text, by Python's tokenizer."""
    return [(t.start[0], t.string) for t in
            tokenize.generate_tokens(io.StringIO(text).readline)
            if t.type == tokenize.COMMENT]


def is_method_of_node(value, names):
    return (isinstance(value, ast.Call) and
            isinstance(value.func, ast.Attribute) and
            isinstance(value.func.value, ast.Name) and
            value.func.value.id in names)


def call_parts(value, names):
    """The arguments of a node's value, a method's node first."""
    if not isinstance(value, ast.Call):
        return [value]
    head = [value.func.value] if is_method_of_node(value, names) else []
    return head + value.args + [k.value for k in value.keywords]


def graph_nodes(text):
    """[(name, op, type, value or None, line, source)] of the outer forward;
    source: the last `# File:` comment above the node in the forward
    (None without, or after a `# No stacktrace found`)."""
    text = text.replace("<lambda>", "_lambda_")
    fn = next(n for n in in_order(ast.parse(text))
              if isinstance(n, ast.FunctionDef) and n.name == "forward")
    notes = [(line, c) for line, c in comments_of(text)
             if fn.lineno <= line <= fn.end_lineno]

    def source(line):
        found = None
        for at, c in notes:
            if at >= line:
                break
            if c.startswith("# File: "):
                found = c[len("# File: "):].strip()
            elif c.startswith("# No stacktrace found"):
                found = None
        return found
    out = []
    names = {a.arg for a in fn.args.args} | {
        st.target.id for st in fn.body
        if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name)
    } | {st.targets[0].id for st in fn.body
         if isinstance(st, ast.Assign) and len(st.targets) == 1 and
         isinstance(st.targets[0], ast.Name)}
    for a in fn.args.args:
        if a.arg == "self":
            continue
        t = a.annotation.value if isinstance(a.annotation, ast.Constant) \
            else ""
        out.append((a.arg, placeholder_op(t), t, None, a.lineno, None))
    for st in fn.body:
        if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name):
            target, value = st.target.id, st.value
            t = st.annotation.value if isinstance(st.annotation,
                                                  ast.Constant) else ""
        elif (isinstance(st, ast.Assign) and len(st.targets) == 1 and
              isinstance(st.targets[0], ast.Name)):
            target, value, t = st.targets[0].id, st.value, ""
        elif isinstance(st, ast.Return):  # FX's output node
            out.append(("output", "output", "", st.value, st.lineno,
                        source(st.lineno)))
            continue
        else:
            continue
        if isinstance(value, ast.Constant) and value.value is None:
            continue
        if value is None:  # `arg12_1: "f32[8]";`: an AOT graph's input
            out.append((target, placeholder_op(t), t, None, st.lineno,
                        source(st.lineno)))
            continue
        if is_method_of_node(value, names):  # `linear.sum(-1)`: `.sum`
            op = "." + value.func.attr
        elif isinstance(value, ast.Call):
            op = ast.get_source_segment(text, value.func)
        else:
            op = type(value).__name__
        out.append((target, op, t, value, st.lineno, source(st.lineno)))
    return out


def arg_types(nodes):
    """Per node, the types of the nodes it takes, in the order written."""
    first = {}
    for n in nodes:
        first.setdefault(n[0], n[2])
    out = []
    for n in nodes:
        value = n[3]
        if value is None:
            out.append(())
            continue
        parts = call_parts(value, first)
        names = sorted(((x.lineno, x.col_offset, x.id) for p in parts
                        for x in ast.walk(p)
                        if isinstance(x, ast.Name) and x.id in first))
        out.append(tuple(first[name] for _, _, name in names))
    return out


def agreement(x, y, tx, ty):
    """What a pair of nodes of one op scores besides: 8 for the same source
    (file name, function and code), 4 for the same argument types, 2 for
    the same type, 1 for the same name."""
    return (8 if x[5] is not None and y[5] is not None and
            source_key(x[5]) == source_key(y[5]) else 0) + \
        (4 if tx == ty else 0) + (2 if x[2] == y[2] else 0) + \
        (1 if x[0] == y[0] else 0)


def best_alignment(na, nb):
    """(pairs, agreement) of the best alignment: the most pairs of one op,
    then the most agreement (a plain table over both graphs)."""
    ta, tb = arg_types(na), arg_types(nb)
    n, m = len(na), len(nb)
    prev = [(0, 0)] * (m + 1)
    for i in range(n - 1, -1, -1):
        cur = [(0, 0)] * (m + 1)
        for j in range(m - 1, -1, -1):
            best = max(prev[j], cur[j + 1])
            if na[i][1] == nb[j][1]:
                p, a = prev[j + 1]
                best = max(best, (p + 1, a + agreement(na[i], nb[j], ta[i],
                                                       tb[j])))
            cur[j] = best
        prev = cur
    return prev[0]


def args_shape(value, names):
    """The arguments with each node name as ('ref', index)."""
    parts = call_parts(value, names)
    keys = [k.arg for k in value.keywords] if isinstance(value, ast.Call) \
        else []

    def walk(n):
        if isinstance(n, ast.Name) and n.id in names:
            return ("ref", names[n.id])
        if isinstance(n, ast.AST):
            return (type(n).__name__,) + tuple(
                walk(getattr(n, f)) for f in n._fields
                if f not in ("ctx",))
        if isinstance(n, list):
            return tuple(walk(x) for x in n)
        return n
    return (tuple(keys),) + tuple(walk(p) for p in parts)


def lcs_length(xs, ys):
    prev = [0] * (len(ys) + 1)
    for x in xs:
        cur = [0]
        for j, y in enumerate(ys):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


# ---- kernels --------------------------------------------------------------

def mapped_kernels(mappings):
    """{key: [post-grad node names]} of a node mappings payload."""
    if not mappings:
        return {}
    return {k: list(dict.fromkeys(v)) for k, v in
            json.loads(mappings).get("cppCodeToPost", {}).items()}


def kernel_name(key):
    name, sep, handle = key.rpartition(":")
    return name if sep and handle.isdigit() else key


def fused_ops(name):
    m = re.match(r"((?:triton|cpp)_.*)_\d+$", name)
    return m.group(1) if m else name


def definitions(code):
    """{kernel name: its definition's text} of the JIT Python output code:
    each module-level `name = async_compile.<kind>(...)` read with ast."""
    out = {}
    try:
        tree = ast.parse(code or "")
    except SyntaxError:
        return out
    for st in tree.body:
        if (isinstance(st, ast.Assign) and len(st.targets) == 1 and
                isinstance(st.targets[0], ast.Name) and
                isinstance(st.value, ast.Call) and
                ast.get_source_segment(code, st.value.func).startswith(
                    "async_compile.")):
            out[st.targets[0].id] = ast.get_source_segment(code, st)
    return out


def code_units(code):
    """[(kind, name, first line, syntax tree dump)] of a JIT Python output
    code's statements outside its kernels and entry function."""
    tree = ast.parse(code)
    out = []

    def is_kernel(st):
        return (isinstance(st, ast.Assign) and isinstance(st.value, ast.Call)
                and ast.get_source_segment(code, st.value.func).startswith(
                    "async_compile.") and
                ast.get_source_segment(code, st.value.func) !=
                "async_compile.wait")

    def holds_entry(st):
        return isinstance(st, ast.ClassDef) and any(
            isinstance(x, ast.FunctionDef) and x.name == "call"
            for x in st.body)

    def read(body):
        for st in body:
            if is_kernel(st) or (isinstance(st, ast.FunctionDef) and
                                 st.name == "call"):
                continue
            if holds_entry(st):
                read(st.body)
                continue
            if isinstance(st, (ast.FunctionDef, ast.ClassDef)):
                kind, name = type(st).__name__, st.name
            elif isinstance(st, ast.Assign) and len(st.targets) == 1:
                kind = "Assign"
                name = ast.get_source_segment(code, st.targets[0])
            else:
                kind, name = type(st).__name__, ""
            first = min([st.lineno] + [d.lineno for d in getattr(
                st, "decorator_list", [])])
            out.append((kind, name, first, ast.dump(st)))
    read(tree.body)
    return out


def cpp_declarations(code):
    """{kernel: its declaration, spaces collapsed} of the `extern "C"`
    declarations before `inductor_entry_impl` in a cpp_wrapper output
    code's C++ source string."""
    src = next(st.value for st in ast.parse(code).body
               if isinstance(st, ast.Assign) and
               ast.get_source_segment(code, st.targets[0]) ==
               "cpp_wrapper_src")
    src = ast.literal_eval(src)
    head = src[:src.index("inductor_entry_impl(")]
    out = {}
    for part in head.split('extern "C"')[1:]:
        decl = " ".join(part[:part.index(";")].split())
        out[decl[:decl.index("(")].split()[-1]] = decl
    return out


def expected_unit_rows(ua, ub):
    """[(change, name, before first line, after first line)] of the units
    that differ, in order: each gap between two shared units (a longest
    common subsequence of the dumps, the earlier side's unit left first on
    a tie) gives its removed units (changed when an added one of the gap
    has its kind and a name), then the added ones left."""
    n, m = len(ua), len(ub)
    lcs = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            lcs[i][j] = lcs[i + 1][j + 1] + 1 if ua[i][3] == ub[j][3] \
                else max(lcs[i + 1][j], lcs[i][j + 1])
    rows = []

    def gap(xs, ys):
        taken = set()
        for x in xs:
            partner = next((y for y in ys if y not in taken and x[1] and
                            (x[0], x[1]) == (y[0], y[1])), None)
            if partner:
                taken.add(partner)
                rows.append(("changed", partner[1], x[2], partner[2]))
            else:
                rows.append(("removed", x[1], x[2], None))
        rows.extend(("added", y[1], None, y[2]) for y in ys
                    if y not in taken)
    i = j = gi = gj = 0
    while i < n or j < m:
        if i < n and j < m and ua[i][3] == ub[j][3]:
            gap(ua[gi:i], ub[gj:j])
            i, j = i + 1, j + 1
            gi, gj = i, j
        elif i < n and (j == m or lcs[i + 1][j] >= lcs[i][j + 1]):
            i += 1
        else:
            j += 1
    gap(ua[gi:], ub[gj:])
    return rows


def renumbered_twice(path, out, mappings=True):
    """Writes to `out` a log of two compiles of frame 0 made from the one
    compile of `path`: [0/0] its records as they are, [0/1] the same with
    every generated kernel (a mapping key's name ending in a number)
    renumbered, its number + 100, in every payload; without the node
    mappings when `mappings` is false, in [0/1] only when it is "first".
    Returns {old: new}."""
    records = list(tracelog.records(path))
    names = set()
    for _, env, payload in records:
        k = tracelog.kind(env)
        if k == "artifact" and env[k].get("name") == \
                "inductor_provenance_tracking_node_mappings":
            for key in json.loads(payload).get("cppCodeToPost", {}):
                name = kernel_name(key)
                if re.match(r"(triton|cpp)_\w+_\d+$", name):
                    names.add(name)
    renames = {n: re.sub(r"\d+$", lambda m: str(int(m.group(0)) + 100), n)
               for n in names}
    # Derived names too: `call_triton_..._1`, `..._1_cubin`.
    pattern = re.compile(r"(?<![0-9A-Za-z])(%s)(?![0-9])" % "|".join(
        sorted(map(re.escape, renames), key=len, reverse=True)))
    lines = []

    def emit(env, payload):
        if payload is not None:
            env = dict(env, has_payload=tracelog.md5(payload))
        lines.append("V1127 00:00:00.000000 1 synthetic.py:1] " +
                     json.dumps(env))
        if payload is not None:
            lines.extend("\t" + line for line in payload.split("\n"))
    for compile_id in (0, 1):
        for _, env, payload in records:
            if tracelog.kind(env) == "str":
                if compile_id == 0:
                    emit(env, payload)
                continue
            k = tracelog.kind(env)
            if (not mappings or mappings == "first" and compile_id) and \
                    k == "artifact" and env[k].get("name") == \
                    "inductor_provenance_tracking_node_mappings":
                continue
            env = dict(env, frame_id=0, frame_compile_id=compile_id,
                       attempt=0)
            if compile_id and payload is not None:
                payload = pattern.sub(lambda m: renames[m.group(0)], payload)
            emit(env, payload)
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    return renames


def session_of(key):
    return key[3] if len(key) > 3 else 1


def display(key):
    """"[0/1]", "[!0/0/1]"; a later session's "[0/1] #2"."""
    ids = "%d/%d" % (key[1], key[2])
    if key[0] != "-":
        ids = "!%s/%s" % (key[0], ids)
    return "[%s]%s" % (ids, " #%d" % session_of(key)
                       if session_of(key) > 1 else "")


def recompile_stem(a, b):
    return "recompile_%s_%d_%d_to_%d%s" % (
        a[0], a[1], a[2], b[2],
        "_session_%d" % session_of(b) if session_of(b) > 1 else "")


class Recompiles(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="tl-recompiles-")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def report(self, name):
        out = os.path.join(self.tmp, name)
        if not os.path.isdir(out):
            r = subprocess.run([TLPARSE, os.path.join(EXAMPLES, name,
                                                      "trace.log"),
                                "-o", out, "-i", "--no-browser"],
                               capture_output=True, text=True,
                               env=dict(os.environ, CI="1"))
            self.assertEqual(r.returncode, 0, r.stderr)
        return out

    def pairs(self, name):
        """[(a key, b key, a files, b files)] of consecutive compiles of a
        frame within one session."""
        cs = compiles(os.path.join(EXAMPLES, name, "trace.log"))
        keys = sorted(cs, key=lambda k: (session_of(k), k[0], k[1], k[2]))
        return [(a, b, cs[a], cs[b]) for a, b in zip(keys, keys[1:])
                if a[:2] == b[:2] and session_of(a) == session_of(b)]

    def diff(self, out, a, b):
        with open(os.path.join(out, recompile_stem(a, b) + ".json")) as f:
            return json.load(f)

    def test_every_recompile_has_its_page_json_and_index_line(self):
        for name in RECORDINGS:
            out = self.report(name)
            pairs = self.pairs(name)
            self.assertGreater(len(pairs), 0, name)
            stems = {recompile_stem(a, b) for a, b, _, _ in pairs}
            written = {f[:-5] for f in os.listdir(out)
                       if f.startswith("recompile_") and f.endswith(".html")}
            self.assertEqual(written, stems, name)
            with open(os.path.join(out, "index.html")) as f:
                index = f.read()
            section = index[index.index('<section id="recompiles">'):]
            section = section[:section.index("</section>")]
            for a, b, fa, fb in pairs:
                words = [r["words"] for r in expected_reasons(
                    fb.get("recompile_reasons"), session_of(b))
                    if "words" in r]
                self.assertGreater(len(words), 0, (name, b))
                line = "<li>%s: %s. <a href=\"%s.html\">What changed</a>" % (
                    display(b), html.escape("; ".join(words)),
                    recompile_stem(a, b))
                self.assertIn(line.replace("&#x27;", "&#39;"), section)

    def test_reasons_are_read_as_logged(self):
        for name in RECORDINGS:
            out = self.report(name)
            for a, b, fa, fb in self.pairs(name):
                got = self.diff(out, a, b)["reasons"]
                want = expected_reasons(fb.get("recompile_reasons"),
                                        session_of(b))
                self.assertEqual(len(got), len(want), (name, b))
                for g, w in zip(got, want):
                    for k, v in w.items():
                        self.assertEqual(g[k], v, (name, b, k))

    def test_guards_that_differ(self):
        shapes = 0
        for name in RECORDINGS:
            out = self.report(name)
            for a, b, fa, fb in self.pairs(name):
                got = self.diff(out, a, b)["guards"]
                self.assertTrue(got["available"])
                self.assertEqual(got["before_count"],
                                 len(leaf_guards(fa["dynamo_cpp_guards_str"])))
                self.assertEqual(got["after_count"],
                                 len(leaf_guards(fb["dynamo_cpp_guards_str"])))
                self.assertEqual(
                    {(c["change"], c["kind"], c["source"], c.get("before"),
                      c.get("after")) for c in got["changes"]},
                    expected_guard_changes(fa["dynamo_cpp_guards_str"],
                                           fb["dynamo_cpp_guards_str"]),
                    (name, b))
                for c in got["changes"]:
                    want = tensor_guard_words(c.get("before"), c.get("after"))
                    self.assertEqual(c.get("shape_change"), want, (name, b))
                    if want:
                        shapes += 1
        self.assertGreaterEqual(shapes, 8)

    def test_a_changed_guards_difference_is_marked_word_by_word(self):
        """On the page, each changed guard's before and after show what
        differs in <mark>s: cut into tokens (names and numbers whole, any
        other character alone), the tokens left unmarked on the two sides
        are the same sequence, as long as the longest common subsequence of
        the two codes' tokens but for the punctuation joined into marks
        (test_punctuation_between_two_differences_is_marked_with_them),
        and a mark never splits a token."""
        def tokens(text):
            return re.findall(r"[0-9A-Za-z_\x80-\U0010ffff]+|.", text,
                              re.S)

        def lcs_length(x, y):
            row = [0] * (len(y) + 1)
            for tx in x:
                prev, row = row, [0]
                for j, ty in enumerate(y):
                    row.append(prev[j] + 1 if tx == ty
                               else max(prev[j + 1], row[j]))
            return row[-1]

        def cells(row_html):
            """The before and after cells' parts: [(text, marked)] (the
            code cells after the source's)."""
            got = re.findall(r"<td>(<code>.*?</code>)</td>", row_html)
            self.assertEqual(len(got), 3, row_html)
            parts = []
            for cell in got[1:]:
                inner = cell[len("<code>"):-len("</code>")]
                pieces = re.split(r"(<mark>.*?</mark>)", inner)
                parts.append([(html.unescape(re.sub(r"</?mark>", "", x)),
                               x.startswith("<mark>")) for x in pieces if x])
            return parts

        marks = 0
        for name in RECORDINGS:
            out = self.report(name)
            for a, b, fa, fb in self.pairs(name):
                with open(os.path.join(out, recompile_stem(a, b) +
                                       ".html")) as f:
                    page = f.read()
                table = page[page.index('<table class="diff guards">'):]
                rows = table[:table.index("</table>")].split("</tr>")
                changes = self.diff(out, a, b)["guards"]["changes"]
                for c in changes:
                    row = next(r for r in rows
                               if '<tr class="%s">' % c["change"] in r and
                               html.escape(c.get("before") or c["after"])
                               .replace("&#x27;", "&#39;") in
                               re.sub(r"</?mark>", "", r))
                    before, after = cells(row)
                    where = (name, b, c["source"])
                    if c["change"] != "changed":
                        self.assertNotIn("<mark>", row, where)
                        continue
                    self.assertEqual("".join(t for t, _ in before),
                                     c["before"], where)
                    self.assertEqual("".join(t for t, _ in after),
                                     c["after"], where)
                    for side, code in ((before, c["before"]),
                                       (after, c["after"])):
                        self.assertEqual(
                            [t for x, _ in side for t in tokens(x)],
                            tokens(code), where)  # no token split
                    kept_b = [t for x, m in before if not m
                              for t in tokens(x)]
                    kept_a = [t for x, m in after if not m
                              for t in tokens(x)]
                    self.assertEqual(kept_b, kept_a, where)
                    joined = sum(1 for x, m in before if m
                                 for t in tokens(x)
                                 if not re.match(r"[0-9A-Za-z_\x80-\U0010ffff]",
                                                 t))
                    lcs = lcs_length(tokens(c["before"]), tokens(c["after"]))
                    self.assertLessEqual(len(kept_b), lcs, where)
                    self.assertGreaterEqual(len(kept_b), lcs - joined, where)
                    marks += 1
        self.assertGreaterEqual(marks, 8)

    def test_punctuation_between_two_differences_is_marked_with_them(self):
        """rec-recompiles' frame `grow` compiled for x of [6, 16], then of
        [2, 4, 16]: its TENSOR_MATCH guard's size reads `6, ` against
        `2, 4, ` marked whole (the common `, ` between `2` and `4` joined
        in), and the stride's `64, ` alone (`16], stride=[` between holds
        words: not joined)."""
        out = self.report("rec-recompiles")
        found = 0
        for a, b, fa, fb in self.pairs("rec-recompiles"):
            for c in self.diff(out, a, b)["guards"]["changes"]:
                before, after = c.get("before") or "", c.get("after") or ""
                if ("size=[6, 16], stride=[16, 1]" not in before or
                        "size=[2, 4, 16], stride=[64, 16, 1]" not in after):
                    continue
                with open(os.path.join(out, recompile_stem(a, b) +
                                       ".html")) as f:
                    page = f.read()

                def cell(code, old, marked):
                    return "<td><code>%s</code></td>" % html.escape(
                        code).replace("&#x27;", "&#39;").replace(
                        old, marked)
                self.assertIn(
                    cell(before, "size=[6, 16]", "size=[<mark>6, </mark>16]")
                    + cell(after, "size=[2, 4, 16], stride=[64, 16, 1]",
                           "size=[<mark>2, 4, </mark>16], "
                           "stride=[<mark>64, </mark>16, 1]"), page)
                found += 1
        self.assertEqual(found, 1)

    def check_graph(self, got, ta, tb, where):
        na, nb = graph_nodes(ta), graph_nodes(tb)
        ia = {n[0]: i for i, n in reversed(list(enumerate(na)))}
        ib = {n[0]: i for i, n in reversed(list(enumerate(nb)))}
        pairs, added, removed = [], 0, 0
        for row in got["nodes"]:
            if row["change"] == "added":
                added += 1
            elif row["change"] == "removed":
                removed += 1
            else:
                pairs.append((row, ia[row["before"]["name"]],
                              ib[row["after"]["name"]]))
        self.assertEqual(len(na) - len(pairs), removed, where)
        self.assertEqual(len(nb) - len(pairs), added, where)
        self.assertEqual(len(pairs), lcs_length([n[1] for n in na],
                                                [n[1] for n in nb]), where)
        # Of the alignments with the most pairs, one whose pairs agree the
        # most (source, argument types, type).
        self.assertEqual(got["aligned_by"], "score", where)
        ta, tb = arg_types(na), arg_types(nb)
        self.assertEqual((len(pairs), sum(agreement(na[i], nb[j], ta[i],
                                                    tb[j])
                                          for _, i, j in pairs)),
                         best_alignment(na, nb), where)
        for row, i, j in pairs:
            for side, n in (("before", na[i]), ("after", nb[j])):
                self.assertEqual(row[side]["source"], n[5], where)
        partner = {i: j for _, i, j in pairs}
        for k, (row, i, j) in enumerate(pairs):
            x, y = na[i], nb[j]
            if k:
                self.assertLess(pairs[k - 1][1], i, where)
                self.assertLess(pairs[k - 1][2], j, where)
            self.assertEqual(x[1], y[1], where)
            type_changed = x[2] != y[2]
            if x[3] is None or y[3] is None:
                args_changed = (x[3] is None) != (y[3] is None)
            else:
                mapped = args_shape(x[3], {n: ("b", partner.get(i_, -1))
                                           for n, i_ in ia.items()})
                other = args_shape(y[3], {n: ("b", j_)
                                          for n, j_ in ib.items()})
                args_changed = mapped != other
            change = "changed" if type_changed or args_changed else "same"
            self.assertEqual(row["change"], change, (where, x[0], y[0]))
            self.assertEqual(row["renamed"], x[0] != y[0], where)
            if change == "changed":
                self.assertEqual(row["type_changed"], type_changed, where)
                self.assertEqual(row["args_changed"], args_changed, where)
        s = got["summary"]
        self.assertEqual(s["added"], added)
        self.assertEqual(s["removed"], removed)
        self.assertEqual(s["same"] + s["renamed"] + s["changed"], len(pairs))

    def test_graph_nodes_match_an_independent_reading(self):
        checked = 0
        for name in RECORDINGS:
            out = self.report(name)
            for a, b, fa, fb in self.pairs(name):
                graphs = self.diff(out, a, b)["graphs"]
                for key, kind in (("dynamo", "dynamo_output_graph"),
                                  ("pre_grad", "pre"), ("post_grad", "post"),
                                  ("backward", "aot_backward_graph"),
                                  ("backward_post_grad", "bw_post")):
                    if not fa.get(kind) or not fb.get(kind):
                        self.assertFalse(graphs[key]["available"])
                        continue
                    self.check_graph(graphs[key], fa[kind], fb[kind],
                                     (name, b, key))
                    checked += 1
        self.assertGreaterEqual(checked, 15)

    def check_code_diff(self, got, x, y, code_a, code_b, where):
        """The rows of a kernel's code diff: each line its file's, in
        order; as many removed and added lines as a longest common
        subsequence of the two definitions' lines (each side's own name
        left out) leaves, unless cut."""
        la, lb = code_a.split("\n"), code_b.split("\n")
        last_a = last_b = 0
        for row in got["lines"]:
            if row["op"] == "gap":
                continue
            self.assertEqual(row["op"] == "removed", not row["after"], where)
            self.assertEqual(row["op"] == "added", not row["before"], where)
            if row["before"]:
                if row["op"] == "removed":
                    self.assertEqual(la[row["before"] - 1], row["text"],
                                     where)
                self.assertGreater(row["before"], last_a, where)
                last_a = row["before"]
            if row["after"]:
                self.assertEqual(lb[row["after"] - 1], row["text"], where)
                self.assertGreater(row["after"], last_b, where)
                last_b = row["after"]
        if got["cut"]:
            return
        da, db = x["definition"], y["definition"]
        a_lines = [l.replace(x["name"], "\x01")
                   for l in la[da["first"] - 1:da["last"]]]
        b_lines = [l.replace(y["name"], "\x01")
                   for l in lb[db["first"] - 1:db["last"]]]
        common = lcs_length(a_lines, b_lines)
        ops = [r["op"] for r in got["lines"]]
        self.assertEqual(ops.count("removed"), len(a_lines) - common, where)
        self.assertEqual(ops.count("added"), len(b_lines) - common, where)

    def check_entry_code(self, got, d, out, where):
        """The entry functions line by line: each line its file's, in
        order; as many removed and added lines as a longest common
        subsequence leaves of the lines with each renamed kernel of the
        later compile read as its partner and each buffer (bufN) as its
        rank of first use."""
        views = {}
        for side in ("before", "after"):
            folder = d[side]["folder"]
            for name in sorted(os.listdir(out)):
                if name.startswith("provenance_tracking_" + folder) and \
                        name.endswith(".json"):
                    with open(os.path.join(out, name)) as f:
                        v = json.load(f)
                    if v["artifacts"]["post_grad_graph"] == \
                            d["graphs"]["post_grad"][side]:
                        views[side] = v
        if len(views) < 2 or not views["before"]["entry"] or \
                not views["after"]["entry"]:
            return False
        renames = {r["after"]["name"]: r["before"]["name"]
                   for r in d["kernels"]["kernels"]
                   if r["before"] and r["after"] and r["renamed"]}

        def lines(side):
            v = views[side]
            with open(os.path.join(out, v["artifacts"]["code"])) as f:
                text = f.read().split("\n")
            e = v["entry"]
            return text, text[e["first"] - 1:e["last"]], e["first"]

        def normalized(ls, names):
            ranks = {}

            def word(m):
                w = m.group(0)
                if re.fullmatch(r"buf\d+", w):
                    return "\x01buf%d" % ranks.setdefault(w, len(ranks))
                return names.get(w, w)
            return [re.sub(r"[A-Za-z_][A-Za-z0-9_]*", word, l) for l in ls]
        fa, la, first_a = lines("before")
        fb, lb, first_b = lines("after")
        self.assertEqual((got["before_first"], got["after_first"]),
                         (first_a, first_b), where)
        for row in got["lines"]:
            if row["op"] == "removed":
                self.assertEqual(fa[row["before"] - 1], row["text"], where)
            elif row["op"] != "gap":
                self.assertEqual(fb[row["after"] - 1], row["text"], where)
        if not got["cut"]:
            na, nb = normalized(la, {}), normalized(lb, renames)
            common = lcs_length(na, nb)
            ops = [r["op"] for r in got["lines"]]
            self.assertEqual(ops.count("removed"), len(na) - common, where)
            self.assertEqual(ops.count("added"), len(nb) - common, where)
        return True

    def check_kernels(self, out, a, b, fa, fb, where):
        """The kernels of compiles a and b (files fa, fb) as the tool
        compared them in `out`, against the node mappings read here: None
        when either compile has none, else (kernels paired exactly, code
        diffs checked, entry functions checked)."""
        d = self.diff(out, a, b)
        got = d["kernels"]
        ka = mapped_kernels(fa.get("inductor_provenance_tracking_"
                                   "node_mappings"))
        kb = mapped_kernels(fb.get("inductor_provenance_tracking_"
                                   "node_mappings"))
        if not ka or not kb:
            return None
        paired_exactly = code_diffs = 0
        self.assertTrue(got["available"], where)
        self.assertEqual(got["matched_by"],
                         {"before": "nodes", "after": "nodes"}, where)
        rows = got["kernels"]
        self.assertEqual(sorted(r["before"]["key"] for r in rows
                                if r["before"]), sorted(ka), where)
        self.assertEqual(sorted(r["after"]["key"] for r in rows
                                if r["after"]), sorted(kb), where)
        carry = {r["before"]["name"]: r["after"]["name"]
                 for r in d["graphs"]["post_grad"]["nodes"]
                 if r["before"] and r["after"]}
        carried = {k: sorted(carry.get(n, "?" + n) for n in v)
                   for k, v in ka.items()}
        pairs = {r["before"]["key"]: r["after"]["key"] for r in rows
                 if r["before"] and r["after"]}
        # A kernel whose carried nodes are exactly one kernel's of
        # the later compile is paired with it.
        for k, nodes in carried.items():
            same = [x for x, v in kb.items() if sorted(v) == nodes]
            if len(same) == 1:
                self.assertEqual(pairs.get(k), same[0], (where, k))
                paired_exactly += 1
        defs_a = definitions(fa.get("inductor_output_code"))
        defs_b = definitions(fb.get("inductor_output_code"))
        counts = dict.fromkeys(["same", "renamed", "changed",
                                "added", "removed"], 0)
        for r in rows:
            x, y = r["before"], r["after"]
            self.assertEqual(x["post_nodes"] if x else y["post_nodes"],
                             ka[x["key"]] if x else kb[y["key"]])
            if not x or not y:
                self.assertEqual(r["change"],
                                 "added" if y else "removed")
                counts[r["change"]] += 1
                continue
            nx, ny = kernel_name(x["key"]), kernel_name(y["key"])
            nodes = carried[x["key"]] != sorted(kb[y["key"]])
            ops = fused_ops(nx) != fused_ops(ny)
            self.assertEqual(r["nodes_changed"], nodes, (where, nx))
            self.assertEqual(r["ops_changed"], ops, (where, nx))
            self.assertEqual(r["renamed"], nx != ny, (where, nx))
            if nx in defs_a and ny in defs_b:
                code = (defs_a[nx].replace(nx, "") !=
                        defs_b[ny].replace(ny, ""))
                self.assertEqual(r["code_changed"], code, (where, nx))
            if r["code_changed"]:
                self.check_code_diff(
                    r["code_diff"], x, y, fa["inductor_output_code"],
                    fb["inductor_output_code"], (where, nx))
                code_diffs += 1
            # Fused ops alone (the same nodes and code) are a name only.
            change = "changed" if nodes or r["code_changed"] or \
                x["kind"] != y["kind"] else "same"
            self.assertEqual(r["change"], change, (where, nx))
            counts["renamed" if change == "same" and nx != ny
                   else change] += 1
        self.assertEqual(got["summary"], counts, where)
        self.assertEqual(d["summary"]["kernels"], counts, where)
        entries = self.check_entry_code(got["entry_code"], d, out, where)
        with open(os.path.join(out, "index.html")) as f:
            index = f.read()
        stem = recompile_stem(a, b) + ".html"
        line = index[index.index('href="%s"' % stem):]
        line = line[:line.index("</li>")]
        self.assertIn("kernels: %d changed, %d added, %d removed)" % (
            counts["changed"], counts["added"], counts["removed"]),
            line, where)
        return paired_exactly, code_diffs, entries

    def test_kernels_match_the_node_mappings(self):
        checked = paired_exactly = code_diffs = entries = 0
        for name in RECORDINGS:
            out = self.report(name)
            for a, b, fa, fb in self.pairs(name):
                got = self.check_kernels(out, a, b, fa, fb, (name, b))
                if got is None:
                    continue
                paired_exactly += got[0]
                code_diffs += got[1]
                entries += got[2]
                checked += 1
        self.assertGreaterEqual(checked, 10)
        self.assertGreaterEqual(paired_exactly, 8)
        self.assertGreaterEqual(code_diffs, 6)
        self.assertGreaterEqual(entries, 10)

    def test_triton_kernels_of_two_cuda_compiles(self):
        """Two JIT CUDA compiles of one frame made with the trace generator
        (tests/tracegen): [0/0] two blocks of width 128, [0/1] three blocks
        of width 64 (seed 4). The Triton kernels are matched by their nodes
        and compared as for the recordings: the two calls of
        triton_per_fused_add_gelu_native_layer_norm_0 paired with their
        own (the same nodes), their code changed with the width (the
        reduction's size), the third block's addmm and
        triton_per_..._1 added."""
        gen = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                           "tracegen", "gen_trace.py")
        logs = []
        for layers, seed in ((2, 1), (3, 4)):
            path = os.path.join(self.tmp, "cuda-%d-%d.log" % (layers, seed))
            subprocess.run([sys.executable, gen, "--shape", "jit-cuda",
                            "--layers", str(layers), "--seed", str(seed),
                            "--stack-traces", "-o", path], check=True)
            logs.append(path)
        log = os.path.join(self.tmp, "cuda-pair.log")
        lines = []
        for compile_id, path in enumerate(logs):
            for _, env, payload in tracelog.records(path):
                if tracelog.kind(env) == "str" and compile_id:
                    continue
                if "frame_id" in env:
                    env = dict(env, frame_compile_id=compile_id)
                if payload is not None:
                    env = dict(env, has_payload=tracelog.md5(payload))
                lines.append("V1127 00:00:00.000000 1 generated.py:1] " +
                             json.dumps(env))
                if payload is not None:
                    lines.extend("\t" + l for l in payload.split("\n"))
        with open(log, "w") as f:
            f.write("\n".join(lines) + "\n")
        out = os.path.join(self.tmp, "cuda-pair")
        r = subprocess.run([TLPARSE, log, "-o", out, "-i", "--no-browser"],
                           capture_output=True, text=True,
                           env=dict(os.environ, CI="1"))
        self.assertEqual(r.returncode, 0, r.stderr)
        cs = compiles(log)
        a, b = ("-", 0, 0), ("-", 0, 1)
        got = self.check_kernels(out, a, b, cs[a], cs[b], "cuda-pair")
        self.assertIsNotNone(got)
        self.assertEqual(got[:2], (4, 2))
        d = self.diff(out, a, b)
        kernel = "triton_per_fused_add_gelu_native_layer_norm_"
        self.assertEqual(sorted((r["change"], (r["before"] or r["after"])
                                 ["key"]) for r in d["kernels"]["kernels"]),
                         [("added", "extern_kernels.addmm:5"),
                          ("added", kernel + "1:6"),
                          ("changed", kernel + "0:2"),
                          ("changed", kernel + "0:4"),
                          ("same", "extern_kernels.addmm:1"),
                          ("same", "extern_kernels.addmm:3")])
        for r in d["kernels"]["kernels"]:
            if r["change"] == "changed":
                self.assertEqual((r["nodes_changed"], r["ops_changed"],
                                  r["code_changed"]), (False, False, True))
                self.assertEqual(r["before"]["kind"], "triton")
        self.assertEqual(d["summary"]["nodes"]["graph"], "post_grad")
        # The code outside the kernels and `call`: only the benchmark's
        # inputs, which changed with the width and the third block's
        # weights.
        other = d["kernels"]["other_code"]
        self.assertEqual([(u["change"], u["name"]) for u in other["units"]],
                         [("changed", "benchmark_compiled_module")])

    def test_renumbered_kernels_are_no_change_in_every_mode(self):
        """One compile logged twice, the second time with every generated
        kernel renumbered: Triton (JIT CUDA, combo, AOT CUDA) and C++ (AOT
        CPU, cpp_wrapper) kernels are all matched, renamed, none changed;
        by their nodes, and by their fused ops without node mappings, or
        with them on one side only."""
        for name, mappings in itertools.product(
                ("jit-cuda", "combo", "aot-cuda", "aot-cpu", "rec-aot-cpu",
                 "rec-cpp-wrapper"), (True, False, "first")):
            where = (name, mappings)
            log = os.path.join(self.tmp, "%s-twice-%s.log" % where)
            renames = renumbered_twice(
                os.path.join(EXAMPLES, name, "trace.log"), log, mappings)
            self.assertTrue(renames, name)
            out = log[:-len(".log")]
            r = subprocess.run([TLPARSE, log, "-o", out, "--no-browser"],
                               capture_output=True, text=True,
                               env=dict(os.environ, CI="1"))
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(os.path.join(out, "recompile_-_0_0_to_1.json")) as f:
                d = json.load(f)
            rows = d["kernels"]["kernels"]
            self.assertTrue(rows, name)
            if mappings == "first":
                # The mapping's keys before, the code's definitions after:
                # each definition matched by its fused ops, none changed;
                # keys without a definition of their own (extern kernels,
                # a kernel's further calls) removed.
                self.assertEqual(d["kernels"]["matched_by"],
                                 {"before": "nodes", "after": "code"}, where)
                for row in rows:
                    x, y = row["before"], row["after"]
                    self.assertIn(row["change"], ("same", "removed"), where)
                    if y:
                        self.assertEqual(renames.get(x["name"], x["name"]),
                                         y["name"], where)
                    else:
                        self.assertTrue(
                            x["definition"] is None or any(
                                r["before"]["name"] == x["name"] and
                                r["after"] for r in rows), (where, x))
                self.assertEqual(sorted(r["after"]["name"] for r in rows
                                        if r["after"]),
                                 sorted(renames.values()), where)
                continue
            by = "nodes" if mappings else "code"
            self.assertEqual(d["kernels"]["matched_by"],
                             {"before": by, "after": by}, where)
            if not mappings:  # each generated kernel defined once
                self.assertEqual(sorted(r["before"]["name"] for r in rows
                                        if r["before"]["name"] in renames),
                                 sorted(renames), where)
            for row in rows:
                x, y = row["before"], row["after"]
                self.assertEqual(row["change"], "same", (where, x, y))
                self.assertEqual(renames.get(x["name"], x["name"]),
                                 y["name"], name)
                self.assertEqual(row["renamed"], x["name"] in renames, name)
            s = d["summary"]["kernels"]
            self.assertEqual((s["changed"], s["added"], s["removed"]),
                             (0, 0, 0), name)
            # The code outside the kernels and the entry function: every
            # statement the same, renamed kernels (the AOT wrapper's
            # `CUfunction triton_..._0` members) read as their partners.
            other = d["kernels"]["other_code"]
            self.assertGreater(other["before_units"], 5, where)
            self.assertEqual(other["summary"], {
                "same": other["before_units"], "changed": 0, "removed": 0,
                "added": 0}, where)
            self.assertEqual(other["after_units"], other["before_units"],
                             where)
            self.assertEqual(s["renamed"], sum(
                r["before"]["name"] in renames for r in rows), name)
            self.assertEqual(s["renamed"] + s["same"], len(rows), name)

    def test_the_kernels_of_a_changed_attribute(self):
        """rec-recompile-kernels [0/1]: relu -> gelu through a linear layer
        more; the fused kernel before it changed, the sum kernel after it
        renumbered (_1 -> _2) but the same, and gelu and the new addmm
        added."""
        out = self.report("rec-recompile-kernels")
        d = self.diff(out, ("-", 0, 0), ("-", 0, 1))
        rows = {r["before"]["key"]: r for r in d["kernels"]["kernels"]
                if r["before"]}
        self.assertEqual(rows["cpp_fused_sum_1:3"]["after"]["key"],
                         "cpp_fused_sum_2:5")
        self.assertEqual(rows["cpp_fused_sum_1:3"]["change"], "same")
        self.assertEqual(rows["cpp_fused_add_mul_relu_0:1"]["after"]["key"],
                         "cpp_fused_add_mul_0:1")
        self.assertEqual(rows["cpp_fused_add_mul_relu_0:1"]["change"],
                         "changed")
        self.assertEqual(
            sorted(r["after"]["key"] for r in d["kernels"]["kernels"]
                   if r["change"] == "added"),
            ["cpp_fused_gelu_1:3", "extern_kernels.addmm:2"])
        with open(os.path.join(out, "recompile_-_0_0_to_1.html")) as f:
            page = f.read()
        self.assertIn('<a class="kernel" href="provenance_tracking_-_0_1_0'
                      '.html#kernel=cpp_fused_sum_2:5"><code>cpp_fused_sum_2'
                      '</code></a>', page)

    def test_nodes_pair_by_shape_and_source_where_op_alone_pairs_wrongly(
            self):
        """Post-grad graphs written here where pairing by op alone takes the
        wrong partner. Frame 0: of two mm, the first (x @ w1, f32[4, 16])
        went with its weight; the one left is the second (x @ w2, f32[4,
        32]), its weight now arg1_1 (no sources: the shapes decide). Frame
        1: a line `x = x + 2` inserted above `y = x + 1` (another folder,
        every line number moved): the new add is the one added, the old
        one's partner is add_1, changed as its input is now the new add."""
        mm_a = (
            'class <lambda>(torch.nn.Module):\n'
            '    def forward(self, arg0_1: "f32[4, 8][8, 1]cpu", '
            'arg1_1: "f32[8, 16][16, 1]cpu", arg2_1: "f32[8, 32][32, 1]cpu"):\n'
            '        mm: "f32[4, 16][16, 1]cpu" = torch.ops.aten.mm.default('
            'arg0_1, arg1_1);  arg1_1 = None\n'
            '        mm_1: "f32[4, 32][32, 1]cpu" = torch.ops.aten.mm.default('
            'arg0_1, arg2_1);  arg0_1 = arg2_1 = None\n'
            '        relu: "f32[4, 32][32, 1]cpu" = torch.ops.aten.relu.default('
            'mm_1);  mm_1 = None\n'
            '        return (mm, relu)\n')
        mm_b = (
            'class <lambda>(torch.nn.Module):\n'
            '    def forward(self, arg0_1: "f32[4, 8][8, 1]cpu", '
            'arg1_1: "f32[8, 32][32, 1]cpu"):\n'
            '        mm: "f32[4, 32][32, 1]cpu" = torch.ops.aten.mm.default('
            'arg0_1, arg1_1);  arg0_1 = arg1_1 = None\n'
            '        sigmoid: "f32[4, 32][32, 1]cpu" = '
            'torch.ops.aten.sigmoid.default(mm);  mm = None\n'
            '        return (sigmoid,)\n')
        line_a = (
            'class <lambda>(torch.nn.Module):\n'
            '    def forward(self, arg0_1: "f32[4][1]cpu"):\n'
            '        # File: /a/m.py:10 in f, code: y = x + 1\n'
            '        add: "f32[4][1]cpu" = torch.ops.aten.add.Tensor(arg0_1, 1)'
            ';  arg0_1 = None\n'
            '        # File: /a/m.py:11 in f, code: return y.relu()\n'
            '        relu: "f32[4][1]cpu" = torch.ops.aten.relu.default(add);'
            '  add = None\n'
            '        return (relu,)\n')
        line_b = (
            'class <lambda>(torch.nn.Module):\n'
            '    def forward(self, arg0_1: "f32[4][1]cpu"):\n'
            '        # File: /b/m.py:10 in f, code: x = x + 2\n'
            '        add: "f32[4][1]cpu" = torch.ops.aten.add.Tensor(arg0_1, 2)'
            ';  arg0_1 = None\n'
            '        # File: /b/m.py:11 in f, code: y = x + 1\n'
            '        add_1: "f32[4][1]cpu" = torch.ops.aten.add.Tensor(add, 1)'
            ';  add = None\n'
            '        # File: /b/m.py:12 in f, code: return y.relu()\n'
            '        relu: "f32[4][1]cpu" = torch.ops.aten.relu.default(add_1);'
            '  add_1 = None\n'
            '        return (relu,)\n')
        lines = []
        for frame, graphs in enumerate(((mm_a, mm_b), (line_a, line_b))):
            for compile_id, text in enumerate(graphs):
                env = {"artifact": {"name": "inductor_post_grad_graph",
                                    "encoding": "string"},
                       "frame_id": frame, "frame_compile_id": compile_id,
                       "attempt": 0, "has_payload": tracelog.md5(text)}
                lines.append("V1127 00:00:00.000000 1 synthetic.py:1] " +
                             json.dumps(env))
                lines.extend("\t" + line for line in text.split("\n"))
        log = os.path.join(self.tmp, "hostile-pairs.log")
        with open(log, "w") as f:
            f.write("\n".join(lines) + "\n")
        out = os.path.join(self.tmp, "hostile-pairs")
        r = subprocess.run([TLPARSE, log, "-o", out, "--no-browser"],
                           capture_output=True, text=True,
                           env=dict(os.environ, CI="1"))
        self.assertEqual(r.returncode, 0, r.stderr)

        def rows(frame):
            with open(os.path.join(out, "recompile_-_%d_0_to_1.json"
                                   % frame)) as f:
                g = json.load(f)["graphs"]["post_grad"]
            return g, [(row["change"], row.get("renamed"),
                        row["before"] and row["before"]["name"],
                        row["after"] and row["after"]["name"])
                       for row in g["nodes"]]
        g, got = rows(0)
        self.assertEqual(got, [
            ("same", False, "arg0_1", "arg0_1"),
            ("removed", None, "arg1_1", None),
            ("same", True, "arg2_1", "arg1_1"),
            ("removed", None, "mm", None),
            ("same", True, "mm_1", "mm"),
            ("removed", None, "relu", None),
            ("added", None, None, "sigmoid"),
            # returns (mm, relu), then (sigmoid,)
            ("changed", False, "output", "output")])
        self.assertEqual(g["summary"], {"same": 1, "renamed": 2, "changed": 1,
                                        "removed": 3, "added": 1})
        self.assertEqual(g["nodes"][4]["before"]["source"], None)
        g, got = rows(1)
        self.assertEqual(got, [
            ("same", False, "arg0_1", "arg0_1"),
            ("added", None, None, "add"),
            ("changed", True, "add", "add_1"),
            ("same", False, "relu", "relu"),
            ("same", False, "output", "output")])  # (relu,) both
        self.assertEqual(g["nodes"][2]["args_changed"], True)
        self.assertEqual(g["nodes"][2]["type_changed"], False)
        self.assertEqual(g["nodes"][2]["before"]["source"],
                         "/a/m.py:10 in f, code: y = x + 1")
        self.assertEqual(g["nodes"][2]["after"]["source"],
                         "/b/m.py:11 in f, code: y = x + 1")
        self.assertEqual(g["summary"], {"same": 3, "renamed": 0, "changed": 1,
                                        "removed": 0, "added": 1})
        self.assertEqual(g["aligned_by"], "score")

    def test_the_backward_of_a_training_compile(self):
        """rec-train-recompiles: each compile trains (a forward and a
        backward Inductor graph under one compile id). The backward's
        kernels, read here: the backward's node mappings less the keys of
        the forward's (torch logs a backward compiled right after its
        forward with the forward's keys first), else, with no keys left,
        the definitions of the backward's output code; each pair of one
        fused ops, as many pairs of each as both sides have (matched by
        fused ops in order when either side has no nodes); the summary
        and the page say the same."""
        name = "rec-train-recompiles"
        out = self.report(name)
        checked = 0
        for a, b, fa, fb in self.pairs(name):
            where = (name, b)
            d = self.diff(out, a, b)
            got = d["backward_kernels"]
            self.assertTrue(fa.get("bw_post") and fb.get("bw_post"), where)
            sides = []
            for f in (fa, fb):
                forward = mapped_kernels(
                    f.get("inductor_provenance_tracking_node_mappings"))
                own = {k: v for k, v in
                       mapped_kernels(f.get("bw_mappings")).items()
                       if k not in forward}
                if own:
                    sides.append(("nodes", own))
                else:
                    sides.append(("code", {n: [] for n in
                                           definitions(f.get("bw_code"))}))
            self.assertTrue(got["available"], where)
            self.assertEqual(got["matched_by"], {"before": sides[0][0],
                                                 "after": sides[1][0]}, where)
            rows = got["kernels"]
            self.assertEqual(sorted(r["before"]["key"] for r in rows
                                    if r["before"]), sorted(sides[0][1]),
                             where)
            self.assertEqual(sorted(r["after"]["key"] for r in rows
                                    if r["after"]), sorted(sides[1][1]),
                             where)
            for r in rows:
                for side, (_, kernels) in zip(("before", "after"), sides):
                    if r[side]:
                        self.assertEqual(r[side]["post_nodes"],
                                         kernels[r[side]["key"]], where)
            if "code" in (sides[0][0], sides[1][0]):
                ops = lambda ks: [fused_ops(kernel_name(k)) for k in ks]
                want = {}
                for f in set(ops(sides[0][1])) | set(ops(sides[1][1])):
                    want[f] = min(ops(sides[0][1]).count(f),
                                  ops(sides[1][1]).count(f))
                pairs = [(fused_ops(r["before"]["name"]),
                          fused_ops(r["after"]["name"])) for r in rows
                         if r["before"] and r["after"]]
                for x, y in pairs:
                    self.assertEqual(x, y, where)
                self.assertEqual({f: n for f, n in want.items() if n},
                                 {f: [x for x, _ in pairs].count(f)
                                  for f, _ in pairs}, where)
            counts = dict.fromkeys(["same", "renamed", "changed", "added",
                                    "removed"], 0)
            for r in rows:
                counts["renamed" if r["change"] == "same" and r["renamed"]
                       else r["change"]] += 1
            self.assertEqual(got["summary"], counts, where)
            post = d["graphs"]["backward_post_grad"]
            self.assertEqual(post["before"].split("/")[0],
                             d["before"]["folder"], where)
            self.assertEqual(d["summary"]["backward"], {
                "nodes": dict(post["summary"], graph="backward_post_grad"),
                "kernels": counts}, where)
            with open(os.path.join(out, recompile_stem(a, b) + ".html")) \
                    as f:
                page = f.read()
            section = page[page.index('<h2 id="backward-kernels">'):]
            self.assertIn("%d changed, %d added, %d removed" % (
                counts["changed"], counts["added"], counts["removed"]),
                section, where)
            self.assertIn("<h2>Backward post-grad graph</h2>", page)
            checked += 1
        self.assertEqual(checked, 2)
        # Inference compiles have no backward.
        d = self.diff(self.report("rec-recompiles"), ("-", 2, 0),
                      ("-", 2, 1))
        self.assertIsNone(d["summary"]["backward"])
        self.assertFalse(d["graphs"]["backward"]["available"])
        self.assertFalse(d["backward_kernels"]["available"])

    def test_the_code_outside_kernels_and_entry_statement_by_statement(self):
        """The JIT Python output code of every recompile of the recordings,
        read here with `ast`: its module statements, less the kernel
        definitions (`name = async_compile.<kind>(...)`) and the entry
        function (`def call`, or a class's `call` method: then the class's
        other statements are units), compared by their syntax trees; the
        units both codes share in order are a longest common subsequence,
        and between two shared ones a removed and an added statement of one
        kind and name (a function, an assignment's target) are one changed
        unit."""
        checked = changed = 0
        for name in RECORDINGS:
            out = self.report(name)
            for a, b, fa, fb in self.pairs(name):
                ca = fa.get("inductor_output_code")
                cb = fb.get("inductor_output_code")
                if not ca or not cb or "cpp_wrapper_src" in ca + cb:
                    continue
                where = (name, b)
                got = self.diff(out, a, b)["kernels"]["other_code"]
                ua, ub = code_units(ca), code_units(cb)
                self.assertEqual((got["before_units"], got["after_units"]),
                                 (len(ua), len(ub)), where)
                want = expected_unit_rows(ua, ub)
                self.assertEqual(
                    [(u["change"], u["name"],
                      u["before"] and u["before"]["first"],
                      u["after"] and u["after"]["first"])
                     for u in got["units"]], want, where)
                self.assertEqual(got["summary"], {
                    "same": lcs_length([u[3] for u in ua],
                                       [u[3] for u in ub]),
                    "changed": sum(w[0] == "changed" for w in want),
                    "removed": sum(w[0] == "removed" for w in want),
                    "added": sum(w[0] == "added" for w in want)}, where)
                changed += len(want)
                checked += 1
                with open(os.path.join(out, recompile_stem(a, b) + ".html")) \
                        as f:
                    page = f.read()
                self.assertIn(
                    "The rest of the code (outside the kernels and the entry "
                    "function, statement by statement): %d changed, %d "
                    "added, %d removed" % (got["summary"]["changed"],
                                           got["summary"]["added"],
                                           got["summary"]["removed"]),
                    page, where)
        self.assertGreaterEqual(checked, 10)
        self.assertGreaterEqual(changed, 3)

    def test_the_cpp_wrapper_source_outside_its_entry_and_kernels(self):
        """cpp_wrapper code: the C++ source string around
        `inductor_entry_impl` is read into units of its own. Read here: the
        `extern "C"` kernel declarations before the entry function (the
        string taken with `ast`, each declaration up to its `;`, compared
        with its spaces collapsed); each declared on both sides with other
        text is one changed unit, the others added or removed."""
        checked = changed = 0
        for name in RECORDINGS:
            out = self.report(name)
            for a, b, fa, fb in self.pairs(name):
                ca = fa.get("inductor_output_code") or ""
                cb = fb.get("inductor_output_code") or ""
                if "cpp_wrapper_src" not in ca or "cpp_wrapper_src" not in cb:
                    continue
                da, db = cpp_declarations(ca), cpp_declarations(cb)
                want = sorted(
                    [("changed", n) for n in da if n in db and da[n] != db[n]]
                    + [("removed", n) for n in da if n not in db] +
                    [("added", n) for n in db if n not in da])
                got = self.diff(out, a, b)["kernels"]["other_code"]
                self.assertEqual(sorted(
                    (u["change"], u["name"]) for u in got["units"]
                    if u["kind"] == "linkage_specification"), want,
                    (name, b))
                changed += len(want)
                checked += 1
        self.assertGreaterEqual(checked, 1)
        self.assertGreaterEqual(changed, 1)

    def test_shapes_and_metrics(self):
        """The Dynamo graph's inputs whose shapes changed, in words (dim 0
        becoming dynamic, or static for a batch of 1), and the compile
        times and counts as logged."""
        out = self.report("rec-recompile-kernels")
        spread = self.diff(out, ("-", 1, 0), ("-", 1, 1))["summary"]
        self.assertEqual([(i["name"], i["words"]) for i in spread["inputs"]],
                         [("L_x_", "dim 0 became static (s77 -> 1)")])
        auto = self.diff(out, ("-", 2, 0), ("-", 2, 1))["summary"]
        self.assertEqual([(i["name"], i["words"]) for i in auto["inputs"]],
                         [("L_x_", "dim 0 became dynamic (4 -> s77)")])
        checked = 0
        for name in RECORDINGS:
            out = self.report(name)
            for a, b, fa, fb in self.pairs(name):
                d = self.diff(out, a, b)
                ma, mb = fa["metrics"], fb["metrics"]
                self.assertEqual(d["metrics"]["available"],
                                 bool(ma and mb), (name, b))
                if not (ma and mb):
                    continue
                for row in d["metrics"]["metrics"]:
                    k = row["name"]
                    self.assertEqual((row["before"], row["after"]),
                                     (ma[k], mb[k]), (name, b, k))
                    self.assertAlmostEqual(row["delta"], mb[k] - ma[k],
                                           places=6)
                self.assertEqual(
                    d["summary"]["compile_time_s"]["after"],
                    mb["entire_frame_compile_time_s"])
                checked += 1
        self.assertGreaterEqual(checked, 8)

    def test_the_page_says_why_and_escapes_the_trace(self):
        out = self.report("rec-recompiles")
        with open(os.path.join(out, "recompile_-_0_0_to_1.html")) as f:
            page = f.read()
        self.assertIn("<h1>Recompile [0/0] to [0/1]</h1>", page)
        self.assertIn("[0/0] was compiled for G[&#39;SCALE&#39;] == 2.0; that "
                      "no longer holds", page)
        self.assertNotIn("G['SCALE']", page)
        # The post-grad nodes link the provenance pages of both compiles.
        self.assertIn('href="provenance_tracking_-_0_0_0.html#post=', page)
        self.assertIn('href="provenance_tracking_-_0_1_0.html#post=', page)


class Sessions(unittest.TestCase):
    """Logs whose ids start again (torch._dynamo.reset(), or logs
    appended), made here from rec-recompiles' recorded log (frames 0 to 5,
    recompiling): each session's compiles are compared only among
    themselves, and a later session's files end in its number."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="tl-sessions-")
        with open(os.path.join(EXAMPLES, "rec-recompiles", "trace.log")) as f:
            cls.lines = f.read().split("\n")
        if cls.lines[-1] == "":
            cls.lines.pop()
        # The first entry of [0/1] (its dynamo_start comes a few entries
        # later): a log cut before it holds [0/0] alone.
        cls.cut = next(n for n, env, _ in tracelog.records(os.path.join(
            EXAMPLES, "rec-recompiles", "trace.log"))
            if (env.get("frame_id"), env.get("frame_compile_id")) == (0, 1)) - 1
        cls.base = sorted(
            recompile_stem(a, b) for a, b, _, _ in
            Recompiles.pairs(None, "rec-recompiles"))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def run_on(self, name, lines, *args):
        log = os.path.join(self.tmp, name + ".log")
        with open(log, "w") as f:
            f.write("\n".join(lines) + "\n")
        out = os.path.join(self.tmp, name)
        r = subprocess.run([TLPARSE, log, "-o", out, "--no-browser"] +
                           list(args), capture_output=True, text=True,
                           env=dict(os.environ, CI="1"))
        self.assertEqual(r.returncode, 0, r.stderr)
        return log, out

    def stems(self, out):
        return sorted(f[:-5] for f in os.listdir(out)
                      if f.startswith("recompile_") and f.endswith(".json"))

    def expected(self, log):
        cs = compiles(log)
        keys = sorted(cs, key=lambda k: (session_of(k), k[0], k[1], k[2]))
        return sorted(recompile_stem(a, b) for a, b in zip(keys, keys[1:])
                      if a[:2] == b[:2] and session_of(a) == session_of(b))

    def test_two_logs_appended_compare_each_session_alone(self):
        log, out = self.run_on("twice", self.lines + self.lines)
        later = [s + "_session_2" for s in self.base]
        self.assertEqual(self.stems(out), sorted(self.base + later))
        self.assertEqual(self.stems(out), self.expected(log))
        for first, second in zip(self.base, later):
            with open(os.path.join(out, first + ".json")) as f:
                a = json.load(f)
            with open(os.path.join(out, second + ".json")) as f:
                b = json.load(f)
            for side in ("before", "after"):
                self.assertEqual(a[side]["session"], 1)
                self.assertEqual(b[side]["session"], 2)
                self.assertEqual(b[side]["compile_id"],
                                 a[side]["compile_id"] + " #2")
                self.assertEqual(b[side]["folder"], a[side]["folder"])
            # the same reasons, whose words name the earlier compile as
            # session 2 labels it
            self.assertEqual(
                [dict(r, words=r["words"].replace(
                    "[%s] " % r["earlier"], "[%s] #2 " % r["earlier"], 1))
                 for r in a["reasons"]], b["reasons"])
            self.assertGreater(len(b["reasons"]), 0)
            for g in ("dynamo", "pre_grad", "post_grad"):
                self.assertEqual(a["graphs"][g].get("summary"),
                                 b["graphs"][g].get("summary"), (second, g))
                if a["graphs"][g]["available"]:
                    # the second session's own files, not the first's
                    self.assertNotEqual(a["graphs"][g]["after"],
                                        b["graphs"][g]["after"])
            self.assertEqual(a["metrics"], b["metrics"])
        with open(os.path.join(out, "index.html")) as f:
            index = f.read()
        self.assertIn("This log holds 2 sessions", index)
        self.assertIn('<li>Frame 0 #2: <a href="index.html#-_0_0_0">'
                      '[0/0] #2</a> &rarr; <a href="index.html#-_0_1_0">'
                      '[0/1] #2</a>', index)
        with open(os.path.join(out, later[0] + ".html")) as f:
            page = f.read()
        self.assertIn("<title>Recompile [0/0] #2 to [0/1] #2</title>", page)
        self.assertIn("Frame 0 of session 2", page)

    def test_a_reset_in_the_middle_of_a_frame(self):
        """Session 1 ends after [0/0]: its [0/0] is no earlier compile of
        the second session's [0/1]."""
        log, out = self.run_on("mid_frame", self.lines[:self.cut] + self.lines)
        self.assertEqual(self.stems(out),
                         [s + "_session_2" for s in self.base])
        self.assertEqual(self.stems(out), self.expected(log))

    def test_a_torn_first_start_still_splits_at_0_0(self):
        """Two logs appended, the first one's [0/0] dynamo_start torn:
        without it session 2's [0/0] repeats no id, but [0/0] comes only
        first after a start or a reset, so session 2 begins there all the
        same (tracelog.sessions reads it so too)."""
        first = next(i for i, line in enumerate(self.lines)
                     if '"dynamo_start"' in line and '"frame_id": 0,' in line
                     and '"frame_compile_id": 0,' in line)
        torn = list(self.lines)
        torn[first] = torn[first].replace('{"dynamo_start"',
                                          '{"dynamo_start"]', 1)
        log, out = self.run_on("torn", torn + self.lines)
        self.assertEqual(self.stems(out), sorted(
            self.base + [s + "_session_2" for s in self.base]))
        self.assertEqual(self.stems(out), self.expected(log))
        with open(os.path.join(out, "index.html")) as f:
            self.assertIn("This log holds 2 sessions", f.read())

    def test_sessions_without_a_recompile_are_still_counted(self):
        """A log cut before [0/1] (frame 0's [0/0] alone) appended to
        itself: two sessions, no frame compiled twice in one, no recompile
        page; the index's Recompiles section says how many sessions."""
        log, out = self.run_on("no_recompile",
                               self.lines[:self.cut] + self.lines[:self.cut])
        self.assertEqual(self.stems(out), [])
        self.assertEqual(self.expected(log), [])
        self.assertEqual(max(tracelog.sessions(log)), 2)
        with open(os.path.join(out, "index.html")) as f:
            index = f.read()
        self.assertIn(
            '<section id="recompiles">\n<h2>Recompiles</h2>\n<p>This log '
            'holds 2 sessions (the frame and compile ids started again: '
            '<code>torch._dynamo.reset()</code>, or logs appended), and no '
            'frame compiled more than once within its session (<a href="'
            'help.html#recompiles">how sessions are read</a>).</p>\n'
            '</section>\n', index)
        # One session and no recompile: no section.
        _, out = self.run_on("one_session", self.lines[:self.cut])
        with open(os.path.join(out, "index.html")) as f:
            self.assertNotIn('<section id="recompiles">', f.read())

    def test_an_empty_session(self):
        """A session whose only compile logged its dynamo_start and
        nothing else: three sessions, the second without a recompile."""
        log, out = self.run_on("empty", self.lines + [self.lines[33]] +
                               self.lines)
        self.assertEqual(self.stems(out), sorted(
            self.base + [s + "_session_3" for s in self.base]))
        self.assertEqual(self.stems(out), self.expected(log))
        with open(os.path.join(out, "index.html")) as f:
            self.assertIn("This log holds 3 sessions", f.read())

    def test_compiled_autograd_ids_and_entries_without_a_compile_id(self):
        """A log written here: the frame counter is one for every
        compiled-autograd id, so [!0/0/0] after [0/0] starts frame 0
        again, a new session, whatever its autograd id; entries without a
        compile id ([-/-]) belong to no session."""
        lines = []

        def entry(env, payload=None):
            if payload is not None:
                env = dict(env, has_payload=hashlib.md5(
                    payload.encode()).hexdigest())
            lines.append("V1128 00:00:00.000000 1 x.py:1] " +
                         json.dumps(env))
            if payload is not None:
                lines.extend("\t" + p for p in payload.split("\n"))

        def compile_(autograd, frame, compile_id, size):
            ids = {"frame_id": frame, "frame_compile_id": compile_id,
                   "attempt": 0}
            if autograd is not None:
                ids["compiled_autograd_id"] = autograd
            entry(dict(ids, dynamo_start={"stack": [
                {"line": 1, "name": "f%d" % frame, "filename": 0}]}))
            entry(dict(ids, artifact={"name": "dynamo_cpp_guards_str",
                                      "encoding": "string"}),
                  "TREE_GUARD_MANAGER:\n+- RootGuardManager\n| +- "
                  "TENSOR_MATCH: check_tensor(L['x'], size=[%d])" % size)

        entry({"str": ["/m.py", 0]})
        compile_(None, 0, 0, 4)   # session 1
        compile_(0, 1, 0, 4)
        compile_(0, 1, 1, 6)
        entry({"artifact": {"name": "after_post_grad_graph",
                            "encoding": "string"}}, "graph():\n    return ()")
        compile_(0, 0, 0, 4)      # session 2: frame 0 again, autograd 0
        compile_(0, 0, 1, 6)
        compile_(None, 1, 0, 4)
        log, out = self.run_on("autograd", lines)
        self.assertEqual(self.stems(out), ["recompile_0_0_0_to_1_session_2",
                                           "recompile_0_1_0_to_1"])
        self.assertEqual(self.stems(out), self.expected(log))
        with open(os.path.join(out, "recompile_0_0_0_to_1_session_2.json")) \
                as f:
            d = json.load(f)
        self.assertEqual((d["before"]["compile_id"], d["after"]["compile_id"]),
                         ("[!0/0/0] #2", "[!0/0/1] #2"))
        self.assertEqual((d["guards"]["before_count"],
                          d["guards"]["after_count"]), (1, 1))
        self.assertEqual([c["change"] for c in d["guards"]["changes"]],
                         ["changed"])

    def test_a_later_sessions_reasons_name_the_earlier_compile_with_its_number(
            self):
        """examples/rec-sessions: session 2's [1/1] logged the reason
        "1/0: tensor 'x' size mismatch ..."; its [1/0] is labelled
        "[1/0] #2" everywhere, so the reason's words name it so too (the
        JSON's "earlier" stays the id as logged)."""
        path = os.path.join(EXAMPLES, "rec-sessions", "trace.log")
        logged = [(env, payload) for (_, env, payload), session in zip(
            tracelog.records(path), tracelog.sessions(path))
            if session == 2 and env.get("artifact", {}).get("name") ==
            "recompile_reasons"]
        self.assertEqual([(e["frame_id"], e["frame_compile_id"])
                          for e, _ in logged], [(1, 1)])
        m = re.match(r"(1/0): tensor 'x' size mismatch at index (\d+)\. "
                     r"expected (\d+), actual (\d+)$", logged[0][1])
        self.assertIsNotNone(m, logged[0][1])
        earlier, index, expected, actual = m.groups()
        words = ("[1/0] #2 was compiled for tensor x with size %s at "
                 "dimension %s; it is now %s" % (expected, index, actual))
        out = os.path.join(self.tmp, "rec_sessions")
        r = subprocess.run([TLPARSE, path, "-o", out, "--no-browser"],
                           capture_output=True, text=True,
                           env=dict(os.environ, CI="1"))
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(out, "recompile_-_1_0_to_1_session_2.json")) \
                as f:
            d = json.load(f)
        self.assertEqual([(r["earlier"], r["words"]) for r in d["reasons"]],
                         [(earlier, words)])
        with open(os.path.join(out, "index.html")) as f:
            index = f.read()
        self.assertIn("<li>[1/1] #2: %s. <a href=\"recompile_-_1_0_to_1_"
                      "session_2.html\">" % words, index)
        with open(os.path.join(out, "recompile_-_1_0_to_1_session_2.html")) \
                as f:
            self.assertIn(words, f.read())
        # Session 1's reason keeps its plain label.
        with open(os.path.join(out, "recompile_-_0_0_to_1.json")) as f:
            self.assertTrue(json.load(f)["reasons"][0]["words"].startswith(
                "[0/0] was compiled for tensor x with size "))

    def test_ids_start_again_on_one_rank_only(self):
        """--all-ranks-html: rank 0's log holds two sessions, rank 1's
        one; each rank's report splits its own log only."""
        folder = os.path.join(self.tmp, "ranks")
        os.makedirs(folder)
        for rank, lines in ((0, self.lines[:self.cut] + self.lines),
                            (1, self.lines)):
            with open(os.path.join(
                    folder, "dedicated_log_torch_trace_rank_%d.log" % rank),
                    "w") as f:
                f.write("\n".join(lines) + "\n")
        out = os.path.join(self.tmp, "ranks_out")
        r = subprocess.run([TLPARSE, folder, "--all-ranks-html", "-o", out,
                            "--no-browser"], capture_output=True, text=True,
                           env=dict(os.environ, CI="1"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.stems(os.path.join(out, "rank_0")),
                         [s + "_session_2" for s in self.base])
        self.assertEqual(self.stems(os.path.join(out, "rank_1")), self.base)


if __name__ == "__main__":
    unittest.main(verbosity=2)
