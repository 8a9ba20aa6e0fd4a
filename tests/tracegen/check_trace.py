#!/usr/bin/env python3
"""check_trace.py: keeps the trace generator honest (Python 3 stdlib only).

Re-reads a TORCH_TRACE log the way tlparse does (glog prefix, JSON envelope,
tab payload lines), verifies every `has_payload` md5, and checks each
node-mappings artifact against the graphs and code logged before it in the
same compile: every node name exists in its graph, the four maps agree with
each other, every kernel key is called in the code (v2: exactly one
`[Provenance debug handles] <key>` comment, followed by the call), and the
kernel stack traces have the same keys.

    check_trace.py LOG...                       check logs
    check_trace.py --gen "ARGS" [--expect LOG]  run gen_trace.py ARGS twice,
                                                require identical bytes (and
                                                equal to LOG), then check
    check_trace.py --self-test                  damage generated logs and
                                                require each damage be found
"""

import argparse
import hashlib
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GEN = os.path.join(HERE, "gen_trace.py")

PRE_KINDS = ("before_pre_grad_graph", "inductor_pre_grad_graph")
POST_KINDS = ("after_post_grad_graph", "inductor_post_grad_graph")
CODE_KINDS = ("inductor_output_code", "inductor_aot_wrapper_code")
MAPPING = "inductor_provenance_tracking_node_mappings"
TRACES = "inductor_provenance_tracking_kernel_stack_traces"
HANDLE = "[Provenance debug handles] "


def read_log(text, errors):
    """Yields (lineno, envelope, payload or None)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    i = 0
    while i < len(lines):
        lineno = i + 1
        line = lines[i]
        i += 1
        if line.startswith("\t"):
            errors.append("%d: payload line without an envelope" % lineno)
            continue
        cut = line.find("] ")
        if not line or line[0] not in "VIWEC" or cut < 0:
            errors.append("%d: not a glog line" % lineno)
            continue
        try:
            env = json.loads(line[cut + 2:])
        except ValueError as e:
            errors.append("%d: bad JSON envelope: %s" % (lineno, e))
            continue
        payload_lines = []
        while i < len(lines) and lines[i].startswith("\t"):
            payload_lines.append(lines[i][1:])
            i += 1
        payload = None
        if "has_payload" in env:
            payload = "\n".join(payload_lines)
            md5 = hashlib.md5(payload.encode("utf-8")).hexdigest()
            if md5 != env["has_payload"]:
                errors.append("%d: md5 mismatch" % lineno)
        elif payload_lines:
            errors.append("%d: payload lines without has_payload" % lineno)
        yield lineno, env, payload


def kind_name(env):
    for key in ("artifact", "graph_dump"):
        if key in env:
            return env[key].get("name")
    for key in ("inductor_output_code", "inductor_pre_grad_graph",
                "inductor_post_grad_graph"):
        if key in env:
            return key
    return next(iter(env))


def compile_key(env):
    return tuple(env.get(k) for k in ("compiled_autograd_id", "frame_id",
                                      "frame_compile_id", "attempt"))


def graph_nodes(text):
    """Node names of print_readable output: definition lines, signature
    placeholders and the export `name: "..."; ` placeholder line."""
    names = set()
    for line in text.split("\n"):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        if s.startswith("def forward("):
            outside = s[len("def forward("):].split('"')[0::2]
            for part in outside:
                for piece in part.split(","):
                    name = piece.split(":")[0].strip(" )")
                    if name.isidentifier() and name != "self":
                        names.add(name)
            continue
        if s.startswith("class ") or s.startswith("return"):
            continue
        if s.endswith("; ") or s.endswith(";"):
            for part in s.split('"')[0::2]:
                name = part.strip(" ;").split(":")[0].strip()
                if name.isidentifier():
                    names.add(name)
            continue
        if "=" in s:
            name = s.split("=")[0].split(":")[0].strip()
            if name.isidentifier():
                names.add(name)
    return names


def is_call_of(line, name):
    s = line.strip()
    for form in (name + "(", name + ".run(", "call_" + name + "("):
        at = s.find(form)
        while at >= 0:
            before = s[at - 1] if at > 0 else " "
            if not (before.isalnum() or before in "_."):
                return True
            at = s.find(form, at + 1)
    return False


def check_kernels(code, keys, version, where, errors):
    lines = code.split("\n")
    if version == 2:
        comments = {}
        for i, line in enumerate(lines):
            s = line.strip()
            for mark in ("# " + HANDLE, "// " + HANDLE):
                if s.startswith(mark):
                    comments.setdefault(s[len(mark):], []).append(i)
        for key in keys:
            at = comments.get(key, [])
            if len(at) != 1:
                errors.append("%s: %d handle comments for %s" % (where,
                                                                len(at), key))
                continue
            pure = key.rsplit(":", 1)[0]
            follow = [l for l in lines[at[0] + 1:at[0] + 8]
                      if not l.strip().startswith(("#", "//"))]
            if not any(is_call_of(l, pure) for l in follow[:3]):
                errors.append("%s: no call of %s after its handle comment" %
                              (where, key))
        extra = set(comments) - set(keys)
        if extra:
            errors.append("%s: handle comments without mapping keys: %s" % (
                where, sorted(extra)[:3]))
    else:
        # v1 keys name kernels, not call sites: look for a call in the
        # entry function only (definitions and declarations precede it).
        start = 0
        for i, line in enumerate(lines):
            if line.startswith("def call(") or "    def call(self" in line or \
                    line.startswith("void AOTInductorModel::run_impl("):
                start = i
                break
        for key in keys:
            if not any(is_call_of(l, key) for l in lines[start:]):
                errors.append("%s: kernel %s is never called" % (where, key))


def inverse_ok(a, b):
    pairs_a = {(k, v) for k, vs in a.items() for v in vs}
    pairs_b = {(v, k) for k, vs in b.items() for v in vs}
    return pairs_a == pairs_b


def check_text(text, name="log"):
    errors = []
    entries = payloads = mappings = 0
    latest = {}  # compile key -> {"pre": text, "post": text, "code": text}
    traces = {}
    pending = []  # (where, mapping, artifacts seen so far in its compile)
    for lineno, env, payload in read_log(text, errors):
        entries += 1
        payloads += payload is not None
        kind = kind_name(env)
        group = latest.setdefault(compile_key(env), {})
        if payload is None:
            continue
        role = ("pre" if kind in PRE_KINDS else "post" if kind in POST_KINDS
                else "code" if kind in CODE_KINDS else None)
        if role:
            group[role] = payload
            # Early-2025 AOT logs write the mapping before the wrapper code.
            for _, _, seen, key in pending:
                if key == compile_key(env) and role not in seen:
                    seen[role] = payload
        elif kind == TRACES:
            traces[compile_key(env)] = (lineno, json.loads(payload))
        elif kind == MAPPING:
            mappings += 1
            where = "%s:%d" % (name, lineno)
            mp = json.loads(payload)
            pending.append((where, mp, dict(group), compile_key(env)))
            group["mapping"] = mp
    for where, mp, seen, _ in pending:
        check_mapping(mp, seen, where, errors)
    for key, (lineno, tr) in traces.items():
        mapping = latest.get(key, {}).get("mapping", {})
        if set(tr) != set(mapping.get("cppCodeToPost", {})):
            errors.append("%s:%d: stack-trace keys differ from cppCodeToPost" %
                          (name, lineno))
    return entries, payloads, mappings, errors


def check_mapping(mp, group, where, errors):
    for need in ("pre", "post", "code"):
        if need not in group:
            errors.append("%s: no %s artifact before the mapping" % (where,
                                                                    need))
            return
    pre, post = graph_nodes(group["pre"]), graph_nodes(group["post"])
    p2p, p2pre = mp.get("preToPost", {}), mp.get("postToPre", {})
    c2p, p2c = mp.get("cppCodeToPost", {}), mp.get("postToCppCode", {})
    checks = [("preToPost keys", p2p.keys(), pre),
              ("preToPost values", [v for vs in p2p.values() for v in vs],
               post),
              ("postToPre keys", p2pre.keys(), post),
              ("postToPre values", [v for vs in p2pre.values() for v in vs],
               pre),
              ("cppCodeToPost values", [v for vs in c2p.values() for v in vs],
               post),
              ("postToCppCode keys", p2c.keys(), post)]
    for what, names, graph in checks:
        missing = sorted(set(names) - graph)
        if missing:
            errors.append("%s: %s not in the graph: %s" % (where, what,
                                                           missing[:3]))
    if not inverse_ok(p2p, p2pre):
        errors.append("%s: preToPost and postToPre disagree" % where)
    if not inverse_ok(c2p, p2c):
        errors.append("%s: cppCodeToPost and postToCppCode disagree" % where)
    version = 2 if mp.get("version") == 2.0 else 1
    check_kernels(group["code"], list(c2p), version, where, errors)


def generate(args):
    cmd = [sys.executable, GEN] + args.split() + ["-o", "-"]
    return subprocess.run(cmd, check=True, stdout=subprocess.PIPE).stdout


def report(name, text):
    entries, payloads, mappings, errors = check_text(text, name)
    for e in errors[:20]:
        print("check_trace: %s" % e)
    if not errors:
        print("check_trace: %s: ok: %d entries, %d payloads verified, %d "
              "mappings checked" % (name, entries, payloads, mappings))
    if mappings == 0 and not errors:
        print("check_trace: %s: no node mappings" % name)
        return False
    return not errors


def self_test():
    """Each damage must be reported; a checker that passes everything is
    useless."""
    text = generate("--shape jit-cuda --layers 2 --stack-traces").decode()
    aot = generate("--shape aot-cpu --layers 2 --mapping-version 1").decode()
    damages = [
        ("md5", text.replace("    tmp2 = 0.5", "    tmp2 = 0.6", 1)),
        ("node", text.replace('"x_1": ["layer_norm"]',
                              '"x_1": ["layer_norm_9"]', 1)),
        ("inverse", text.replace('"gelu": ["y_1"]', '"gelu": ["y"]', 1)),
        ("handle", text.replace("] extern_kernels.addmm:3\n",
                                "] extern_kernels.addmm:7\n", 1)),
        ("v1 call", aot.replace("cpp_fused_add_gelu_native_layer_norm_0((",
                                "cpp_fused_other_0((")),
        ("traces", text.replace('{"extern_kernels.addmm:1": ["  File',
                                '{"extern_kernels.addmm:9": ["  File', 1)),
        ("json", text.replace('{"artifact": {"name": "after_post_grad_graph"',
                              '{"artifact": {"name": after_post_grad_graph"',
                              1)),
    ]
    ok = True
    for label, bad in (("clean", text), ("clean v1", aot)):
        errors = check_text(bad)[3]
        if errors:
            print("self-test: %s log rejected: %s" % (label, errors[:2]))
            ok = False
    for label, bad in damages:
        if bad == text or bad == aot:
            print("self-test: damage '%s' did not apply" % label)
            ok = False
            continue
        # re-sign the payloads except for the md5 damage, so that each
        # damage is found by its own check and not by the md5 check
        if label not in ("md5", "json"):
            bad = resign(bad)
        errors = check_text(bad)[3]
        if not errors:
            print("self-test: damage '%s' was not found" % label)
            ok = False
        else:
            print("self-test: damage '%s' found: %s" % (label, errors[0]))
    print("self-test: %s" % ("ok" if ok else "FAILED"))
    return ok


def resign(text):
    out, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        line = lines[i]
        i += 1
        j = i
        while j < len(lines) and lines[j].startswith("\t"):
            j += 1
        cut = line.find("] ")
        if cut >= 0 and '"has_payload"' in line:
            env = json.loads(line[cut + 2:])
            payload = "\n".join(l[1:] for l in lines[i:j])
            env["has_payload"] = hashlib.md5(payload.encode()).hexdigest()
            line = line[:cut + 2] + json.dumps(env)
        out.append(line)
        out.extend(lines[i:j])
        i = j
    return "\n".join(out)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("logs", nargs="*")
    p.add_argument("--gen", help="arguments for gen_trace.py (one string)")
    p.add_argument("--expect", help="a committed log the generator must "
                   "reproduce byte for byte")
    p.add_argument("--self-test", action="store_true")
    args = p.parse_args()
    ok = True
    if args.self_test:
        ok = self_test() and ok
    if args.gen:
        first, second = generate(args.gen), generate(args.gen)
        if first != second:
            print("check_trace: gen_trace.py %s is not deterministic" %
                  args.gen)
            ok = False
        if args.expect:
            with open(args.expect, "rb") as f:
                if f.read() != first:
                    print("check_trace: %s differs from gen_trace.py %s "
                          "(regenerate it with that command)" % (
                              args.expect, args.gen))
                    ok = False
        ok = report("gen_trace.py " + args.gen, first.decode()) and ok
    for path in args.logs:
        with open(path, encoding="utf-8", newline="") as f:
            ok = report(path, f.read().replace("\r\n", "\n")) and ok
    if not (args.self_test or args.gen or args.logs):
        p.error("nothing to check")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
