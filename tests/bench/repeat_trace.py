"""repeat_trace.py: a long real-shaped job for the benchmark (issue 6).

Repeats the compiles of a recorded TORCH_TRACE log (by default the torch
2.13 training recording, examples/rec-train-cpu/trace.log) until the output
reaches a size, so that tlparse reads many distinct compiles of real shape
instead of one fixture concatenated. Repetition k (from 1; repetition 0 is
the recording as it is):

- every frame id is shifted by k times (the largest frame id + 1), in the
  envelope (`frame_id`) and in the payloads (`"compile_id": "F/C"`,
  `"frame_id": F`), so each compile is a new one;
- every kernel name is renamed consistently in code, mappings and graphs:
  `cpp_fused_X` becomes `cpp_fused_rK_X` and `triton_T_fused_X` becomes
  `triton_T_fused_rK_X`, so no view repeats another's names;
- every `has_payload` md5 is recomputed (the md5 of the payload lines
  without their leading tab, joined by newlines, as torch writes it).

Lines that are no record (no glog prefix, no tab) are copied as they are.

    python3 tests/bench/repeat_trace.py -o /dev/shm/train-200mb.log
    python3 tests/bench/repeat_trace.py --mb 20 -o /tmp/t.log IN.log

Writes into /tmp or /dev/shm at benchmark time; never committed.
"""
import argparse
import hashlib
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DEFAULT = os.path.join(ROOT, "examples", "rec-train-cpu", "trace.log")

GLOG = re.compile(rb"^[VIWEC]\d{4} ")
KERNEL = re.compile(rb"\b(cpp_fused_|triton_[a-z]+_fused_)")
COMPILE_ID = re.compile(rb'"compile_id": "(\d+)/')
FRAME_ID = re.compile(rb'"frame_id": (\d+)')


def records(data):
    """(header line, [payload lines]) in file order; a line that is neither
    a glog record nor a payload line is a record with no payload."""
    out = []
    for line in data.split(b"\n")[:-1] if data.endswith(b"\n") else \
            data.split(b"\n"):
        if line.startswith(b"\t") and out:
            out[-1][1].append(line)
        else:
            out.append((line, []))
    return out


def rewrite(text, k, shift):
    if k == 0:
        return text
    text = KERNEL.sub(lambda m: m.group(1) + b"r%d_" % k, text)
    text = COMPILE_ID.sub(lambda m: b'"compile_id": "%d/'
                          % (int(m.group(1)) + k * shift), text)
    return FRAME_ID.sub(lambda m: b'"frame_id": %d'
                        % (int(m.group(1)) + k * shift), text)


def envelope(header, k, shift, payload):
    """The header with frame_id shifted and has_payload recomputed."""
    brace = header.find(b"{", header.find(b"] "))
    if not GLOG.match(header) or brace < 0:
        return rewrite(header, k, shift)
    env = json.loads(header[brace:])
    if "frame_id" in env and k:
        env["frame_id"] += k * shift
    if "has_payload" in env:
        body = b"\n".join(line[1:] for line in payload)
        env["has_payload"] = hashlib.md5(body).hexdigest()
    head = rewrite(header[:brace], k, shift)
    return head + json.dumps(env).encode()


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("trace", nargs="?", default=DEFAULT)
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--mb", type=float, default=200.0,
                   help="stop after the repetition that reaches this size")
    args = p.parse_args(argv)
    with open(args.trace, "rb") as f:
        recs = records(f.read())
    shift = 1 + max([int(m) for h, _ in recs
                     for m in FRAME_ID.findall(h)] or [0])
    limit = int(args.mb * 1e6)
    written = k = 0
    with open(args.output, "wb") as out:
        while written < limit:
            for header, payload in recs:
                lines = [rewrite(line, k, shift) for line in payload]
                chunk = b"\n".join([envelope(header, k, shift, lines)] +
                                   lines) + b"\n"
                out.write(chunk)
                written += len(chunk)
            k += 1
    print("repeat_trace: %d repetitions, %.1f MB -> %s"
          % (k, written / 1e6, args.output))
    return 0


if __name__ == "__main__":
    sys.exit(main())
