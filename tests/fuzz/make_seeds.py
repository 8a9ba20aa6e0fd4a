#!/usr/bin/env python3
"""Seed corpora for the fuzz harnesses (tests/fuzz/fuzz_<target>.c).

  make_seeds.py handmade OUT      small inputs of our own making; this is how
                                  tests/fuzz/corpus/ was made (rerun it to
                                  regenerate the committed seeds exactly)
  make_seeds.py fixtures DIR OUT  seeds cut from the real trace logs in DIR
                                  (the shared fixtures): one file per record,
                                  windows of consecutive records, and each
                                  analyzer's real inputs. Written at run time
                                  by run_all.sh, never committed.

OUT gets one sub-folder per target: reader trace fx pycode cppcode provenance
emit export multirank profile. Two-part inputs use the byte 0x1e between the
parts (see fuzz.h); multirank inputs hold two ranks split by 0x1d, each of
five 0x1e-split parts (see fuzz_multirank.c).
"""

import gzip
import hashlib
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
import tracelog  # noqa: E402

SEP = b"\x1e"
TARGETS = ("reader", "trace", "fx", "pycode", "cppcode", "provenance", "emit",
           "export", "multirank", "profile")
HERE = os.path.dirname(os.path.abspath(__file__))
PREFIX = "V0101 00:00:00.000000 1 model.py:1] "


def entry(kind_json, payload=None, ids='"frame_id": 0, "frame_compile_id": 0, '
          '"attempt": 0', md5=None):
    """One trace record: glog line + envelope (+ tab payload lines)."""
    env = "{%s, %s" % (kind_json, ids) if ids else "{" + kind_json
    if payload is not None:
        digest = md5 or hashlib.md5(payload.encode()).hexdigest()
        env += ', "has_payload": "%s"' % digest
    line = PREFIX + env + "}\n"
    if payload is not None:
        line += "".join("\t" + l + "\n" for l in payload.split("\n"))
    return line


PRE = "def forward(self, x):\n    relu = torch.relu(x);  x = None\n" \
      "    mul = relu * 2\n    return (mul,)"
POST = "def forward(self, arg0_1: \"f32[4]\"):\n" \
       "    relu: \"f32[4]\" = torch.ops.aten.relu.default(arg0_1)\n" \
       "    mul: \"f32[4]\" = torch.ops.aten.mul.Tensor(relu, 2)\n" \
       "    return (mul,)"
PYCODE = '''# AOT ID: ['0_inference']
from torch._inductor.async_compile import AsyncCompile
async_compile = AsyncCompile()

triton_poi_fused_mul_relu_0 = async_compile.triton('triton_poi_fused_mul_relu_0', \'\'\'
import triton
@triton.jit
def triton_poi_fused_mul_relu_0(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 4
    tmp0 = tl.load(in_ptr0 + x0)
    tl.store(out_ptr0 + x0, tmp0 * 2)
\'\'\', device_str='cuda')

cpp_fused_add_1 = async_compile.cpp_pybinding(['float*'], \'\'\'
extern "C" void kernel(float* out_ptr0) { out_ptr0[0] = 1; }
\'\'\')

async_compile.wait(globals())

def call(args):
    arg0_1, = args
    buf0 = empty_strided_cuda((4, ), (1, ), torch.float32)
    # [Provenance debug handles] triton_poi_fused_mul_relu_0:1
    triton_poi_fused_mul_relu_0.run(arg0_1, buf0, 4, stream=stream0)
    # [Provenance debug handles] extern_kernels.mm:2
    extern_kernels.mm(buf0, buf0, out=buf1)
    # [Provenance debug handles] cpp_fused_add_1:3
    cpp_fused_add_1(buf1)
    return (buf0, )'''
WRAPPER = '''#include <torch/csrc/inductor/aoti_runtime/interface.h>
namespace torch::aot_inductor {
void AOTInductorModel::run_impl(AtenTensorHandle* input_handles, AtenTensorHandle* output_handles) {
    auto arg0_1 = std::move(inputs[0]);
    // [Provenance debug handles] cpp_fused_mul_relu_0:1
    cpp_fused_mul_relu_0((const float*)(arg0_1.data_ptr()), (float*)(buf0.data_ptr()));
    // [Provenance debug handles] aoti_torch_cpu_mm_out:2
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu_mm_out(buf1, buf0, buf0));
    output_handles[0] = buf0.release();
}
}  // namespace torch::aot_inductor'''
KERNELS = '''#include "/tmp/torchinductor/cpp_prefix.h"
extern "C"  void cpp_fused_mul_relu_0(const float* in_ptr0, float* out_ptr0)
{
    for(int64_t x0=0; x0<4; x0+=1)
    {
        out_ptr0[x0] = std::max(in_ptr0[x0], 0.0f) * 2;
    }
}'''
MAP_V2 = '{"preToPost": {"relu": ["relu"], "mul": ["mul"]}, ' \
         '"postToPre": {"relu": ["relu"], "mul": ["mul"]}, ' \
         '"cppCodeToPost": {"triton_poi_fused_mul_relu_0:1": ["relu", "mul"], ' \
         '"extern_kernels.mm:2": ["mul"], "cpp_fused_add_1:3": ["mul"], ' \
         '"cpp_fused_mul_relu_0:1": ["relu", "mul"], ' \
         '"aoti_torch_cpu_mm_out:2": ["mul"]}, ' \
         '"postToCppCode": {"relu": ["triton_poi_fused_mul_relu_0:1"]}, ' \
         '"version": 2.0}'
MAP_V1 = '{"preToPost": {"relu": ["relu"]}, "postToPre": {"relu": ["relu"]}, ' \
         '"cppCodeToPost": {"triton_poi_fused_mul_relu_0": ["relu"]}, ' \
         '"postToCppCode": {"relu": ["triton_poi_fused_mul_relu_0"]}}'
STACKS = '{"triton_poi_fused_mul_relu_0:1": ["File \\"model.py\\", line 3, ' \
         'in forward\\n    x = torch.relu(x)"]}'
HOSTILE = '<script>alert(1)</script><img src=x onerror=alert(1)>'


def art(name, payload, encoding="string"):
    return entry('"artifact": {"name": "%s", "encoding": "%s"}'
                 % (name, encoding), payload)


def handmade():
    s = {t: {} for t in TARGETS}
    prov = (entry('"dynamo_start": {"stack": [{"line": 1, "name": "f", '
                  '"filename": 0}]}')
            .replace("{\"dynamo_start", '{"str": ["model.py", 0]}\n' + PREFIX
                     + '{"dynamo_start', 1)
            + art("before_pre_grad_graph", PRE)
            + art("after_post_grad_graph", POST)
            + entry('"inductor_output_code": {"filename": "/tmp/x/abc.py"}',
                    PYCODE)
            + art("inductor_provenance_tracking_node_mappings", MAP_V2, "json")
            + art("inductor_provenance_tracking_kernel_stack_traces", STACKS,
                  "json"))
    aot = (entry('"graph_dump": {"name": "inductor_aot_wrapper_code"}',
                 WRAPPER, ids="")
           + entry('"graph_dump": {"name": "inductor_aot_kernel_code"}',
                   KERNELS, ids="")
           + art("inductor_provenance_tracking_node_mappings", MAP_V2, "json"))
    misc = (entry('"dynamo_output_graph": {"sizes": {}}', POST)
            + entry('"compilation_metrics": {"fail_type": "E", '
                    '"fail_reason": "r", "restart_reasons": ["x"]}')
            + entry('"dynamo_guards": {}', '[{"code": "x"}]')
            + entry('"link": {"name": "doc", "url": "https://pytorch.org/"}')
            + entry('"chromium_event": {}', '{"name": "e", "ph": "B"}', ids="")
            + entry('"dump_file": {"name": "f.py"}', "print(1)")
            + entry('"optimize_ddp_split_child": {"name": "c"}', "g"))
    bad = ("not a glog line\n\tstray payload\n"
           + entry('"artifact": {"name": "x", "encoding": "string"}', "p",
                   md5="0" * 32)
           + PREFIX + '{"artifact": {"name": "broken"\n\tskipped\n'
           + entry('"artifact": {"name": "no_payload", "encoding": "string"}')
           + "[rank0]:" + entry('"dynamo_output_graph": {}', "g", ids='"rank": 0')
           + entry('"dynamo_output_graph": {}', "g", ids='"rank": 1')
           + entry('"dynamo_output_graph": {}', "g", ids='"frame_id": "x"'))
    hostile = (art("../../escape" + HOSTILE, HOSTILE)
               + art("/etc/passwd", "x")
               + entry('"link": {"name": "%s", "url": "javascript:alert(1)"}'
                       % HOSTILE.replace('"', '\\"'))
               + entry('"compilation_metrics": {"fail_type": "%s"}'
                       % HOSTILE.replace('"', '\\"'))
               + art("inductor_provenance_tracking_kernel_stack_traces",
                     '{"%s": ["%s"]}' % (HOSTILE.replace('"', '\\"'),
                                         HOSTILE.replace('"', '\\"')), "json"))
    for name, text in (("provenance_jit", prov), ("provenance_aot", aot),
                       ("kinds", misc), ("bad_lines", bad),
                       ("hostile_names", hostile)):
        s["reader"][name] = text.encode()
        s["trace"][name] = text.encode()
    s["reader"]["crlf"] = misc.replace("\n", "\r\n").encode()
    s["reader"]["cut_mid_line"] = prov.encode()[:len(prov) // 2]
    s["trace"]["truncated_payload"] = prov.encode()[:-40]
    s["fx"]["pre_grad"] = PRE.encode()
    s["fx"]["post_grad"] = POST.encode()
    s["fx"]["export_placeholders"] = (
        b"class GraphModule(torch.nn.Module):\n    def forward(self, x: "
        b"\"f32[2]\", y: \"f32[2]\"):\n        x: \"f32[2]\"; y: \"f32[2]\";"
        b"\n        add = x + y\n        return (add,)\n")
    s["pycode"]["output_code"] = PYCODE.encode()
    s["pycode"]["runner_class"] = PYCODE.replace(
        "def call(args):", "class Runner:\n  def call(self, args):").encode()
    s["cppcode"]["wrapper_and_kernels"] = (WRAPPER.encode() + SEP
                                           + KERNELS.encode())
    s["cppcode"]["wrapper_only"] = WRAPPER.encode()
    s["provenance"]["v2_with_stacks"] = MAP_V2.encode() + SEP + STACKS.encode()
    s["provenance"]["v1"] = MAP_V1.encode()
    s["provenance"]["version_only"] = b'{"version": 2.0}'
    s["provenance"]["hostile_keys"] = (
        '{"cppCodeToPost": {"%s:1": ["%s"]}, "version": 2.0}'
        % (HOSTILE.replace('"', '\\"'), HOSTILE.replace('"', '\\"'))).encode()
    s["emit"]["script"] = HOSTILE.encode() + SEP + b"</script><!--"
    s["emit"]["urls"] = b"javascript:alert(1)" + SEP + b"x"
    s["emit"]["view"] = (b'{"compile_id": "</script>", "compile_dir": '
                         b'"<b>x</b>", "lines": {}}' + SEP
                         + "\u2028 \u2029".encode() + b" \x00 \xff")
    export_seeds(s)
    multirank_seeds(s)
    profile_seeds(s)
    return s


def expr(eid, method, result, args, arg_ids, key="expression_created"):
    return entry('"%s": {"method": "%s", "result": "%s", "result_id": %d, '
                 '"arguments": %s, "argument_ids": %s, "user_stack": '
                 '[{"line": 3, "name": "f", "filename": 0}], "stack": []}'
                 % (key, method, result, eid, json.dumps(args),
                    json.dumps(arg_ids)))


def export_seeds(s):
    """Draft export logs: every kind the export report reads."""
    locs = ('"frame_locals": {"locals": {"x": "FakeTensor(s0)"}, '
            '"symbols": {"s0": "x.size()[0]"}}')
    log = PREFIX + '{"str": ["model.py", 0]}\n'
    log += (expr(1, "add", "s0 + 1", ["s0", "1"], [])
            + entry('"create_unbacked_symbol": {"symbol": "u0", "node_id": 2,'
                    ' "user_stack": [], "stack": []}')
            + expr(3, "eq", "Eq(u0, s0 + 1)", ["u0", "s0 + 1"], [2, 1])
            + entry('"guard_added": {"expr": "Eq(s0, 3)", "prefix": "eval", '
                    '"expr_node_id": 3, %s, "user_stack": [{"line": 3, '
                    '"name": "f", "filename": 0}], "stack": []}' % locs)
            + entry('"guard_added": {"expr": "Ne(s0, 0)", "prefix": "size"}')
            + entry('"propagate_real_tensors_provenance": {"expr": "Eq(u0, 1)",'
                    ' "result": "False", "expr_node_id": 3, %s}' % locs)
            + entry('"missing_fake_kernel": {"op": "mylib.foo.default"}')
            + entry('"mismatched_fake_kernel": {"op": "mylib.bar.default", '
                    '"reason": "shape"}')
            + entry('"exported_program": {}', "ExportedProgram:\n  graph()")
            + entry('"artifact": {"name": "other", "encoding": "string"}', "p"))
    s["export"]["every_kind"] = log.encode()
    s["export"]["no_failures"] = entry('"exported_program": {}',
                                       "ExportedProgram").encode()
    h = HOSTILE.replace('"', '\\"')
    s["export"]["hostile"] = (
        expr(1, h, h, [h], [1, 1, 99])
        + entry('"guard_added": {"expr": "%s", "prefix": "eval", '
                '"expr_node_id": 1, "frame_locals": {"locals": {"%s": "%s"},'
                ' "symbols": {"%s": "%s"}}}' % (h, h, h, h, h))
        + entry('"mismatched_fake_kernel": {"op": "%s", "reason": "%s"}'
                % (h, h))
        + entry('"exported_program": {}', HOSTILE, ids='"frame_id": "%s"' % h)
        + entry('"artifact": {}', "x", md5="../../" + "a" * 26)).encode()
    s["export"]["cycle"] = (expr(1, "add", "a", ["b"], [2])
                            + expr(2, "add", "b", ["a"], [1])
                            + entry('"guard_added": {"expr": "a", "prefix": '
                                    '"eval", "expr_node_id": 1}')).encode()


def rank_parts(exec_ids, ops, sched, cache="inductor_fx_remote_cache_hit",
               events=None):
    """One multirank rank: directory, runtime, schedule, order, events."""
    arts = lambda d, names: [{"name": n, "number": i, "readable_url": None,
                              "suffix": "✅" if "hit" in n else "",
                              "url": "%s/%s" % (d, n)}
                             for i, n in enumerate(names)]
    directory = {
        "[-/-]": {"artifacts": arts("-_-_-_-", ["graph_execution_9.json"])},
        "[0/0]": {"artifacts": arts("-_0_0_0", [
            "inductor_runtime_and_tensor_meta_1.json",
            "inductor_collective_schedule_2.json",
            "inductor_output_code_x_3.html", cache + "_4.json"])},
        "[1/0]": {"artifacts": arts("-_1_0_0", [
            "inductor_runtime_and_tensor_meta_5.json"])},
        "unknown_7": {"artifacts": []}}
    runtime = {"ops": [{"name": n, "estimated_runtime_ns": t}
                       for n, t in ops],
               "tensor_meta": [{"shape": [4, 4], "dtype": "float32"}]}
    order = {"graph_execution_order": [{"compile_id": c} for c in exec_ids]}
    events = events or [{"name": "dynamo", "ph": "B", "pid": 0, "tid": 0,
                         "ts": 1.5, "args": {"compile_id": "0/0"}},
                        {"name": "dynamo", "ph": "E", "pid": 0, "tid": 0,
                         "ts": 2.5}]
    return b"\x1e".join(json.dumps(x, indent=1).encode() for x in
                        (directory, runtime, sched, order, events))


def multirank_seeds(s):
    ops = [("torch.ops._c10d_functional.all_reduce_.default", 1000),
           ("extern_kernels.mm", 2000.5)]
    r0 = rank_parts(["0/0", "1/0"], ops, ["all_reduce_", "all_gather"])
    r1 = rank_parts(["1/0", "0/0"], ops[:1], ["all_gather"],
                    cache="inductor_fx_remote_cache_miss")
    s["multirank"]["one_rank"] = r0
    s["multirank"]["two_ranks_agree"] = r0 + b"\x1d" + r0
    s["multirank"]["two_ranks_diverge"] = r0 + b"\x1d" + r1
    s["multirank"]["malformed_artifacts"] = (
        b'{"[0/0]": {"artifacts": [{"name": "inductor_runtime_and_tensor_meta'
        b'_0.json", "url": "g/a.json", "number": 1e300}, {"name": "inductor_'
        b'collective_schedule_1.json", "url": "g/b.json", "suffix": 7}, '
        b'{"name": "graph_execution_2.json", "url": "g/c.json"}]}}'
        b'\x1e{"ops": [{"name": 1}]}\x1e[1, "x"]\x1e{"graph_execution_order":'
        b' [{"compile_id": 3}]}\x1e[{"pid": 1, "pid": 2}, "x", [, {"a": "\\"}]')
    s["multirank"]["hostile_names"] = rank_parts(
        [HOSTILE], [(HOSTILE, 1)], [HOSTILE],
        events=[{"name": HOSTILE, "ph": "X", "pid": HOSTILE}])


PROFILE = {"schemaVersion": 1, "traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1",
     "pid": 1, "tid": 7, "ts": 100.0, "dur": 50.0},
    {"ph": "X", "cat": "user_annotation", "name": "CompiledFunction",
     "pid": 1, "tid": 7, "ts": 101.0, "dur": 40.0},
    {"ph": "X", "cat": "user_annotation",
     "name": "## Call CompiledFxGraph fabc123 ##", "pid": 1, "tid": 7,
     "ts": 102.0, "dur": 30.0},
    {"ph": "X", "cat": "cpu_op", "name": "graph_0_cpp_fused_relu_0",
     "pid": 1, "tid": 7, "ts": 103.0, "dur": 5.5,
     "args": {"External id": 3}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 7,
     "ts": 110.0, "dur": 2.25, "args": {"External id": 4}},
    {"ph": "X", "cat": "kernel", "name": "triton_poi_fused_relu_0",
     "pid": 0, "tid": 1, "ts": 111.0, "dur": 1.0,
     "args": {"External id": 4, "correlation": 9}}]}


def profile_seeds(s):
    text = json.dumps(PROFILE).encode()
    s["profile"]["small"] = text
    s["profile"]["small_gz"] = gzip.compress(text, mtime=0)
    view = {"schema": 1, "compile_dir": "-_0_0_0", "compile_id": "[0/0]",
            "mode": "jit", "lines": {"postToPre": {"relu": [3]}},
            "nodes": {"pre": {"relu": {}}, "post": {"relu": {}}},
            "kernels": [{"key": "cpp_fused_relu_0:1",
                         "name": "cpp_fused_relu_0", "kind": "cpp",
                         "calls": [3], "post_nodes": ["relu"],
                         "stack_traces": ['File "m.py", line 3, in f'],
                         "definition": {"file": "code", "first": 1,
                                        "last": 2}},
                        {"key": "extern_kernels.addmm:2",
                         "name": "extern_kernels.addmm", "kind": "extern",
                         "calls": [4], "post_nodes": []}]}
    s["profile"]["with_view"] = text + SEP + json.dumps(view).encode()
    hostile = json.loads(json.dumps(PROFILE).replace("cpp_fused_relu_0",
                                                     HOSTILE))
    s["profile"]["hostile_names"] = (json.dumps(hostile).encode() + SEP
                                     + json.dumps(view).replace(
                                         "cpp_fused_relu_0", HOSTILE).encode())
    s["profile"]["truncated"] = text[:len(text) // 2]


def fixtures(folder):
    s = {t: {} for t in TARGETS}
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if not os.path.isfile(path) or name.startswith(("README", "LICENSE")):
            continue
        with open(path, "rb") as f:
            lines = f.read().split(b"\n")
        # Split into records (an envelope line and its tab lines).
        recs, cur = [], []
        for l in lines:
            if l[:1] != b"\t" and cur:
                recs.append(b"\n".join(cur) + b"\n")
                cur = []
            cur.append(l)
        if cur:
            recs.append(b"\n".join(cur))
        stem = os.path.splitext(name)[0]
        for i, r in enumerate(recs):
            if len(r) <= 64 * 1024:
                s["reader"]["%s_%04d" % (stem, i)] = r
        if name == "export.log":
            s["export"][stem] = b"\n".join(lines)
        window, k = b"", 0
        for r in recs:
            if len(window) + len(r) > 64 * 1024 and window:
                s["trace"]["%s_w%03d" % (stem, k)] = window
                window, k = b"", k + 1
            window += r
        if window:
            s["trace"]["%s_w%03d" % (stem, k)] = window
        mapping = stacks = wrapper = None
        for _, env, payload in tracelog.records(path):
            if payload is None:
                continue
            kind = tracelog.kind(env)
            inner = env.get(kind) if isinstance(env.get(kind), dict) else {}
            nm = inner.get("name", "")
            data = payload.encode()
            tag = "%s_%d" % (stem, len(s["fx"]) + len(s["pycode"]))
            if kind.endswith("_graph") or nm.endswith("_graph"):
                s["fx"][tag] = data
            elif kind == "inductor_output_code":
                s["pycode"][tag] = data
            elif nm == "inductor_aot_wrapper_code":
                wrapper = data
                s["cppcode"][tag] = data
            elif nm == "inductor_aot_kernel_code" and wrapper is not None:
                s["cppcode"][tag + "_k"] = wrapper + SEP + data
            elif nm == "inductor_provenance_tracking_node_mappings":
                mapping = data
                s["provenance"][tag] = data
                s["emit"][tag] = data[:4096]
            elif nm == "inductor_provenance_tracking_kernel_stack_traces":
                stacks = data
                if mapping is not None:
                    s["provenance"][tag + "_s"] = mapping + SEP + stacks
    # The real CPU profile committed beside the profile tests.
    real = os.path.join(HERE, "..", "profile", "cpu", "profile.json.gz")
    if os.path.exists(real):
        with gzip.open(real, "rb") as f:
            s["profile"]["real_cpu"] = f.read()
    return s


def write(seeds, out):
    for target, files in seeds.items():
        d = os.path.join(out, target)
        os.makedirs(d, exist_ok=True)
        for name, data in files.items():
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)
        print("%-10s %4d seeds" % (target, len(files)))


def main(argv):
    if len(argv) == 3 and argv[1] == "handmade":
        write(handmade(), argv[2])
    elif len(argv) == 4 and argv[1] == "fixtures":
        write(fixtures(argv[2]), argv[3])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
