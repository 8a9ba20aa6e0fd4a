"""Generated multi-rank jobs for the --all-ranks-html differential tests.

A job is a folder of `dedicated_log_torch_trace_rank_<N>.log` files written
from a small description, in the shape torch writes them (glog prefix, JSON
envelope with `rank` and the compile ids, tab-indented payload whose md5 is
`has_payload`). A compile is a dict:

    {"frame": 0, "attempt_of": 0,          # frame_id, frame_compile_id
     "cache": "miss" | "hit" | "bypass" | None,   # fx_graph_cache_<x>
     "schedule": [op, ...] | None,         # inductor_collective_schedule
     "runtime": [(name, ns), ...] | None,  # inductor_runtime_and_tensor_meta
     "shape": [4, 4],                      # tensor meta of every op output
     "collectives": [op, ...], "waits": n} # calls in the output code

and a rank is {"compiles": [...], "order": ["0/0", ...] | None}, the order
being the `graph_execution` artifact of
torch._inductor.debug.record_and_log_graph_execution_order().

`random_job(seed)` draws 3 to 8 ranks that share a set of compiles and
differ where a distributed job differs: cache hits and misses, a missing or
extra compile, a collective dropped from one rank's schedule, runtime
estimates, tensor shapes, the execution order.
"""

import hashlib
import json
import os
import random

PREFIX = "dedicated_log_torch_trace_rank_"
COLLECTIVES = ["torch.ops._c10d_functional.all_reduce_.default",
               "torch.ops._c10d_functional.all_gather_into_tensor.default",
               "torch.ops._c10d_functional.reduce_scatter_tensor.default",
               "torch.ops._c10d_functional.broadcast_.default",
               "torch.ops._c10d_functional.all_to_all_single.default"]
WAIT = "torch.ops._c10d_functional.wait_tensor.default"
KERNELS = ["extern_kernels.mm", "extern_kernels.addmm", "triton_poi_fused_0",
           "triton_red_fused_1", "extern_kernels.bmm"]


class Writer:
    def __init__(self, rank):
        self.rank = rank
        self.lines = []
        self.t = 0

    def entry(self, key, value, compile=None, payload=None):
        env = {key: value, "rank": self.rank}
        if compile is not None:
            env.update(frame_id=compile["frame"],
                       frame_compile_id=compile.get("attempt_of", 0),
                       attempt=0)
        if payload is not None:
            env["has_payload"] = hashlib.md5(payload.encode()).hexdigest()
        self.t += 1
        self.lines.append("V1125 12:%02d:%02d.%06d 4242 torch/x.py:1] %s" % (
            self.t // 3600 % 60, self.t // 60 % 60, self.t % 1000000,
            json.dumps(env)))
        if payload is not None:
            self.lines.extend("\t" + l for l in payload.split("\n"))

    def artifact(self, name, obj, compile=None):
        self.entry("artifact", {"name": name, "encoding": "json"}, compile,
                   json.dumps(obj, indent=0))

    def event(self, name, ph, compile):
        cid = "%d/%d" % (compile["frame"], compile.get("attempt_of", 0))
        self.entry("chromium_event", {}, compile, json.dumps({
            "name": name, "ts": 1.7e15 + self.t * 1000.0,
            "args": {"compile_id": cid}, "ph": ph, "cat": "dynamo_timed",
            "tid": 0, "pid": 0}, indent=0))


def output_code(c):
    body = ["# AOT ID: ['%d_inference']" % c["frame"], "import torch",
            "def call(args):", "    buf0 = empty_strided((4, 4), (4, 1))"]
    for i, op in enumerate(c.get("collectives", [])):
        body.append("    %s(buf%d, 'sum', '0')" % (op, i))
    for i in range(c.get("waits", 0)):
        body.append("    %s(buf%d)" % (WAIT, i))
    body.append("    return (buf0, )")
    return "\n".join(body)


def write_rank(path, rank, spec):
    w = Writer(rank)
    for c in spec["compiles"]:
        w.event("dynamo", "B", c)
        w.entry("dynamo_start", {"stack": [
            {"line": 10 + c["frame"], "name": "fn%d" % c["frame"],
             "filename": 0}]}, c)
        w.entry("dynamo_output_graph", {"sizes": {"l_x_": [4, 4]}}, c,
                "class GraphModule(torch.nn.Module):\n"
                "    def forward(self, L_x_):\n"
                "        return (L_x_ + %d,)" % c["frame"])
        if c.get("cache"):
            w.artifact("fx_graph_cache_" + c["cache"],
                       {"key": "f%d" % c["frame"], "cache_state": c["cache"]},
                       c)
        if c.get("schedule") is not None:
            w.artifact("inductor_collective_schedule", c["schedule"], c)
        if c.get("runtime") is not None:
            shape = c.get("shape", [4, 4])
            w.artifact("inductor_runtime_and_tensor_meta", {"ops": [
                {"name": n, "type": "compute", "estimated_runtime_ns": ns,
                 "outputs": [{"shape": shape, "stride": [shape[-1], 1],
                              "dtype": "torch.float32",
                              "device": "cpu"}]}
                for n, ns in c["runtime"]]}, c)
        w.entry("inductor_output_code",
                {"filename": "/tmp/cache/c%d.py" % c["frame"]}, c,
                output_code(c))
        w.event("dynamo", "E", c)
    if spec.get("order") is not None:
        w.artifact("graph_execution", {"graph_execution_order": [
            {"compile_id": cid} for cid in spec["order"]]})
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(w.lines) + "\n")


def write_job(folder, ranks):
    """ranks: {rank number: rank spec}. Returns the folder."""
    os.makedirs(folder, exist_ok=True)
    for r, spec in ranks.items():
        write_rank(os.path.join(folder, "%s%d.log" % (PREFIX, r)), r, spec)
    return folder


def random_job(seed):
    """A job of 3 to 8 ranks as {rank: spec}, drawn from `seed`."""
    rnd = random.Random(seed)
    n = rnd.randint(3, 8)
    base = []
    for frame in range(rnd.randint(2, 5)):
        ops = rnd.sample(COLLECTIVES, rnd.randint(0, 3))
        base.append({
            "frame": frame, "attempt_of": 0,
            "schedule": ops + [WAIT] * len(ops) if ops or rnd.random() < .5
            else None,
            "runtime": [(k, rnd.choice([0, 1, 999.5, 1500.25,
                                        rnd.uniform(1e3, 1e7)]))
                        for k in rnd.sample(KERNELS, rnd.randint(1, 4))],
            "shape": [4, 4], "collectives": ops,
            "waits": len(ops) - (rnd.random() < .3 and len(ops) > 0)})
    # Most ranks see the same compiles; some diverge on purpose.
    ranks = {}
    for r in range(n):
        comps = []
        for c in base:
            c = dict(c, cache=rnd.choice(["miss", "miss", "hit", "bypass",
                                          None]) if rnd.random() < .5
                     else "miss")
            if c["runtime"] is not None:
                jitter = rnd.choice([1.0, 1.0, 1.25, 0.5])
                c["runtime"] = [(k, ns * jitter if jitter != 1.0 else ns)
                                for k, ns in c["runtime"]]
            if rnd.random() < .15:
                c["shape"] = [8, 4]
            if c["schedule"] and rnd.random() < .2:
                c["schedule"] = c["schedule"][1:]
            if rnd.random() < .1:
                c["runtime"] = None
            comps.append(c)
        if rnd.random() < .15 and len(comps) > 1:
            comps.pop()
        if rnd.random() < .15:
            comps.append(dict(base[0], attempt_of=1, cache="miss"))
        order = ["%d/%d" % (c["frame"], c["attempt_of"]) for c in comps]
        if rnd.random() < .3:
            rnd.shuffle(order)
        ranks[r] = {"compiles": comps,
                    "order": order if rnd.random() < .8 else None}
    return ranks
