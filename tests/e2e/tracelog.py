"""An independent, minimal reading of TORCH_TRACE logs for the end-to-end
tests: it follows the formats document (section 1) directly, so the C reader
is checked against a second implementation rather than against itself."""

import hashlib
import json
import os
import re

GLOG = re.compile(
    r"[VIWEC]\d{4} \d{2}:\d{2}:\d{2}.\d{6} \d+[^:]+:\d+\] (.)")
META = {"rank", "compiled_autograd_id", "frame_id", "frame_compile_id",
        "attempt", "stack", "has_payload"}

FIXTURES = os.path.normpath(os.path.join(
    os.path.dirname(__file__), "..", "..", "..", "shared", "fixtures",
    "tlparse-inputs"))


def fixture(name):
    """Path of a shared fixture log, or None when the folder is absent."""
    path = os.path.join(FIXTURES, name)
    return path if os.path.exists(path) else None


def records(path):
    """Yields (line_number, envelope, payload or None) in log order."""
    with open(path, "rb") as f:
        lines = f.read().decode("utf-8", "replace").split("\n")
    lines = [l[:-1] if l.endswith("\r") else l for l in lines]
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line or line.startswith("\t"):
            continue
        m = GLOG.search(line)
        if not m:
            continue
        start = i
        payload_lines = []
        blank = 0
        # A blank line is a payload line whose lone tab was stripped: kept
        # when another payload line follows, and at the end only when the
        # md5 in has_payload says it belongs to the payload.
        while i < len(lines) and (lines[i].startswith("\t") or
                                  lines[i] == "" and i + 1 < len(lines)):
            if lines[i] == "":
                blank += 1
            else:
                payload_lines += [""] * blank + [lines[i][1:]]
                blank = 0
            i += 1
        try:
            env = json.loads(line[m.start(1):])
        except ValueError:
            continue
        if blank and isinstance(env.get("has_payload"), str):
            longer = payload_lines + [""] * blank
            if md5("\n".join(longer)) == env["has_payload"]:
                payload_lines = longer
        payload = "\n".join(payload_lines) if "has_payload" in env else None
        yield start, env, payload


def kind(env):
    return next((k for k in env if k not in META), None)


def dir_name(env):
    def part(key):
        v = env.get(key)
        return "-" if v is None else str(v)
    return "_".join(part(k) for k in ("compiled_autograd_id", "frame_id",
                                      "frame_compile_id", "attempt"))


def md5(text):
    return hashlib.md5(text.encode("utf-8")).hexdigest()


def artifact_stem(env):
    """The file stem the Rust tlparse gives an entry's payload, or None."""
    k = kind(env)
    v = env[k]
    if k in ("artifact", "graph_dump"):
        return v.get("name")
    if k == "inductor_output_code":
        fn = v.get("filename")
        if not fn:
            return "inductor_output_code"
        base = os.path.basename(fn)
        return "inductor_output_code_" + os.path.splitext(base)[0]
    if k in ("dynamo_output_graph", "inductor_pre_grad_graph",
             "inductor_post_grad_graph", "aot_forward_graph",
             "aot_backward_graph", "aot_inference_graph", "aot_joint_graph",
             "compiled_autograd_graph", "dynamo_cpp_guards_str"):
        return k
    return None


def sessions(path):
    """The session (from 1) of each record, in log order, as a list parallel
    to records(path). torch._dynamo.reset() restarts the frame and compile
    ids; within a session a (frame id, frame compile id) is started once
    (one dynamo_start), so a dynamo_start of a pair already started in the
    current session begins the next one; so does one of (0, 0) after any
    other (torch/_dynamo/convert_frame.py get_compile_id: frame 0's compile
    0 is the first compile after the process starts or a reset, whatever
    its compiled-autograd id). A record of a compile id belongs to the last
    session at or before its own that started that id, else to its own
    (docs/recompile-json.md)."""
    recs = list(records(path))
    own, started, current, seen = [], {}, 1, set()
    for _, env, _ in recs:
        if "dynamo_start" in env and env.get("frame_id") is not None \
                and env.get("frame_compile_id") is not None:
            key = (env["frame_id"], env["frame_compile_id"])
            if key in seen or (key == (0, 0) and seen):
                current += 1
                seen = set()
            seen.add(key)
            started.setdefault(key, []).append(current)
        own.append(current)
    out = []
    for (_, env, _), s in zip(recs, own):
        key = (env.get("frame_id"), env.get("frame_compile_id"))
        earlier = [t for t in started.get(key, []) if t <= s]
        out.append(max(earlier) if earlier else s)
    return out
