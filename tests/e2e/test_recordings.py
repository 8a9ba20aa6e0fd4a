"""The traces recorded on the CPU (examples/rec-*/): torch 2.13.0, and the
JIT, AOTInductor and training programs again with torch 2.14.1 and 2.15.0
(rec-*-2.14, rec-*-2.15).

For each single-rank trace: `tlparse --strict -i` exits 0 and prints exactly
the diagnostics that are true of it; the files written are those of the
Rust tlparse 0.4.3 (tests/e2e/oracle.py's compare(), with our known extra
files and the earlier provenance pages of a folder); and for chosen kernels,
the links in provenance_tracking_<dir>.json (kernel -> code line -> post-grad
lines -> pre-grad lines, stack traces, definition) equal what this test
computes by itself from the log: its own reader of the glog lines, the
mapping JSON, and the text of the graphs and code. The two rank logs of the
gloo job are checked on their own and through --all-ranks-html.

    TLPARSE=build/tlparse TLPARSE_VENV=build/venv python3 tests/e2e/test_recordings.py
"""

import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import oracle  # noqa: E402

TLPARSE = os.environ.get("TLPARSE", "tlparse")
EXAMPLES = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..",
                                         "examples"))

# name -> (earlier provenance pages that we write and tlparse 0.4.3 does not,
#          [(compile folder, which mapping of the folder, view JSON, kernel)])
# We give each Inductor compilation of a folder its own page (forward and
# backward; the first run and the cache hit after torch._dynamo.reset());
# the Rust tool writes one page per folder, for the last.
SINGLE = {
    "rec-jit-cpu": ([], [
        ("-_0_0_0", -1, "provenance_tracking_-_0_0_0.json",
         "cpp_fused_add_gelu_native_layer_norm_1:6"),
        ("-_0_0_0", -1, "provenance_tracking_-_0_0_0.json",
         "extern_kernels.addmm:3"),
    ]),
    "rec-train-cpu": (["provenance_tracking_-_0_0_0_0.html"], [
        ("-_0_0_0", 0, "provenance_tracking_-_0_0_0_0.json",
         "cpp_fused_add_gelu_native_layer_norm_native_layer_norm_backward_1:4"),
        ("-_3_0_0", -1, "provenance_tracking_-_3_0_0.json",
         "cpp_fused_add_copy__0:1"),
    ]),
    "rec-aot-cpu": ([], [
        ("-_-_-_-", -1, "provenance_tracking_-_-_-_-.json",
         "cpp_fused_add_gelu_native_layer_norm_1:6"),
        ("-_-_-_-", -1, "provenance_tracking_-_-_-_-.json",
         "aoti_torch_cpu_addmm_out:3"),
    ]),
    "rec-dynamic": (["provenance_tracking_-_0_0_1_0.html",
                     "provenance_tracking_-_0_1_1_0.html",
                     "provenance_tracking_-_1_0_0_0.html",
                     "provenance_tracking_-_1_1_0_0.html"], [
        ("-_0_1_1", 0, "provenance_tracking_-_0_1_1_0.json",
         "cpp_fused_add_gelu_native_layer_norm_0:2"),
        ("-_0_1_1", 1, "provenance_tracking_-_0_1_1.json",
         "cpp_fused_add_gelu_native_layer_norm_0:2"),
        ("-_1_1_0", -1, "provenance_tracking_-_1_1_0.json",
         "cpp_fused_add_mul_relu_0:1"),
    ]),
    # One cause of recompiling per frame (tests/e2e/test_recompiles.py
    # checks the diffs): the float64 compile of `cast`.
    "rec-recompiles": ([], [
        ("-_2_1_0", -1, "provenance_tracking_-_2_1_0.json",
         "cpp_fused_add_cos_mul_0:1"),
    ]),
    "rec-profile": ([], [
        ("-_0_0_0", -1, "provenance_tracking_-_0_0_0.json",
         "cpp_fused_add_gelu_native_layer_norm_1:4"),
    ]),
    # The profiled AOTInductor and cpp_wrapper recordings (their profiles
    # are checked by tests/profile/profile_e2e.py).
    "rec-profile-aot-cpu": ([], [
        ("-_-_-_-", -1, "provenance_tracking_-_-_-_-.json",
         "cpp_fused_add_gelu_native_layer_norm_1:4"),
        ("-_-_-_-", -1, "provenance_tracking_-_-_-_-.json",
         "aoti_torch_cpu_addmm_out:3"),
    ]),
    "rec-profile-cpp-wrapper": ([], [
        ("-_0_0_0", -1, "provenance_tracking_-_0_0_0.json",
         "cpp_fused_add_gelu_native_layer_norm_0:2"),
        ("-_0_0_0", -1, "provenance_tracking_-_0_0_0.json",
         "aoti_torch_cpu_addmm_out:1"),
    ]),
    # Subgraphs that the output code lifts into functions: the region's
    # `repeated_subgraph0` and a torch.cond in a torch.cond's branch. `mul`
    # is defined in four graphs, `gt` and `cond` in two; the function a
    # kernel is called in tells which (the branch's `mul`, the `gt` of the
    # graph around the branch).
    "rec-subgraphs": ([], [
        ("-_0_0_0", -1, "provenance_tracking_-_0_0_0.json",
         "cpp_fused_add_gelu_mul_native_layer_norm_2:5"),
        ("-_0_0_0", -1, "provenance_tracking_-_0_0_0.json",
         "cpp_fused_gt_mean_mul_6:9"),
        ("-_0_0_0", -1, "provenance_tracking_-_0_0_0.json",
         "cpp_fused_gt_mean_mul_7:10"),
        ("-_0_0_0", -1, "provenance_tracking_-_0_0_0.json",
         "cpp_fused_gt_sigmoid_sub_8:11"),
        ("-_0_0_0", -1, "provenance_tracking_-_0_0_0.json",
         "cpp_fused_add_gelu_native_layer_norm_0:2"),
    ]),
    # The same torch.cond under AOTInductor and with cpp_wrapper=True: the
    # C++ wrappers inline each branch in a block opening with
    # `// subgraph: true_graph_0`, the inner ones nested in it.
    "rec-subgraphs-aot": ([], [
        ("-_-_-_-", -1, "provenance_tracking_-_-_-_-.json",
         "cpp_fused_gt_mean_mul_3:6"),
        ("-_-_-_-", -1, "provenance_tracking_-_-_-_-.json",
         "cpp_fused_gt_mean_mul_4:7"),
        ("-_-_-_-", -1, "provenance_tracking_-_-_-_-.json",
         "cpp_fused_gt_sigmoid_sub_5:8"),
        ("-_-_-_-", -1, "provenance_tracking_-_-_-_-.json",
         "cpp_fused_add_gelu_native_layer_norm_0:2"),
    ]),
    "rec-subgraphs-cpp-wrapper": ([], [
        ("-_0_0_0", -1, "provenance_tracking_-_0_0_0.json",
         "cpp_fused_gt_mean_mul_3:6"),
        ("-_0_0_0", -1, "provenance_tracking_-_0_0_0.json",
         "cpp_fused_gt_mean_mul_4:7"),
        ("-_0_0_0", -1, "provenance_tracking_-_0_0_0.json",
         "cpp_fused_gt_sigmoid_sub_5:8"),
        ("-_0_0_0", -1, "provenance_tracking_-_0_0_0.json",
         "cpp_fused_add_gelu_native_layer_norm_0:2"),
    ]),
    # A while_loop's condition and body inlined one after the other in one
    # C++ block; the body's `add` and `mul` share their names with the
    # first layer norm's.
    "rec-while-cpp-wrapper": ([], [
        ("-_0_0_0", -1, "provenance_tracking_-_0_0_0.json",
         "cpp_fused_add_gelu_mul_native_layer_norm_relu_3:6"),
        ("-_0_0_0", -1, "provenance_tracking_-_0_0_0.json",
         "cpp_fused_add_gelu_native_layer_norm_0:2"),
    ]),
    # The torch.cond branches' nodes (relu, sigmoid) are in subgraph
    # classes nested in the post-grad graph's; `mul` and `sub` name nodes of
    # both graphs, and the outer graph's come first.
    "rec-cond": ([], [
        ("-_0_0_0", -1, "provenance_tracking_-_0_0_0.json",
         "cpp_fused_gt_mul_relu_2:5"),
        ("-_0_0_0", -1, "provenance_tracking_-_0_0_0.json",
         "cpp_fused_gt_sigmoid_sub_3:6"),
    ]),
    # The score and mask functions are subgraph classes nested in both
    # graphs; the block mask's `dense_mask[...] = new_ones;  setitem =
    # dense_mask` is an in-place node.
    "rec-flex": ([], [
        ("-_0_0_0", -1, "provenance_tracking_-_0_0_0.json",
         "cpp_fused__to_copy_flex_attention_ones_slice_sum_transpose_zeros_1:2"),
        ("-_0_0_0", -1, "provenance_tracking_-_0_0_0.json",
         "cpp_fused_ones_zeros_0:1"),
    ]),
    # The same three programs recorded with torch 2.14.1 and 2.15.0 (the
    # table of what each version logs differently: docs/formats.md).
    "rec-jit-cpu-2.14": ([], [
        ("-_0_0_0", -1, "provenance_tracking_-_0_0_0.json",
         "cpp_fused_add_gelu_native_layer_norm_1:6"),
        ("-_0_0_0", -1, "provenance_tracking_-_0_0_0.json",
         "extern_kernels.addmm:3"),
    ]),
    "rec-jit-cpu-2.15": ([], [
        ("-_0_0_0", -1, "provenance_tracking_-_0_0_0.json",
         "cpp_fused_add_gelu_native_layer_norm_1:6"),
        ("-_0_0_0", -1, "provenance_tracking_-_0_0_0.json",
         "extern_kernels.addmm:3"),
    ]),
    "rec-aot-cpu-2.14": ([], [
        ("-_-_-_-", -1, "provenance_tracking_-_-_-_-.json",
         "cpp_fused_add_gelu_native_layer_norm_1:6"),
        ("-_-_-_-", -1, "provenance_tracking_-_-_-_-.json",
         "aoti_torch_cpu_addmm_out:3"),
    ]),
    "rec-aot-cpu-2.15": ([], [
        ("-_-_-_-", -1, "provenance_tracking_-_-_-_-.json",
         "cpp_fused_add_gelu_native_layer_norm_1:6"),
        ("-_-_-_-", -1, "provenance_tracking_-_-_-_-.json",
         "aoti_torch_cpu_addmm_out:3"),
    ]),
    "rec-train-cpu-2.14": (["provenance_tracking_-_0_0_0_0.html"], [
        ("-_0_0_0", 0, "provenance_tracking_-_0_0_0_0.json",
         "cpp_fused_add_gelu_native_layer_norm_native_layer_norm_backward_1:4"),
        ("-_3_0_0", -1, "provenance_tracking_-_3_0_0.json",
         "cpp_fused_add_copy__0:1"),
    ]),
    "rec-train-cpu-2.15": (["provenance_tracking_-_0_0_0_0.html"], [
        ("-_0_0_0", 0, "provenance_tracking_-_0_0_0_0.json",
         "cpp_fused_add_gelu_native_layer_norm_native_layer_norm_backward_1:4"),
        ("-_3_0_0", -1, "provenance_tracking_-_3_0_0.json",
         "cpp_fused_add_copy__0:1"),
    ]),
    "rec-draft-export": ([], []),
    # The cpp_wrapper output code is Python holding the C++ wrapper in one
    # raw string; its kernel links are checked in CppWrapper below.
    "rec-cpp-wrapper": ([], []),
}
CPP_WRAPPER = ("-_0_0_0", -1, "provenance_tracking_-_0_0_0.json",
               "cpp_fused_add_gelu_native_layer_norm_0:2")

GLOG = re.compile(r"^[VIWEC]\d{4} [\d:.]+ +\d+ [^:\]]+:\d+\] (\{.*)$")
ID_KEYS = ("rank", "compiled_autograd_id", "frame_id", "frame_compile_id",
           "attempt", "stack", "has_payload")


def read_log(path):
    """[(line number, envelope, payload or None)], our own reading."""
    entries = []
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        m = GLOG.match(lines[i])
        if not m:
            i += 1
            continue
        start = i + 1
        env = json.loads(m.group(1))
        i += 1
        body = []
        while i < len(lines) and lines[i].startswith("\t"):
            body.append(lines[i][1:])
            i += 1
        entries.append((start, env, "\n".join(body) if "has_payload" in env
                        else None))
    return entries


def folder(env):
    def part(key):
        v = env.get(key)
        return "-" if v is None else str(v)
    return "_".join(part(k) for k in ("compiled_autograd_id", "frame_id",
                                      "frame_compile_id", "attempt"))


def kind(env):
    k = next((k for k in env if k not in ID_KEYS), None)
    if k == "artifact":
        return "artifact:" + env["artifact"]["name"]
    if k == "graph_dump":
        return "graph_dump:" + env["graph_dump"]["name"]
    return k


def view_inputs(entries, cdir, which):
    """The artifacts of the which-th Inductor compilation in a folder: its
    mapping, the stack traces after it, and the last code, post-grad graph
    and pre-grad graph logged in the folder before the mapping."""
    mine = [(n, kind(e), p) for n, e, p in entries if folder(e) == cdir]
    maps = [i for i, (_, k, _) in enumerate(mine)
            if k == "artifact:inductor_provenance_tracking_node_mappings"]
    at = maps[which]
    before = mine[:at]

    def last(*kinds):
        found = [p for _, k, p in before if k in kinds]
        return found[-1] if found else None

    after = mine[at + 1]
    assert after[1] == "artifact:inductor_provenance_tracking_kernel_stack_traces"
    return {
        "mapping": json.loads(mine[at][2]),
        "stacks": json.loads(after[2]),
        "code": last("inductor_output_code",
                     "graph_dump:inductor_aot_wrapper_code"),
        "kernel_code": last("graph_dump:inductor_aot_kernel_code"),
        "post": last("artifact:inductor_post_grad_graph",
                     "inductor_post_grad_graph"),
        "pre": last("artifact:before_pre_grad_graph"),
    }


# FX's in-place operator node: `x[i] = v;  setitem = x`, `x += y;  iadd = x`.
INPLACE = (r"^ *\w+(?:\[.*\] = | (?:\+|-|\*|/|//|%|\*\*|@|&|\||\^|<<|>>)= )"
           r"[^;]*;  (\w+)(?:: \"[^\"]*\")? = \w+(?:;|$)")


def definitions(graph):
    """Node name -> [(graph, line)]: the first assignment of the name in the
    body of each forward, the top-level class's (graph 0, indented 8) and
    those of the subgraph classes print_readable nests in it (1, 2, ... in
    text order; a class indented c has its forward's body at c + 8)."""
    defs = {}
    classes = []  # (indent, graph) of the classes open at this line
    count = 0
    for n, text in enumerate(graph.split("\n"), 1):
        indent = len(text) - len(text.lstrip(" "))
        m = re.match(r"^ *class \S+\(", text)
        if m:
            while classes and classes[-1][0] >= indent:
                classes.pop()
            classes.append((indent, 0 if not classes else count))
            count += 1
            continue
        m = (re.match(r"^ *(\w+)(?:: \"[^\"]*\")? = ", text) or
             re.match(INPLACE, text))
        if not m:
            continue
        while classes and classes[-1][0] + 8 > indent:
            classes.pop()
        if not classes or classes[-1][0] + 8 != indent:
            continue
        g = classes[-1][1]
        found = defs.setdefault(m.group(1), [])
        if g not in [x for x, _ in found]:
            found.append((g, n))
    return defs


def subgraphs(graph):
    """Subgraph (numbered as in definitions) -> (name, parent): the class
    names from the outermost subgraph down, joined by "_" (the name of the
    function Inductor's Python wrapper lifts it into), and the graph of the
    class it is nested in (0: the outer one)."""
    out = {}
    classes = []  # (indent, graph, name) of the classes open at this line
    count = 0
    for text in graph.split("\n"):
        m = re.match(r"^( *)class (\S+)\(", text)
        if not m:
            continue
        indent = len(m.group(1))
        while classes and classes[-1][0] >= indent:
            classes.pop()
        if classes:
            _, parent, outer = classes[-1]
            name = outer + "_" + m.group(2) if parent else m.group(2)
            out[count] = (name, parent)
            classes.append((indent, count, name))
        else:
            classes.append((indent, 0, ""))
        count += 1
    return out


def function_of(code, line):
    """The name of the innermost `def` around line `line` of the code."""
    indent = len(code[line - 1]) - len(code[line - 1].lstrip())
    for text in reversed(code[:line - 1]):
        here = len(text) - len(text.lstrip())
        if not text.strip() or here >= indent:
            continue
        m = re.match(r"^\s*def (\w+)\(", text)
        if m:
            return m.group(1)
        indent = here
    return None


def subgraph_blocks(code):
    """[(first, last, name)]: where the C++ wrappers inline a subgraph's
    code, a `// subgraph: NAME` line up to the next line of its indentation
    with another such comment, or to the line that closes its block, the
    first `}` at 4 less indentation (Inductor's IndentedBuffer), with each
    name joined to those of the blocks around it."""
    blocks = []
    for i, text in enumerate(code, 1):
        m = re.match(r"^( *)// subgraph: (\w+)$", text)
        if not m:
            continue
        indent = len(m.group(1)) - 4
        last = next(j - 1 for j in range(i + 1, len(code) + 1)
                    if re.match(r"^ {%d}\}" % indent, code[j - 1]) or
                    re.match(r"^%s// subgraph: " % m.group(1), code[j - 1]))
        outer = [b for b in blocks if b[0] < i <= b[1]]
        name = "_".join([b[2] for b in outer[-1:]] + [m.group(2)])
        blocks.append((i, last, name))
    return blocks


def scope_of(code, line):
    """Where a call at `line` is, as Inductor names a subgraph's code: the
    innermost C++ subgraph block around it, else the innermost `def`."""
    around = [b for b in subgraph_blocks(code) if b[0] < line <= b[1]]
    return around[-1][2] if around else function_of(code, line)


def call_graph(code, line, subs):
    """The post-grad graph whose nodes a kernel called at `line` means when
    the code names some scope after a subgraph (a function of the Python
    wrapper, a block of the C++ one): the subgraph its scope is named after,
    else the outer graph (0); None when no scope is named after one."""
    scopes = {m.group(1) for t in code
              for m in [re.match(r"^\s*def (\w+)\(", t)] if m}
    scopes |= {name for _, _, name in subgraph_blocks(code)}
    lifted = {name: g for g, (name, _) in subs.items() if name in scopes}
    if not lifted:
        return None
    return lifted.get(scope_of(code, line), 0)


def called(defs, subs, name, graph):
    """The line of `name` in graph `graph`, or else in the nearest graph
    around it that defines it; [] when none does."""
    found = dict(defs.get(name, []))
    while graph not in found:
        if graph == 0:
            return []
        graph = subs[graph][1]
    return [found[graph]]


def meant(defs, name, names):
    """The lines of `name` that the mapping entry `names` means: the only
    definition; else those in the subgraphs of the entry's names defined in
    one graph alone, or else the outer one when such a name is outer; else
    every one."""
    found = defs.get(name, [])
    if len(found) < 2:
        return [line for _, line in found]
    context = {defs[x][0][0] for x in names if len(defs.get(x, [])) == 1}
    lines = [line for g, line in found if g != 0 and g in context]
    if not lines and 0 in context:
        lines = [line for g, line in found if g == 0]
    return lines or [line for _, line in found]


def expected_links(inputs, key):
    """What the view must say about kernel `key`, computed from the text."""
    name = key.rsplit(":", 1)[0]
    code = inputs["code"].split("\n")
    comment = re.compile(r"^\s*(#|//) \[Provenance debug handles\] %s$"
                         % re.escape(key))
    at = next(i for i, t in enumerate(code) if comment.match(t))
    call = next(i for i in range(at + 1, len(code))
                if re.search(r"(^|[^\w.])%s\(" % re.escape(name), code[i])) + 1
    mapping = inputs["mapping"]
    post_names = list(dict.fromkeys(mapping["cppCodeToPost"][key]))
    post_def = definitions(inputs["post"])
    pre_def = definitions(inputs["pre"])
    subs = subgraphs(inputs["post"])
    graph = call_graph(code, call, subs)

    def kernel_meant(p):
        if graph is not None and len(post_def.get(p, [])) > 1:
            lines = called(post_def, subs, p, graph)
            if lines:
                return lines
        return meant(post_def, p, post_names)
    post_lines = sorted({line for p in post_names for line in kernel_meant(p)})
    post_to_pre = {}
    for p in post_names:
        values = mapping["postToPre"].get(p, [])
        pre = {line for q in values for line in meant(pre_def, q, values)}
        # a key has no context in its own graph: every definition of it
        for key_line in meant(post_def, p, []):
            post_to_pre.setdefault(str(key_line), set()).update(pre)
    post_to_pre = {k: sorted(v) for k, v in post_to_pre.items()
                   if int(k) in post_lines}
    definition = None
    if inputs["kernel_code"] is not None and name.startswith("cpp_"):
        kc = inputs["kernel_code"].split("\n")
        first = next((i for i, t in enumerate(kc, 1)
                      if re.match(r'^extern "C"\s+void\s+%s\(' % name, t)),
                     None)
        definition = ("kernel_code", first) if first else None
    elif name.startswith("cpp_"):
        first = next((i for i, t in enumerate(code, 1)
                      if t.startswith("%s = async_compile.cpp_pybinding("
                                      % name)), None)
        definition = ("code", first) if first else None
    return {"call": call, "post_names": post_names, "post_lines": post_lines,
            "post_to_pre": post_to_pre, "definition": definition,
            "stacks": inputs["stacks"].get(key, [])}


def run(log, out, *flags):
    return subprocess.run([TLPARSE, log, "-o", out, "--no-browser"]
                          + list(flags), capture_output=True, text=True,
                          env=dict(os.environ, CI="1"))


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


class Recordings(unittest.TestCase):
    maxDiff = None

    def check_kernel(self, out, entries, cdir, which, view_name, key):
        inputs = view_inputs(entries, cdir, which)
        view = load(os.path.join(out, view_name))
        # The view shows the very artifacts we chose.
        for slot, text in (("code", inputs["code"]),
                           ("post_grad_graph", inputs["post"]),
                           ("pre_grad_graph", inputs["pre"]),
                           ("kernel_code", inputs["kernel_code"])):
            path = view["artifacts"][slot]
            if text is None:
                self.assertIsNone(path, slot)
                continue
            with open(os.path.join(out, path), encoding="utf-8") as f:
                self.assertEqual(f.read(), text, slot)
        self.assertEqual(load(os.path.join(
            out, view["artifacts"]["node_mappings"])), inputs["mapping"])
        self.assertEqual(view["mapping_version"], 2)
        self.assertIsNone(view["no_links_reason"])
        want = expected_links(inputs, key)
        k = next(k for k in view["kernels"] if k["key"] == key)
        self.assertEqual(k["calls"], [want["call"]])
        self.assertEqual(k["post_nodes"], want["post_names"])
        self.assertEqual(k["stack_traces"], want["stacks"])
        self.assertEqual(view["lines"]["codeToPost"][str(want["call"])],
                         want["post_lines"])
        for line in want["post_lines"]:
            self.assertIn(want["call"],
                          view["lines"]["postToCode"][str(line)])
        # and no other definition of the kernel's names links the call
        post_def = definitions(inputs["post"])
        for line in {line for p in want["post_names"]
                     for _, line in post_def.get(p, [])} - set(
                         want["post_lines"]):
            self.assertNotIn(want["call"], view["lines"]["postToCode"].get(
                str(line), []), "post-grad line %s" % line)
        for line, pre in want["post_to_pre"].items():
            self.assertEqual(view["lines"]["postToPre"].get(line, []), pre,
                             "post-grad line %s" % line)
        if want["definition"]:
            self.assertEqual(k["definition"]["file"], want["definition"][0])
            self.assertEqual(k["definition"]["first"], want["definition"][1])
        if want["definition"] and want["definition"][0] == "kernel_code":
            kp = view["kernel_lines"]["kernelToPost"][
                str(want["definition"][1])]
            self.assertTrue(set(want["post_lines"]) <= set(kp))
        self.assertNotIn(key, view["unresolved"]["kernels"])

    def test_single_rank_traces(self):
        for name, (extra, kernels) in sorted(SINGLE.items()):
            log = os.path.join(EXAMPLES, name, "trace.log")
            with self.subTest(trace=name), \
                    tempfile.TemporaryDirectory() as tmp:
                out = os.path.join(tmp, "out")
                r = run(log, out, "--strict", "-i")
                self.assertEqual(r.returncode, 0, r.stderr)
                # Every recorded single-rank trace is clean: no diagnostics.
                self.assertEqual(r.stderr, "")
                self.assertEqual(r.stdout, "tlparse: wrote %s\n"
                                 % os.path.join(out, "index.html"))
                entries = read_log(log)
                for cdir, which, view_name, key in kernels:
                    with self.subTest(view=view_name, kernel=key):
                        self.check_kernel(out, entries, cdir, which,
                                          view_name, key)

    def test_every_mapped_node_has_its_lines(self):
        """In the recordings with subgraphs and in-place nodes, every name
        the mapping mentions resolves, to the lines our own reading finds:
        nodes gives the first definition, node_definitions every one."""
        for name in ("rec-cond", "rec-flex", "rec-subgraphs",
                     "rec-subgraphs-cpp-wrapper", "rec-while-cpp-wrapper"):
            log = os.path.join(EXAMPLES, name, "trace.log")
            inputs = view_inputs(read_log(log), "-_0_0_0", -1)
            with self.subTest(trace=name), \
                    tempfile.TemporaryDirectory() as tmp:
                out = os.path.join(tmp, "out")
                self.assertEqual(run(log, out, "-i").returncode, 0)
                view = load(os.path.join(out,
                                         "provenance_tracking_-_0_0_0.json"))
                m = inputs["mapping"]
                for side, names in (
                        ("pre", set(m["preToPost"]) |
                         {q for v in m["postToPre"].values() for q in v}),
                        ("post", set(m["postToPre"]) | set(m["postToCppCode"]) |
                         {p for v in m["preToPost"].values() for p in v} |
                         {p for v in m["cppCodeToPost"].values() for p in v})):
                    defs = definitions(inputs[side])
                    self.assertEqual(view["unresolved"][side + "_nodes"], [])
                    self.assertEqual(
                        view["nodes"][side],
                        {n: defs[n][0][1] for n in names})
                    self.assertEqual(
                        view["node_definitions"][side],
                        {n: [line for _, line in defs[n]] for n in names
                         if len(defs[n]) > 1})
                if name == "rec-flex":  # the block mask's in-place node
                    self.assertIn("setitem", view["nodes"]["pre"])

    def test_backward_mapping_is_empty_in_torch_2_13_to_2_15(self):
        for name in ("rec-train-cpu", "rec-train-cpu-2.14",
                     "rec-train-cpu-2.15"):
            with self.subTest(trace=name):
                self.check_empty_backward(name)

    def test_index_names_the_torch_that_recorded_the_trace(self):
        for name, want in (("rec-jit-cpu", "2.13.0+cpu"),
                           ("rec-jit-cpu-2.14", "2.14.1+cu130"),
                           ("rec-jit-cpu-2.15", "2.15.0+cu132")):
            log = os.path.join(EXAMPLES, name, "trace.log")
            logged = [json.loads(p)["pytorch_version"]
                      for _, e, p in read_log(log)
                      if kind(e) == "artifact:torch_version"]
            self.assertEqual(logged, [want])
            with self.subTest(trace=name), \
                    tempfile.TemporaryDirectory() as tmp:
                out = os.path.join(tmp, "out")
                self.assertEqual(run(log, out).returncode, 0)
                with open(os.path.join(out, "index.html"),
                          encoding="utf-8") as f:
                    index = f.read()
                self.assertEqual(re.findall(
                    r"Recorded with torch <code>([^<]*)</code>\.", index),
                    [want])

    def check_empty_backward(self, name):
        log = os.path.join(EXAMPLES, name, "trace.log")
        entries = read_log(log)
        backward = view_inputs(entries, "-_0_0_0", 1)
        self.assertEqual(backward["mapping"], {"version": 2.0})
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "out")
            self.assertEqual(run(log, out, "-i").returncode, 0)
            view = load(os.path.join(out, "provenance_tracking_-_0_0_0.json"))
            self.assertEqual(view["mapping_version"], 2)
            self.assertIsNotNone(view["no_links_reason"])
            self.assertEqual(view["lines"]["codeToPost"], {})
            # Its kernels still come with the stack traces torch logged.
            self.assertEqual(sorted(k["key"] for k in view["kernels"]),
                             sorted(backward["stacks"]))

    def test_draft_export_has_no_mapping(self):
        log = os.path.join(EXAMPLES, "rec-draft-export", "trace.log")
        kinds = {kind(e) for _, e, _ in read_log(log)}
        self.assertIn("exported_program", kinds)
        self.assertIn("propagate_real_tensors_provenance", kinds)
        self.assertNotIn("artifact:inductor_provenance_tracking_node_mappings",
                         kinds)
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "out")
            self.assertEqual(run(log, out, "-i").returncode, 0)
            view = load(os.path.join(out, "provenance_tracking_-_-_-_-.json"))
            self.assertIsNone(view["mapping_version"])
            self.assertIsNotNone(view["no_links_reason"])

    @unittest.skipUnless(oracle.rust_binary(),
                         "no Rust tlparse in TLPARSE_VENV: oracle part skipped")
    def test_files_are_those_of_tlparse_0_4_3(self):
        # Our earlier pages of a folder with several compilations are on
        # the allow-list: they are written, and explained by it.
        for name, (extra, _) in sorted(SINGLE.items()):
            log = os.path.join(EXAMPLES, name, "trace.log")
            with self.subTest(trace=name), \
                    tempfile.TemporaryDirectory() as tmp:
                diffs, ours, theirs = oracle.compare(log, ["-i"], keep=tmp)
                self.assertEqual(ours.returncode, 0, ours.stderr)
                self.assertEqual(theirs.returncode, 0, theirs.stderr)
                self.assertEqual(diffs, [])
                for page in extra:
                    self.assertTrue(os.path.isfile(os.path.join(
                        tmp, "ours", page)), page)
                    self.assertFalse(os.path.exists(os.path.join(
                        tmp, "rust", page)), page)

    def rank_logs(self):
        logs = sorted(glob.glob(os.path.join(
            EXAMPLES, "rec-gloo-2rank", "dedicated_log_torch_trace_rank_*.log")))
        self.assertEqual(len(logs), 2)
        return logs

    def test_rank_logs(self):
        for rank, log in enumerate(self.rank_logs()):
            self.assertIn("_rank_%d_" % rank, os.path.basename(log))
            entries = read_log(log)
            # torch 2.13 logs torch_version without rank (suppress_context)
            # right after the first entry: the one entry "of another rank".
            ranked = [n for n, e, _ in entries if "rank" in e]
            rankless = [(n, kind(e)) for n, e, _ in entries if "rank" not in e
                        and kind(e) != "str"]
            self.assertEqual(rankless[0][1], "artifact:torch_version")
            self.assertEqual(len(rankless), 1)
            self.assertLess(ranked[0], rankless[0][0])
            with self.subTest(rank=rank), \
                    tempfile.TemporaryDirectory() as tmp:
                out = os.path.join(tmp, "out")
                r = run(log, out, "-i")
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertEqual(r.stderr, (
                    "tlparse: %s:%d: entry without a rank in a log of rank %d "
                    "skipped (as the Rust tool skips it) (1 entry of another "
                    "rank (skipped))\n"
                    % (log, rankless[0][0], rank)))
                self.check_kernel(
                    out, entries, "-_0_0_0", -1,
                    "provenance_tracking_-_0_0_0.json",
                    "torch.ops._c10d_functional.all_reduce_.default:3")
                self.check_kernel(
                    out, entries, "-_0_0_0", -1,
                    "provenance_tracking_-_0_0_0.json",
                    "cpp_fused_add_all_reduce_gelu_native_layer_norm_0:2")
                strict = run(log, os.path.join(tmp, "strict"), "-i",
                             "--strict")
                self.assertEqual(strict.returncode, 1)
                self.assertEqual(strict.stderr, r.stderr + (
                    "tlparse: --strict: 1 line failed to parse\n"))
            if oracle.rust_binary():
                diffs, ours, theirs = oracle.compare(log, ["-i"])
                self.assertEqual(diffs, [])
                diffs, ours, theirs = oracle.compare(log, ["-i", "--strict"])
                self.assertEqual((ours.returncode, theirs.returncode), (1, 1))

    def test_all_ranks(self):
        self.rank_logs()
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "out")
            r = run(os.path.join(EXAMPLES, "rec-gloo-2rank"), out,
                    "--all-ranks-html", "-i")
            self.assertEqual(r.returncode, 0, r.stderr)
            for rank in (0, 1):
                self.assertTrue(os.path.isfile(os.path.join(
                    out, "rank_%d" % rank, "provenance_tracking_-_0_0_0.json")))


class CppWrapper(unittest.TestCase):
    """torch 2.13's cpp_wrapper=True output code: the kernel calls are in the
    C++ inside cpp_wrapper_src, read as C++ (mode "jit-cpp-wrapper")."""

    def test_graph_links(self):
        log = os.path.join(EXAMPLES, "rec-cpp-wrapper", "trace.log")
        inputs = view_inputs(read_log(log), "-_0_0_0", -1)
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "out")
            self.assertEqual(run(log, out, "-i").returncode, 0)
            view = load(os.path.join(out, CPP_WRAPPER[2]))
            want = expected_links(inputs, CPP_WRAPPER[3])
            for line, pre in want["post_to_pre"].items():
                self.assertEqual(view["lines"]["postToPre"][line], pre)

    def test_kernel_links(self):
        log = os.path.join(EXAMPLES, "rec-cpp-wrapper", "trace.log")
        entries = read_log(log)
        inputs = view_inputs(entries, "-_0_0_0", -1)
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "out")
            self.assertEqual(run(log, out, "-i").returncode, 0)
            view = load(os.path.join(out, CPP_WRAPPER[2]))
            self.assertEqual(view["mode"], "jit-cpp-wrapper")
            self.assertEqual(view["unresolved"]["kernels"], [])
            # Every kernel key of the mapping, each at the call after its
            # `// [Provenance debug handles]` comment.
            keys = list(inputs["mapping"]["cppCodeToPost"])
            self.assertEqual(len(keys), 6)
            for key in keys:
                with self.subTest(kernel=key):
                    Recordings.check_kernel(self, out, entries,
                                            *CPP_WRAPPER[:3], key)
            code = inputs["code"].split("\n")
            # The C++ lies between `r"""` and `"""` of cpp_wrapper_src.
            first = code.index('r"""') + 2
            last = code.index('"""', first)
            self.assertEqual(view["embedded"], [
                {"file": "code", "first": first, "last": last,
                 "language": "cpp"}])
            entry = next(i for i, t in enumerate(code, 1)
                         if t.startswith("void inductor_entry_impl("))
            close = code.index("} // inductor_entry_impl") + 1
            self.assertEqual(view["entry"]["last"], close)
            self.assertTrue(entry < view["entry"]["first"] < close)
            # A cpp_fused_* kernel is defined by its body after cpp_prefix.h.
            for k in view["kernels"]:
                if not k["name"].startswith("cpp_fused_"):
                    self.assertIsNone(k["definition"], k["key"])
                    continue
                head = next(i for i in range(2, len(code) + 1)
                            if code[i - 2].startswith(
                                "#include <torch/csrc/inductor/cpp_prefix.h>")
                            and re.match(r'^extern "C"\s+void\s+%s\(' %
                                         re.escape(k["name"]), code[i - 1]))
                self.assertEqual(k["definition"]["file"], "code")
                self.assertEqual(k["definition"]["first"], head)
                self.assertEqual(code[k["definition"]["last"] - 1], "}")


if __name__ == "__main__":
    unittest.main(verbosity=2)
