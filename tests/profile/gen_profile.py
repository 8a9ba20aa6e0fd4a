"""Generates a large torch.profiler (Kineto) Chrome trace for the --profile
benchmark (docs/performance.md, "--profile"), from the committed real CPU
profile tests/profile/cpu/profile.json.gz: its complete events, repeated with
new times and External ids until the file reaches --size bytes, written in
Kineto's layout (one key group per line, as libkineto's output_json.cpp).

  --shape cpu  the events as recorded ("deviceProperties": [])
  --shape gpu  each direct kernel call of a graph call (cpp_* / graph_N_cpp_*
               / aten::*) also launches: a cuLaunchKernel (Inductor) or
               cudaLaunchKernel (extern) inside it with its External id and a
               new correlation id, an ac2g flow, and a GPU kernel with both
               ids and Kineto's kernel args
  --shape aoti-gpu --view VIEW.json
               an AOTInductor model on a GPU, from a provenance view's
               kernels (in call-line order) rather than the real profile:
               per step (ProfilerStep#N) no compiled region and no
               kernel-named CPU event, a cuLaunchKernel (correlation c) for
               each Triton kernel call and the C shim's aoti_torch_* event
               with a cudaLaunchKernel inside for each extern, then the GPU
               kernels (Kineto's order)
  --order kineto       all CPU events, then all GPU activities (Kineto's order,
                       every launch in flight at the switch: the worst case)
          interleaved  each repetition's GPU activities after its CPU events
          gpu-first    each repetition's GPU activities before its CPU events

  python3 tests/profile/gen_profile.py --shape gpu --size 1e9 OUT.json
Standard library only.
"""
import argparse
import gzip
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
PID = 30836


def ns(x):
    s = repr(x) if isinstance(x, float) else str(x)
    whole, _, frac = s.partition(".")
    return int(whole) * 1000 + int((frac + "000")[:3])


def us(v):
    return "%d.%03d" % divmod(v, 1000)


def load_block():
    with gzip.open(os.path.join(HERE, "cpu", "profile.json.gz"), "rt") as f:
        trace = json.load(f)
    evs = [e for e in trace["traceEvents"] if e.get("ph") == "X"]
    evs.sort(key=lambda e: (ns(e["ts"]), -ns(e["dur"])))
    t0 = ns(evs[0]["ts"])
    end = max(ns(e["ts"]) + ns(e["dur"]) for e in evs)
    return evs, t0, end - t0 + 1000


def kernel_children(evs):
    """Indices of the direct kernel children of graph calls (per thread)."""
    out = set()
    open_graph = {}
    for i, e in enumerate(evs):
        tid, s = e["tid"], ns(e["ts"])
        g = open_graph.get(tid)
        if g and s >= g[0]:
            g = open_graph[tid] = None
        if e["name"].startswith("## Call CompiledFxGraph "):
            open_graph[tid] = [s + ns(e["dur"]), -1]
            continue
        if g and s >= g[1]:
            n = e["name"]
            if n.startswith(("cpp_", "triton_", "graph_", "aten::")):
                out.add(i)
                g[1] = s + ns(e["dur"])
    return out


CPU = ('  {\n    "ph": "X", "cat": "%s", "name": "%s", "pid": %d, "tid": %s,\n'
       '    "ts": %s, "dur": %s,\n    "args": {\n      %s\n    }\n  },\n')
LAUNCH = ('  {\n    "ph": "X", "cat": "%s", "name": "%s", "pid": %d, "tid": %s,'
          '\n    "ts": %s, "dur": %s,\n    "args": {\n      "External id": %d,'
          '\n      "cbid": %d, "correlation": %d\n    }\n  },\n'
          '  {\n    "ph": "s", "id": %d, "pid": %d, "tid": %s, "ts": %s,\n'
          '    "cat": "ac2g", "name": "ac2g"\n  },\n')
KERNEL = ('  {\n    "ph": "X", "cat": "kernel", "name": "%s", "pid": 0, '
          '"tid": 7,\n    "ts": %s, "dur": %s,\n    "args": {\n'
          '      "External id": %d,\n      "queued": 0, "device": 0, '
          '"context": 1,\n      "stream": 7, "correlation": %d,\n'
          '      "registers per thread": 32,\n      "shared memory": 0,\n'
          '      "blocks per SM": 0.5,\n      "warps per SM": 2.0,\n'
          '      "grid": [1, 1, 1],\n      "block": [128, 1, 1],\n'
          '      "est. achieved occupancy %%": 3\n    }\n  },\n'
          '  {\n    "ph": "f", "id": %d, "pid": 0, "tid": 7, "ts": %s,\n'
          '    "cat": "ac2g", "name": "ac2g", "bp": "e"\n  },\n')


def args_text(a, ext_off):
    parts = []
    for k, v in a.items():
        if k == "External id":
            v += ext_off
        parts.append('"%s": %s' % (k, json.dumps(v)))
    return ", ".join(parts)


class Block:
    def __init__(self, gpu):
        self.evs, self.t0, self.span = load_block()
        self.kids = kernel_children(self.evs) if gpu else set()
        self.max_ext = max(e.get("args", {}).get("External id", 0)
                           for e in self.evs) + 1
        self.gpu = gpu

    def text(self, rep):
        """(cpu text, gpu text) of repetition rep."""
        cpu, gpu = [], []
        shift = rep * self.span
        ext_off = rep * self.max_ext
        corr = 1 + rep * len(self.kids)
        gpu_ts = self.t0 + shift + self.span // 2
        for i, e in enumerate(self.evs):
            s = ns(e["ts"]) - self.t0 + shift + 10 ** 9
            d = ns(e["dur"])
            a = e.get("args", {})
            cpu.append((s, -d, CPU % (e["cat"], e["name"], PID,
                                      json.dumps(e["tid"]), us(s), us(d),
                                      args_text(a, ext_off))))
            if i not in self.kids:
                continue
            ext = a.get("External id", 0) + ext_off
            inductor = not e["name"].startswith("aten::")
            cat, name, cbid = (("cuda_driver", "cuLaunchKernel", 307)
                               if inductor else
                               ("cuda_runtime", "cudaLaunchKernel", 211))
            ld = max(d // 8, 1)
            ls = s + d - ld - 1  # after the op's own children
            tid = json.dumps(e["tid"])
            cpu.append((ls, -ld, LAUNCH % (cat, name, PID, tid, us(ls), us(ld),
                                           ext, cbid, corr, corr, PID, tid,
                                           us(ls))))
            kname = e["name"] if inductor else "sm80_xmma_gemm_f32f32"
            kd = 1000 + (corr % 97) * 13
            gpu.append(KERNEL % (kname, us(gpu_ts + 10 ** 9), us(kd), ext,
                                 corr, corr, us(gpu_ts + 10 ** 9)))
            gpu_ts += kd + 500
            corr += 1
        cpu.sort(key=lambda x: (x[0], x[1]))
        return "".join(t for _, _, t in cpu), "".join(gpu)


def view_calls(view):
    """(line, trace name, is extern, key) of each call of a view's kernels,
    in code order."""
    calls = []
    for k in view["kernels"]:
        for c in k["calls"]:
            calls.append((c, k["name"], k["kind"] in ("extern", "fallback", "shim"), k["key"]))
    calls.sort()
    return calls


def aoti_gpu(view, steps, slow=None):
    """The events of `steps` runs of an AOTInductor model on a GPU (see
    --shape aoti-gpu): (cpu events, GPU events, {key: [ns per call]}). Step
    `slow` runs every kernel 20 times slower."""
    def x(name, start, dur, cat="cpu_op", args=None, pid=PID, tid=1):
        e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid,
             "ts": us(start), "dur": us(dur)}
        if args:
            e["args"] = args
        return e
    calls = view_calls(view)
    cpu, gpu, each = [], [], {}
    ts, corr, ext, gts = 10 ** 6, 100, 1, 10 ** 6
    for step in range(steps):
        step_start = ts
        ts += 1000
        for i, (line, name, is_ext, key) in enumerate(calls):
            corr += 1
            ext += 1
            dur = (1000 * (i + 1) + 17 * (step % 50) + 3) * (20 if step == slow else 1)
            each.setdefault(key, []).append(dur)
            if name.startswith("aoti_torch_"):
                cpu.append(x(name, ts, 4000, args={"External id": ext}))
                cpu.append(x("cudaLaunchKernel", ts + 1000, 1000, cat="cuda_runtime",
                             args={"External id": ext, "correlation": corr}))
                gname = "sm80_xmma_gemm_f32f32"
            else:
                cpu.append(x("cuLaunchKernel", ts, 3000, cat="cuda_driver",
                             args={"correlation": corr}))
                gname = name
            gpu.append(x(gname, gts, dur, cat="kernel", pid=0, tid=7,
                         args={"correlation": corr, "device": 0, "stream": 7}))
            gts += dur + 50
            ts += 5000
        ts += 1000
        cpu.append(x("ProfilerStep#%d" % step, step_start, ts - step_start,
                     cat="user_annotation"))
        ts += 1000
    cpu.sort(key=lambda e: (ns(e["ts"]), -ns(e["dur"])))
    return cpu, gpu, each


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shape", choices=("cpu", "gpu", "aoti-gpu"), default="gpu")
    ap.add_argument("--view", help="--shape aoti-gpu: a provenance view JSON")
    ap.add_argument("--order", choices=("kineto", "interleaved", "gpu-first"),
                    default="kineto")
    ap.add_argument("--size", type=float, default=1e9)
    ap.add_argument("out")
    a = ap.parse_args()
    if a.shape == "aoti-gpu":
        with open(a.view) as f:
            view = json.load(f)
        per_step = max(1, len(json.dumps(aoti_gpu(view, 1)[:2])))
        cpu, gpu, _ = aoti_gpu(view, max(1, int(a.size // per_step)))
        with open(a.out, "w") as f:
            json.dump({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "generated"}],
                       "traceEvents": cpu + gpu}, f)
        print("%s: %d bytes" % (a.out, os.path.getsize(a.out)))
        return
    b = Block(a.shape == "gpu")
    devs = '[\n    {"id": 0, "name": "generated", "totalGlobalMem": 1}\n  ]' \
        if a.shape == "gpu" else "[]"
    head = ('{\n  "schemaVersion": 1,\n  "deviceProperties": %s,\n'
            '  "displayTimeUnit": "ms",\n  "baseTimeNanoseconds": 0,\n'
            '  "traceEvents": [\n' % devs)
    tail = ('  {\n    "name": "Record Window End", "ph": "i", "s": "g",\n'
            '    "pid": "", "tid": "", "ts": 0\n  }\n],\n'
            '  "traceName": "generated"\n}\n')
    one_cpu, one_gpu = b.text(0)
    reps = max(1, int((a.size - len(head)) // (len(one_cpu) + len(one_gpu))))
    with open(a.out, "w") as f:
        f.write(head)
        if a.order == "kineto":
            for r in range(reps):
                f.write(b.text(r)[0])
            for r in range(reps):
                f.write(b.text(r)[1])
        else:
            for r in range(reps):
                c, g = b.text(r)
                f.write(c + g if a.order == "interleaved" else g + c)
        f.write(tail)
    print("%s: %d repetitions, %d launches, %d bytes"
          % (a.out, reps, reps * len(b.kids), os.path.getsize(a.out)))


if __name__ == "__main__":
    main()
