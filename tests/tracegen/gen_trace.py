#!/usr/bin/env python3
"""gen_trace.py: writes realistic TORCH_TRACE logs for tlparse's tests,
examples and benchmarks (Python 3 standard library only).

The output follows the structured-log format PyTorch writes (glog prefix,
one JSON envelope per line, tab-prefixed payload lines, md5 `has_payload`,
interned strings, compile ids) and is modelled on real provenance logs of
JIT Inductor and AOTInductor, CUDA and CPU. The model is a stack of
transformer-like blocks; the node-mappings artifact is built from the same
description that writes the graphs and the code, so every name it holds
exists there. Output is a pure function of the arguments. docs/tracegen.md
describes the shapes.

    gen_trace.py --shape jit-cuda --layers 3 --stack-traces -o trace.log
"""

import argparse
import datetime
import hashlib
import json
import random
import sys

SHAPES = ("jit-cuda", "jit-cpu", "aot-cuda", "aot-cpu", "combo")
MODEL_FILE = "/workspace/model.py"
# Source lines of the fake model file, quoted in `# File:` comments and in
# the kernel stack traces: Block.forward occupies lines 21-25.
MODEL_SRC = {
    "fc": (21, "y = self.fc(x)"),
    "gelu": (22, "y = torch.nn.functional.gelu(y)"),
    "add": (23, "x = x + y"),
    "norm": (24, "x = self.norm(x)"),
    "relu": (22, "x = torch.relu(y)"),
    "sigmoid": (23, "s = torch.sigmoid(y)"),
    "tanh": (24, "t = torch.tanh(y)"),
}


def fx_name(base, i):
    """FX names repeat with a counter: add, add_1, add_2, ..."""
    return base if i == 0 else "%s_%d" % (base, i)


# --------------------------------------------------------------------------
# Log writer: one envelope per call, payload streamed line by line.


class Log:
    def __init__(self, out, pid):
        self.out = out
        self.pid = pid
        self.clock = datetime.datetime(2025, 9, 1, 10, 0, 0)
        self.interned = {}

    def _prefix(self, src):
        self.clock += datetime.timedelta(microseconds=1375)
        c = self.clock
        return "V%02d%02d %02d:%02d:%02d.%06d %d %s]" % (
            c.month, c.day, c.hour, c.minute, c.second, c.microsecond,
            self.pid, src)

    def intern(self, s):
        """Interns a file name the way torch/_logging/structured.py does."""
        if s not in self.interned:
            idx = len(self.interned)
            self.interned[s] = idx
            self.out.write("%s %s\n" % (
                self._prefix("torch/_logging/structured.py:28"),
                json.dumps({"str": [s, idx]})))
        return self.interned[s]

    def entry(self, src, key, value, ctx, payload=None):
        """ctx: list of (field, value) pairs written after the kind key.
        payload: None, a str, or a list of lines (joined with "\\n")."""
        env = {key: value}
        for k, v in ctx:
            env[k] = v
        lines = None
        if payload is not None:
            lines = payload.split("\n") if isinstance(payload, str) else payload
            h = hashlib.md5()
            first = True
            for line in lines:
                if not first:
                    h.update(b"\n")
                h.update(line.encode("utf-8"))
                first = False
            env["has_payload"] = h.hexdigest()
        w = self.out.write
        w("%s %s\n" % (self._prefix(src), json.dumps(env)))
        if lines is not None:
            chunk = []
            for line in lines:
                chunk.append("\t")
                chunk.append(line)
                chunk.append("\n")
                if len(chunk) >= 3000:
                    w("".join(chunk))
                    chunk = []
            w("".join(chunk))


# --------------------------------------------------------------------------
# The model: N blocks. Each block is described once and every artifact
# (graphs, code, mappings) is written from that description.


class Layer:
    pass


class Model:
    def __init__(self, shape, layers, seed):
        rng = random.Random(seed)
        self.shape = shape
        self.rng = rng
        self.cuda = shape in ("jit-cuda", "aot-cuda", "combo")
        self.aot = shape.startswith("aot")
        self.cpu_kernels = shape in ("jit-cpu", "aot-cpu")
        self.combo = shape == "combo"
        self.device = "cuda:0" if self.cuda else "cpu"
        self.B = rng.choice((4, 8, 16))
        self.D = rng.choice((32, 64, 128))
        self.graph_id = 139700000000000 + rng.randrange(10**9) * 16
        self.layers = []
        nparams = 2 if self.combo else 4
        for k in range(layers):
            L = Layer()
            L.k = k
            L.kdef = k // 2  # each pair of blocks shares one kernel definition
            L.params = list(range(k * nparams, (k + 1) * nparams))
            if self.combo:
                L.param_names = ["fc_weight", "fc_bias"]
            else:
                L.param_names = ["fc_weight", "fc_bias", "norm_weight",
                                 "norm_bias"]
            self.layers.append(L)
        self.nparams = layers * nparams
        self._name_nodes()

    def tensor(self, rows, cols=None, dtype="f32"):
        if cols is None:
            return '"%s[%d][1]%s"' % (dtype, rows, self.device)
        return '"%s[%d, %d][%d, 1]%s"' % (dtype, rows, cols, cols, self.device)

    def _name_nodes(self):
        for L in self.layers:
            k = L.k
            if self.combo:
                roles = ["fc", "relu", "sigmoid", "tanh"]
                jit_pre = [fx_name("y", k), fx_name("x", k), fx_name("s", k),
                           fx_name("t", k)]
                aot_pre = [fx_name("linear", k), fx_name("relu", k),
                           fx_name("sigmoid", k), fx_name("tanh", k)]
                post = [fx_name("permute", k), fx_name("addmm", k),
                        fx_name("relu", k), fx_name("sigmoid", k),
                        fx_name("tanh", k)]
                post_roles = ["fc", "fc", "relu", "sigmoid", "tanh"]
            else:
                roles = ["fc", "gelu", "add", "norm"]
                jit_pre = [fx_name("y", 2 * k), fx_name("y", 2 * k + 1),
                           fx_name("x", 2 * k), fx_name("x", 2 * k + 1)]
                aot_pre = [fx_name("linear", k), fx_name("gelu", k),
                           fx_name("add", k), fx_name("layer_norm", k)]
                post = [fx_name("permute", k), fx_name("addmm", k),
                        fx_name("gelu", k), fx_name("add", k),
                        fx_name("layer_norm", k)]
                post_roles = ["fc", "fc", "gelu", "add", "norm"]
            L.roles = roles
            L.pre = aot_pre if self.aot else jit_pre
            L.pre_of_role = dict(zip(roles, L.pre))
            L.post = post
            L.post_pre = [L.pre_of_role[r] for r in post_roles]
            L.post_role = post_roles
            # The two kernel calls of a block: an extern matmul fed by the
            # permuted weight, and a fused kernel for the rest.
            L.extern_post = [post[1]]
            L.fused_post = post[2:][::-1] if not self.combo else post[2:]

    # Kernel names ---------------------------------------------------------

    def fused_name(self, L):
        if self.combo:
            return "triton_poi_fused_%d" % L.kdef
        if self.cpu_kernels:
            return "cpp_fused_add_gelu_native_layer_norm_%d" % L.kdef
        return "triton_per_fused_add_gelu_native_layer_norm_%d" % L.kdef

    def extern_name(self):
        if self.aot:
            return "aoti_torch_%s_addmm_out" % ("cuda" if self.cuda else "cpu")
        return "extern_kernels.addmm"

    def hash52(self):
        alphabet = "abcdefghijklmnopqrstuvwxyz234567"
        return "c" + "".join(self.rng.choice(alphabet) for _ in range(51))


# --------------------------------------------------------------------------
# FX graphs (print_readable with strides and devices).


def file_comment(indent, role):
    line, code = MODEL_SRC[role]
    return "%s # File: %s:%d in forward, code: %s" % (indent, MODEL_FILE,
                                                      line, code)


def pre_grad_graph(m):
    """before_pre_grad_graph: the Dynamo graph (JIT) or the exported
    program's graph (AOT), then the `# graph id:` trailer."""
    ind = "        "
    D, B = m.D, m.B
    out = ["class GraphModule(torch.nn.Module):"]
    if m.aot:
        out.append("    def forward(self, x: %s):" % m.tensor(B, D))
        out.append(ind + "# No stacktrace found for following nodes")
        for L in m.layers:
            for pn in L.param_names:
                mod, _, attr = pn.partition("_")
                t = m.tensor(D, D) if pn == "fc_weight" else m.tensor(D)
                # FX prints a get_attr path part that is not an identifier
                # as getattr(...) (torch.fx.graph._format_target).
                out.append('%slayers_%d_%s: %s = getattr(self.layers, "%d")'
                           '.%s.%s' % (ind, L.k, pn, t, L.k, mod, attr))
        prev = "x"
    else:
        sig = ['L_x_: %s' % m.tensor(B, D)]
        for L in m.layers:
            for pn in L.param_names:
                mod, _, attr = pn.partition("_")
                t = m.tensor(D, D) if pn == "fc_weight" else m.tensor(D)
                sig.append("L_self_modules_layers_modules_%d_modules_%s_"
                           "parameters_%s_: %s" % (L.k, mod, attr, t))
        out.append("    def forward(self, %s):" % ", ".join(sig))
        out.append(ind + "l_x_ = L_x_")
        for L in m.layers:
            for pn in L.param_names:
                mod, _, attr = pn.partition("_")
                n = "layers_modules_%d_modules_%s_parameters_%s_" % (L.k, mod,
                                                                     attr)
                out.append("%sl_self_modules_%s = L_self_modules_%s" % (ind, n,
                                                                        n))
        prev = "l_x_"
    t = m.tensor(B, D)
    for L in m.layers:
        p = param_refs_pre(m, L)
        nodes = []
        if m.combo:
            y, x, s, tt = L.pre
            nodes = [
                ("fc", y, "torch._C._nn.linear(%s, %s, %s)" % (prev, p[0], p[1]),
                 "%s = %s = %s = None" % (prev, p[0], p[1])),
                ("relu", x, "torch.relu(%s)" % y, None),
                ("sigmoid", s, "torch.sigmoid(%s)" % y, None),
                ("tanh", tt, "torch.tanh(%s)" % y, "%s = None" % y),
            ]
            nxt = x
        else:
            lin, gelu, add, norm = L.pre
            nodes = [
                ("fc", lin, "torch._C._nn.linear(%s, %s, %s)" % (prev, p[0],
                                                                 p[1]),
                 "%s = %s = None" % (p[0], p[1])),
                ("gelu", gelu, "torch._C._nn.gelu(%s)" % lin,
                 "%s = None" % lin),
                ("add", add, "%s + %s" % (prev, gelu),
                 "%s = %s = None" % (prev, gelu)),
                ("norm", norm, "torch.nn.functional.layer_norm(%s, (%d,), %s, "
                 "%s, 1e-05)" % (add, D, p[2], p[3]),
                 "%s = %s = %s = None" % (add, p[2], p[3])),
            ]
            nxt = norm
        for role, name, rhs, dels in nodes:
            out.append(ind)
            out.append(file_comment(ind, role))
            line = "%s%s: %s = %s" % (ind, name, t, rhs)
            if dels:
                line += ";  " + dels
            out.append(line)
        prev = nxt
    outs = [prev]
    if m.combo:
        for L in m.layers:
            outs += [L.pre[2], L.pre[3]]
    out.append("%sreturn (%s)" % (ind, ", ".join(outs) if len(outs) > 1
                                  else outs[0] + ","))
    out.append(ind)
    out.append("")
    out.append(" # graph id: %d" % m.graph_id)
    return out


def param_refs_pre(m, L):
    if m.aot:
        return ["layers_%d_%s" % (L.k, pn) for pn in L.param_names]
    refs = []
    for pn in L.param_names:
        mod, _, attr = pn.partition("_")
        refs.append("l_self_modules_layers_modules_%d_modules_%s_parameters_"
                    "%s_" % (L.k, mod, attr))
    return refs


def post_inputs(m):
    """Post-grad placeholder names: parameters first, then x (JIT), or
    user inputs as arg*_1 and parameters as get_attr constants (AOT)."""
    return "arg%d_1" % m.nparams


def post_param_ref(m, L, i):
    if m.aot:
        return "layers_%d_%s" % (L.k, L.param_names[i])
    return "arg%d_1" % L.params[i]


def post_grad_graph(m):
    """after_post_grad_graph: the graph Inductor lowers, printed after the
    post-grad passes (`class <lambda>` for inference graphs)."""
    ind = "        "
    D, B = m.D, m.B
    x = post_inputs(m)
    out = ["class <lambda>(torch.nn.Module):"]
    if m.aot:
        out.append("    def forward(self):")
        out.append('%s%s: %s; ' % (ind, x, m.tensor(B, D)))
        out.append("    ")
        out.append("%s%s, = fx_pytree.tree_flatten_spec([], self._in_spec)" %
                   (ind, x))
        out.append(ind + "# No stacktrace found for following nodes")
        for L in m.layers:
            for i, pn in enumerate(L.param_names):
                t = m.tensor(D, D) if pn == "fc_weight" else m.tensor(D)
                out.append("%s%s: %s = self.%s" % (ind, post_param_ref(m, L, i),
                                                   t, post_param_ref(m, L, i)))
    else:
        sig = []
        for L in m.layers:
            for i, pn in enumerate(L.param_names):
                t = m.tensor(D, D) if pn == "fc_weight" else m.tensor(D)
                sig.append("%s: %s" % (post_param_ref(m, L, i), t))
        sig.append("%s: %s" % (x, m.tensor(B, D)))
        out.append("    def forward(self, %s):" % ", ".join(sig))
    t = m.tensor(B, D)
    prev = x
    for L in m.layers:
        w, b = post_param_ref(m, L, 0), post_param_ref(m, L, 1)
        perm, mm = L.post[0], L.post[1]
        nodes = [
            ("fc", "%s: %s = torch.ops.aten.permute.default(%s, [1, 0]);  "
             "%s = None" % (perm, '"f32[%d, %d][1, %d]%s"' % (D, D, D, m.device),
                            w, w)),
            ("fc", "%s: %s = torch.ops.aten.addmm.default(%s, %s, %s);  "
             "%s = %s = None" % (mm, t, b, prev, perm, b, perm)),
        ]
        if m.combo:
            relu, sig_, tanh = L.post[2:]
            nodes += [
                ("relu", "%s: %s = torch.ops.aten.relu.default(%s)" % (relu, t,
                                                                      mm)),
                ("sigmoid", "%s: %s = torch.ops.aten.sigmoid.default(%s)" % (
                    sig_, t, mm)),
                ("tanh", "%s: %s = torch.ops.aten.tanh.default(%s);  %s = None"
                 % (tanh, t, mm, mm)),
            ]
            nxt = relu
        else:
            gelu, add, norm = L.post[2:]
            nw, nb = post_param_ref(m, L, 2), post_param_ref(m, L, 3)
            nodes += [
                ("gelu", "%s: %s = torch.ops.aten.gelu.default(%s);  %s = None"
                 % (gelu, t, mm, mm)),
                ("add", "%s: %s = torch.ops.aten.add.Tensor(%s, %s);  "
                 "%s = %s = None" % (add, t, prev, gelu, prev, gelu)),
                ("norm", "%s: %s = torch.ops.aten.layer_norm.default(%s, [%d], "
                 "%s, %s, 1e-05);  %s = %s = %s = None" % (
                     norm, t, add, D, nw, nb, add, nw, nb)),
            ]
            nxt = norm
        last = None
        for role, line in nodes:
            if role != last:
                out.append(ind)
                out.append(file_comment(ind, role))
                last = role
            out.append(ind + line)
        prev = nxt
    outs = [prev]
    if m.combo:
        for L in m.layers:
            outs += [L.post[3], L.post[4]]
    out.append("%sreturn (%s)" % (ind, ", ".join(outs) if len(outs) > 1
                                  else outs[0] + ","))
    out.append(ind)
    return out


# --------------------------------------------------------------------------
# Kernel sources.

TRITON_HEADER = [
    "import triton",
    "import triton.language as tl",
    "",
    "from torch._inductor.runtime import triton_helpers, triton_heuristics",
    "from torch._inductor.runtime.triton_helpers import libdevice, math as "
    "tl_math",
    "from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, "
    "TileHint, DeviceProperties",
    "triton_helpers.set_driver_to_gpu()",
    "",
]
DEVICE_PROPS = ("DeviceProperties(type='cuda', index=0, "
                "multi_processor_count=132, cc=90, major=9, "
                "regs_per_multiprocessor=65536, "
                "max_threads_per_multi_processor=2048, warp_size=32)")


def inductor_meta(name, extra):
    return ("inductor_meta={%s'kernel_name': '%s', 'mutated_arg_names': [], "
            "'optimize_mem': True, 'no_x_dim': False, "
            "'backend_hash': 'B3C1D5E0A4F2968877AA41C0E5D6B2F1A0C9D8E7F6A5B4C3"
            "D2E1F0A9B8C7D6E5', 'are_deterministic_algorithms_enabled': "
            "False, 'assert_indirect_indexing': True, 'autotune_local_cache': "
            "True, 'autotune_pointwise': True, 'autotune_remote_cache': None, "
            "'force_disable_caches': False, 'dynamic_scale_rblock': True, "
            "'max_autotune': False, 'max_autotune_pointwise': False, "
            "'min_split_scan_rblock': 256, 'spill_threshold': 16, "
            "'store_cubin': False}," % (extra, name))


def triton_per_source(m, name):
    """A persistent-reduction kernel: gelu + residual add + layer norm."""
    B, D = m.B, m.D
    sig = ("{'in_ptr0': '*fp32', 'in_ptr1': '*fp32', 'in_ptr2': '*fp32', "
           "'in_ptr3': '*fp32', 'out_ptr2': '*fp32', 'xnumel': 'i32', "
           "'r0_numel': 'i32', 'XBLOCK': 'constexpr'}")
    return TRITON_HEADER + [
        "@triton_heuristics.persistent_reduction(",
        "    size_hints={'x': %d, 'r0_': %d}," % (B, D),
        "    reduction_hint=ReductionHint.INNER,",
        "    filename=__file__,",
        "    triton_meta={'signature': %s, 'device': %s, 'constants': {}, "
        "'configs': [{(0,): [['tt.divisibility', 16]], (1,): "
        "[['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): "
        "[['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]]}]}," % (
            sig, DEVICE_PROPS),
        "    " + inductor_meta(name, "'grid_type': 'Grid1D', "
                               "'autotune_hints': set(), "),
        ")",
        "@triton.jit",
        "def %s(in_ptr0, in_ptr1, in_ptr2, in_ptr3, out_ptr2, xnumel, "
        "r0_numel, XBLOCK : tl.constexpr):" % name,
        "    xnumel = %d" % B,
        "    r0_numel = %d" % D,
        "    R0_BLOCK: tl.constexpr = %d" % D,
        "    rnumel = r0_numel",
        "    RBLOCK: tl.constexpr = R0_BLOCK",
        "    xoffset = tl.program_id(0) * XBLOCK",
        "    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]",
        "    xmask = xindex < xnumel",
        "    r0_index = tl.arange(0, R0_BLOCK)[None, :]",
        "    r0_1 = r0_index",
        "    x0 = xindex",
        "    tmp0 = tl.load(in_ptr0 + (r0_1 + %d*x0), xmask, other=0.0)" % D,
        "    tmp1 = tl.load(in_ptr1 + (r0_1 + %d*x0), xmask, other=0.0)" % D,
        "    tmp2 = 0.5",
        "    tmp3 = tmp1 * tmp2",
        "    tmp4 = 0.7071067811865476",
        "    tmp5 = tmp1 * tmp4",
        "    tmp6 = libdevice.erf(tmp5)",
        "    tmp7 = 1.0",
        "    tmp8 = tmp6 + tmp7",
        "    tmp9 = tmp3 * tmp8",
        "    tmp10 = tmp0 + tmp9",
        "    tmp11 = tl.broadcast_to(tmp10, [XBLOCK, R0_BLOCK])",
        "    tmp13 = tl.where(xmask, tmp11, 0)",
        "    tmp14 = tl.sum(tmp13, 1)[:, None]",
        "    tmp15 = tmp14 / %d.0" % D,
        "    tmp16 = tmp10 - tmp15",
        "    tmp17 = tmp16 * tmp16",
        "    tmp18 = tl.sum(tl.where(xmask, tmp17, 0), 1)[:, None]",
        "    tmp19 = tmp18 / %d.0" % D,
        "    tmp20 = 1e-05",
        "    tmp21 = tmp19 + tmp20",
        "    tmp22 = libdevice.rsqrt(tmp21)",
        "    tmp23 = tmp16 * tmp22",
        "    tmp24 = tl.load(in_ptr2 + (r0_1), None, eviction_policy='evict_last')",
        "    tmp25 = tl.load(in_ptr3 + (r0_1), None, eviction_policy='evict_last')",
        "    tmp26 = tmp23 * tmp24 + tmp25",
        "    tl.store(out_ptr2 + (r0_1 + %d*x0), tmp26, xmask)" % D,
    ]


def triton_combo_source(m, name):
    """A combo kernel: three independent pointwise sub-kernels selected by
    the program id."""
    n = m.B * m.D
    sig = ("{'in_ptr0': '*fp32', 'out_ptr0': '*fp32', 'out_ptr1': '*fp32', "
           "'out_ptr2': '*fp32', 'xnumel_0': 'i32', 'xnumel_1': 'i32', "
           "'xnumel_2': 'i32', 'XBLOCK': 'constexpr'}")
    body = TRITON_HEADER + [
        "@triton_heuristics.pointwise(",
        "    size_hints={'x': %d}," % n,
        "    filename=__file__,",
        "    triton_meta={'signature': %s, 'device': %s, 'constants': {}, "
        "'configs': [{(0,): [['tt.divisibility', 16]], (1,): "
        "[['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): "
        "[['tt.divisibility', 16]]}]}," % (sig, DEVICE_PROPS),
        "    " + inductor_meta(name, "'grid_type': 'SequentialComboKernelGrid"
                               "', 'combo_grid_meta': {'num_kernels': 3, "
                               "'min_blocks': 0, 'default_config': "
                               "{'XBLOCK': 1024}, 'no_x_dim_0': False, "
                               "'xnumel_0': %d, 'no_x_dim_1': False, "
                               "'xnumel_1': %d, 'no_x_dim_2': False, "
                               "'xnumel_2': %d}, " % (n, n, n)),
        ")",
        "@triton.jit",
        "def %s(in_ptr0, out_ptr0, out_ptr1, out_ptr2, xnumel_0, xnumel_1, "
        "xnumel_2, XBLOCK : tl.constexpr):" % name,
        "    pid = tl.program_id(0)",
        "    num_xblocks_0 = tl.cdiv(xnumel_0, XBLOCK)",
        "    num_xblocks_1 = num_xblocks_0 + tl.cdiv(xnumel_1, XBLOCK)",
        "    num_xblocks_2 = num_xblocks_1 + tl.cdiv(xnumel_2, XBLOCK)",
    ]
    ops = [("tl.full([1], 0, tl.int32)", "triton_helpers.maximum(tmp1, tmp0)"),
           (None, "tl.sigmoid(tmp0)"), (None, "libdevice.tanh(tmp0)")]
    for i, (pre, op) in enumerate(ops):
        body += [
            "    %s pid < num_xblocks_%d:" % ("if" if i == 0 else "elif", i),
            "        pid_offset = pid" + (
                "" if i == 0 else " - num_xblocks_%d" % (i - 1)),
            "        xnumel = xnumel_%d" % i,
            "        r0_numel = 1",
            "        xoffset = pid_offset * XBLOCK",
            "        xindex = xoffset + tl.arange(0, XBLOCK)[:]",
            "        xmask = xindex < xnumel",
            "        x0 = xindex",
            "        tmp0 = tl.load(in_ptr0 + (x0), xmask)",
        ]
        if pre:
            body.append("        tmp1 = " + pre)
            body.append("        tmp2 = " + op)
            body.append("        tl.store(out_ptr%d + (x0), tmp2, xmask)" % i)
        else:
            body.append("        tmp1 = " + op)
            body.append("        tl.store(out_ptr%d + (x0), tmp1, xmask)" % i)
    body += ["    else:", "        pass"]
    return body


def cpp_kernel_source(m, entry):
    """A C++ kernel (CPU): residual add, gelu and layer norm over rows.
    entry is `kernel` inside cpp_pybinding, the kernel name for AOT."""
    B, D = m.B, m.D
    return [
        "#include <torch/csrc/inductor/cpp_prefix.h>",
        'extern "C"  void %s(const float* in_ptr0,' % entry,
        "                       const float* in_ptr1,",
        "                       const float* in_ptr2,",
        "                       const float* in_ptr3,",
        "                       float* out_ptr2)",
        "{",
        "    #pragma omp parallel num_threads(8)",
        "    {",
        "        int tid = omp_get_thread_num();",
        "        {",
        "            #pragma omp for",
        "            for(int64_t x0=static_cast<int64_t>(0L); "
        "x0<static_cast<int64_t>(%dL); x0+=static_cast<int64_t>(1L))" % B,
        "            {",
        "                float tmp_acc0 = 0;",
        "                for(int64_t x1=static_cast<int64_t>(0L); "
        "x1<static_cast<int64_t>(%dL); x1+=static_cast<int64_t>(1L))" % D,
        "                {",
        "                    auto tmp0 = in_ptr0[static_cast<int64_t>(x1 + "
        "%dL*x0)];" % D,
        "                    auto tmp1 = in_ptr1[static_cast<int64_t>(x1 + "
        "%dL*x0)];" % D,
        "                    auto tmp2 = static_cast<float>(0.5);",
        "                    auto tmp3 = float(tmp1 * tmp2);",
        "                    auto tmp4 = static_cast<float>(0.7071067811865476);",
        "                    auto tmp5 = float(tmp1 * tmp4);",
        "                    auto tmp6 = std::erf(tmp5);",
        "                    auto tmp7 = static_cast<float>(1.0);",
        "                    auto tmp8 = float(tmp6 + tmp7);",
        "                    auto tmp9 = float(tmp3 * tmp8);",
        "                    auto tmp10 = float(tmp0 + tmp9);",
        "                    tmp_acc0 = tmp_acc0 + tmp10;",
        "                }",
        "                auto mean = tmp_acc0 / static_cast<float>(%d);" % D,
        "                for(int64_t x1=static_cast<int64_t>(0L); "
        "x1<static_cast<int64_t>(%dL); x1+=static_cast<int64_t>(1L))" % D,
        "                {",
        "                    auto tmp11 = in_ptr2[static_cast<int64_t>(x1)];",
        "                    auto tmp12 = in_ptr3[static_cast<int64_t>(x1)];",
        "                    out_ptr2[static_cast<int64_t>(x1 + %dL*x0)] = "
        "(out_ptr2[static_cast<int64_t>(x1 + %dL*x0)] - mean) * tmp11 + tmp12;"
        % (D, D),
        "                }",
        "            }",
        "        }",
        "    }",
        "}",
    ]


def kernel_source(m, name):
    if m.combo:
        return triton_combo_source(m, name)
    if m.cpu_kernels:
        return cpp_kernel_source(m, name if m.aot else "kernel")
    return triton_per_source(m, name)


def kernel_defs(m):
    """The distinct fused kernels, in definition order, with their layers."""
    defs = []
    for L in m.layers:
        if not defs or defs[-1][0] != L.kdef:
            defs.append((L.kdef, m.fused_name(L), [L]))
        else:
            defs[-1][2].append(L)
    return defs


def topo_comment(m, L, which):
    if which == "extern":
        return ("Topologically Sorted Source Nodes: [%s], Original ATen: "
                "[aten.addmm]" % L.pre_of_role["fc"])
    if m.combo:
        return ("Topologically Sorted Source Nodes: [%s], Original ATen: "
                "[aten.relu, aten.sigmoid, aten.tanh]" % ", ".join(L.pre[1:]))
    return ("Topologically Sorted Source Nodes: [%s], Original ATen: "
            "[aten.gelu, aten.add, aten.native_layer_norm]" %
            ", ".join(L.pre[1:]))


# --------------------------------------------------------------------------
# Calls: every kernel call site in wrapper order, with its debug handle.


class Call:
    pass


def calls(m):
    """Wrapper order: per block, the extern matmul then the fused kernel.
    Debug handles count calls in that order (newest PyTorch)."""
    out = []
    h = 0
    for L in m.layers:
        for which in ("extern", "fused"):
            h += 1
            c = Call()
            c.layer, c.which, c.handle = L, which, h
            c.name = m.extern_name() if which == "extern" else m.fused_name(L)
            c.post = L.extern_post if which == "extern" else L.fused_post
            c.roles = ["fc"] if which == "extern" else L.roles[1:]
            out.append(c)
    return out


def key_of(c, version):
    return c.name if version == 1 else "%s:%d" % (c.name, c.handle)


# --------------------------------------------------------------------------
# JIT Python wrapper (inductor_output_code).

PY_PRELUDE = """from ctypes import c_void_p, c_long, c_int
import torch
import math
import random
import os
import tempfile
from math import inf, nan
from cmath import nanj
from torch._inductor.hooks import run_intermediate_hooks
from torch._inductor.utils import maybe_profile
from torch._inductor.codegen.memory_planning import _align as align
from torch import device, empty_strided
from torch._inductor.async_compile import AsyncCompile
from torch._inductor.select_algorithm import extern_kernels
{triton}
aten = torch.ops.aten
inductor_ops = torch.ops.inductor
_quantized = torch.ops._quantized
assert_size_stride = torch._C._dynamo.guards.assert_size_stride
assert_alignment = torch._C._dynamo.guards.assert_alignment
empty_strided_cpu = torch._C._dynamo.guards._empty_strided_cpu
empty_strided_cpu_pinned = torch._C._dynamo.guards._empty_strided_cpu_pinned
empty_strided_cuda = torch._C._dynamo.guards._empty_strided_cuda
empty_strided_xpu = torch._C._dynamo.guards._empty_strided_xpu
empty_strided_mtia = torch._C._dynamo.guards._empty_strided_mtia
reinterpret_tensor = torch._C._dynamo.guards._reinterpret_tensor
alloc_from_pool = torch.ops.inductor._alloc_from_pool
async_compile = AsyncCompile()
empty_strided_p2p = torch._C._distributed_c10d._SymmetricMemory.empty_strided_p2p
"""
PY_TRITON_IMPORTS = """import triton
import triton.language as tl
from torch._inductor.runtime.triton_heuristics import start_graph, end_graph
from torch._C import _cuda_getCurrentRawStream as get_raw_stream
"""


def python_wrapper(m, version, frame):
    D, B = m.D, m.B
    out = ["# AOT ID: ['%d_inference']" % frame]
    out += PY_PRELUDE.format(
        triton=PY_TRITON_IMPORTS if m.cuda else "").split("\n")
    out.append("")
    for kdef, name, layers in kernel_defs(m):
        L = layers[0]
        h = m.hash52()
        out.append("# kernel path: /tmp/torchinductor_user/%s/%s.py" % (h[1:3],
                                                                      h))
        out.append("# " + topo_comment(m, L, "fused"))
        out.append("# Source node to ATen node mapping:")
        for pre, post in zip(L.pre[1:], L.post[2:]):
            out.append("#   %s => %s" % (pre, post))
        out.append("# Graph fragment:")
        for post in L.fused_post:
            out.append('#   %%%s : Tensor "f32[%d, %d][%d, 1]%s"[num_users=1] '
                       "= call_function[target=torch.ops.aten.%s.default]" % (
                           post, B, D, D, m.device, post.rsplit("_", 1)[0]
                           if post[-1].isdigit() else post))
        src = kernel_source(m, name)
        if m.cpu_kernels:
            out.append("%s = async_compile.cpp_pybinding(['const float*', "
                       "'const float*', 'const float*', 'const float*', "
                       "'float*'], '''" % name)
            out += src
            out.append("''')")
        else:
            out.append("%s = async_compile.triton('%s', '''" % (name, name))
            out += src
            out.append("''', device_str='cuda')")
        out.append("")
        out.append("")
    out.append("async_compile.wait(globals())")
    out.append("del async_compile")
    out.append("")
    out.append("def call(args):")
    x = post_inputs(m)
    names = ["arg%d_1" % i for i in range(m.nparams)] + [x]
    out.append("    %s = args" % ", ".join(names))
    out.append("    args.clear()")
    for L in m.layers:
        for i, pn in enumerate(L.param_names):
            shape = "(%d, %d), (%d, 1)" % (D, D, D) if pn == "fc_weight" \
                else "(%d, ), (1, )" % D
            out.append("    assert_size_stride(%s, %s)" % (
                post_param_ref(m, L, i), shape))
    out.append("    assert_size_stride(%s, (%d, %d), (%d, 1))" % (x, B, D, D))
    ind = "    "
    if m.cuda:
        out.append("    with torch.cuda._DeviceGuard(0):")
        out.append("        torch.cuda.set_device(0)")
        ind = "        "
    empty = "empty_strided_cuda" if m.cuda else "empty_strided_cpu"
    prev = x
    buf = 0
    returns = []
    for c in calls(m):
        L = c.layer
        if c.which == "extern":
            mm_buf = "buf%d" % buf
            buf += 1
            out.append("%s%s = %s((%d, %d), (%d, 1), torch.float32)" % (
                ind, mm_buf, empty, B, D, D))
            out.append(ind + "# " + topo_comment(m, L, "extern"))
            if version == 2:
                out.append("%s# [Provenance debug handles] %s" % (
                    ind, key_of(c, 2)))
            out.append("%sextern_kernels.addmm(%s, %s, reinterpret_tensor(%s, "
                       "(%d, %d), (1, %d), 0), alpha=1, beta=1, out=%s)" % (
                           ind, post_param_ref(m, L, 1), prev,
                           post_param_ref(m, L, 0), D, D, D, mm_buf))
            out.append("%sdel %s" % (ind, post_param_ref(m, L, 0)))
            out.append("%sdel %s" % (ind, post_param_ref(m, L, 1)))
            continue
        if m.combo:
            outs = ["buf%d" % (buf + i) for i in range(3)]
            buf += 3
            for o in outs:
                out.append("%s%s = %s((%d, %d), (%d, 1), torch.float32)" % (
                    ind, o, empty, B, D, D))
            out.append(ind + "# " + topo_comment(m, L, "fused"))
            if version == 2:
                out.append("%s# [Provenance debug handles] %s" % (
                    ind, key_of(c, 2)))
            out.append(ind + "stream0 = get_raw_stream(0)")
            n = B * D
            out.append("%s%s.run(%s, %s, %s, %s, %d, %d, %d, stream=stream0)"
                       % (ind, c.name, mm_buf, outs[0], outs[1], outs[2],
                          n, n, n))
            out.append("%sdel %s" % (ind, mm_buf))
            prev = outs[0]
            returns += outs[1:]
            continue
        o = "buf%d" % buf
        buf += 1
        out.append("%s%s = %s((%d, %d), (%d, 1), torch.float32)" % (
            ind, o, empty, B, D, D))
        out.append(ind + "# " + topo_comment(m, L, "fused"))
        if version == 2:
            out.append("%s# [Provenance debug handles] %s" % (ind,
                                                             key_of(c, 2)))
        args = "%s, %s, %s, %s, %s" % (mm_buf, prev, post_param_ref(m, L, 2),
                                       post_param_ref(m, L, 3), o)
        if m.cuda:
            out.append(ind + "stream0 = get_raw_stream(0)")
            out.append("%s%s.run(%s, %d, %d, stream=stream0)" % (
                ind, c.name, args, B, D))
        else:
            out.append("%s%s(%s)" % (ind, c.name, args))
        out.append("%sdel %s" % (ind, mm_buf))
        prev = o
    out.append("    return (%s, )" % ", ".join([prev] + returns))
    out.append("")
    out.append("")
    out.append("def benchmark_compiled_module(times=10, repeat=10):")
    out.append("    from torch._dynamo.testing import rand_strided")
    out.append("    from torch._inductor.utils import print_performance")
    dev = "'cuda:0'" if m.cuda else "'cpu'"
    for L in m.layers:
        for i, pn in enumerate(L.param_names):
            shape = "(%d, %d), (%d, 1)" % (D, D, D) if pn == "fc_weight" \
                else "(%d, ), (1, )" % D
            out.append("    %s = rand_strided(%s, device=%s, "
                       "dtype=torch.float32)" % (post_param_ref(m, L, i),
                                                 shape, dev))
    out.append("    %s = rand_strided((%d, %d), (%d, 1), device=%s, "
               "dtype=torch.float32)" % (x, B, D, D, dev))
    out.append("    fn = lambda: call([%s])" % ", ".join(names))
    out.append("    return print_performance(fn, times=times, repeat=repeat)")
    out.append("")
    out.append("")
    out.append('if __name__ == "__main__":')
    out.append("    from torch._inductor.wrapper_benchmark import "
               "compiled_module_main")
    out.append("    compiled_module_main('None', benchmark_compiled_module)")
    out.append("")
    return out


# --------------------------------------------------------------------------
# AOTInductor C++ wrapper (graph_dump inductor_aot_wrapper_code) and the
# kernel file (graph_dump inductor_aot_kernel_code).

AOT_PRELUDE = r"""
#include <torch/csrc/inductor/aoti_include/{device}.h>
// Definition of AOTI runtime interface functions

#include <torch/csrc/inductor/aoti_runtime/interface.h>
#include <torch/csrc/inductor/aoti_runtime/model_container.h>

#include <iostream>
#include <vector>

#define CONVERT_EXCEPTION_TO_ERROR_CODE(...)      \
  try {                                           \
    __VA_ARGS__                                   \
  } catch (const std::exception& e) {             \
    std::cerr << "Error: " << e.what() << '\n';   \
    return AOTI_RUNTIME_FAILURE;                  \
  } catch (...) {                                 \
    std::cerr << "Unknown exception occurred.\n"; \
    return AOTI_RUNTIME_FAILURE;                  \
  }                                               \
  return AOTI_RUNTIME_SUCCESS;

extern "C" {

AOTIRuntimeError AOTInductorModelContainerDelete(
    AOTInductorModelContainerHandle container_handle) {
  CONVERT_EXCEPTION_TO_ERROR_CODE({
    auto* container =
        reinterpret_cast<torch::aot_inductor::AOTInductorModelContainer*>(
            container_handle);
    delete container;
  });
}

AOTIRuntimeError AOTInductorModelRun(
    AOTInductorModelHandle model_handle,
    AtenTensorHandle* input_handles,
    AtenTensorHandle* output_handles) {
  auto model =
      reinterpret_cast<torch::aot_inductor::AOTInductorModel*>(model_handle);
  CONVERT_EXCEPTION_TO_ERROR_CODE({
    AOTINoGradGuard guard;
    model->run_impl(
        input_handles,
        output_handles,
        (torch::aot_inductor::DeviceStreamType) nullptr,
        nullptr);
  })
}

} // extern "C"
"""

AOT_CUDA_HELPERS = r"""
#define CUDA_DRIVER_CHECK(EXPR)                    \
do {                                               \
    CUresult code = EXPR;                          \
    const char *msg;                               \
    CUresult code_get_error = cuGetErrorString(code, &msg); \
    if (code != CUDA_SUCCESS) {                    \
        throw std::runtime_error(                  \
            std::string("CUDA driver error: ") +   \
            std::string(msg));                     \
    }                                              \
} while (0);

static inline CUfunction loadKernel(
        std::string filePath,
        const std::string &funcName,
        uint32_t sharedMemBytes,
        const std::optional<std::string> &cubinDir = std::nullopt) {
    if (cubinDir) {
        std::filesystem::path p1{*cubinDir};
        std::filesystem::path p2{filePath};
        filePath = (p1 / p2.filename()).string();
    }

    CUmodule mod;
    CUfunction func;
    CUDA_DRIVER_CHECK(cuModuleLoad(&mod, filePath.c_str()));
    CUDA_DRIVER_CHECK(cuModuleGetFunction(&func, mod, funcName.c_str()));
    return func;
}

static inline void launchKernel(
        CUfunction func,
        uint32_t gridX,
        uint32_t gridY,
        uint32_t gridZ,
        uint32_t numWarps,
        uint32_t sharedMemBytes,
        void* args[],
        cudaStream_t stream) {
    CUDA_DRIVER_CHECK(cuLaunchKernel(
        func, gridX, gridY, gridZ, 32*numWarps, 1, 1, sharedMemBytes, stream, args, nullptr
    ));
}"""


def aot_wrapper(m, version, cache_dir):
    D, B = m.D, m.B
    dev = "cuda" if m.cuda else "cpu"
    defs = kernel_defs(m)
    out = AOT_PRELUDE.replace("{device}", dev).split("\n")
    if m.cuda:
        out += AOT_CUDA_HELPERS.split("\n")
    else:
        out.append("")
        for _, name, _ in defs:
            out.append('extern "C"  void %s(const float* in_ptr0,' % name)
            out.append("                       const float* in_ptr1,")
            out.append("                       const float* in_ptr2,")
            out.append("                       const float* in_ptr3,")
            out.append("                       float* out_ptr2);")
    out += ["CACHE_TORCH_DTYPE(float32);", "CACHE_TORCH_DEVICE(%s);" % dev,
            "CACHE_TORCH_LAYOUT(strided);", "namespace torch::aot_inductor {",
            "namespace {",
            "class AOTInductorModelKernels : public AOTInductorModelKernelsBase {",
            "  public:"]
    if m.cuda:
        for _, name, _ in sorted(defs, key=lambda d: d[1]):
            out.append("    CUfunction %s{nullptr};" % name)
    out += ["};", "}  // namespace", "", "", ""]
    nconst = m.nparams
    out += [
        "AOTInductorModel::AOTInductorModel(std::shared_ptr<ConstantMap> "
        "constants_map,",
        "                                   std::shared_ptr<std::vector<"
        "ConstantHandle>> constants_array,",
        "                                   const std::string& device_str,",
        "                                   std::optional<std::string> "
        "cubin_dir,",
        "                                   bool include_weights)",
        "    : AOTInductorModelBase(1,",
        "                           1,",
        "                           %d," % nconst,
        "                           device_str,",
        "                           std::move(cubin_dir),",
        "                           true) {",
        '    inputs_info_[0].name = "%s";' % post_inputs(m),
    ]
    ci = 0
    for L in m.layers:
        for i, pn in enumerate(L.param_names):
            name = post_param_ref(m, L, i)
            shape = "{%d, %d}" % (D, D) if pn == "fc_weight" else "{%d}" % D
            out += [
                '    constants_info_[%d].name = "%s";' % (ci, name),
                "    constants_info_[%d].dtype = static_cast<int32_t>("
                "cached_torch_dtype_float32);" % ci,
                "    constants_info_[%d].shape = %s;" % (ci, shape),
                '    constants_info_[%d].original_fqn = "layers.%d.%s";' % (
                    ci, L.k, pn.replace("_", ".", 1)),
            ]
            ci += 1
    out += [
        "    update_constants_map(std::move(constants_map));",
        "    update_constants_array(std::move(constants_array));",
        '    outputs_info_[0].name = "output0";',
        "    this->kernels_ = std::make_unique<AOTInductorModelKernels>();",
        "}",
        "",
        "std::unordered_map<std::string, AtenTensorHandle> "
        "AOTInductorModel::const_run_impl(",
        "    DeviceStreamType stream,",
        "    AOTIProxyExecutorHandle proxy_executor,",
        "    bool initialization",
        ") {",
        "",
        "    if (!initialization) {",
        '        std::cerr << "[WARNING] Calling constant_folding in model, but '
        'compiled with config: "',
        '                  << "aot_inductor.use_runtime_constant_folding='
        'False\\n";',
        "    }",
        "    return {};",
        "}",
        "} // namespace torch::aot_inductor",
        "using namespace torch::aot_inductor;",
    ]
    if m.cuda:
        for _, name, _ in defs:
            out.append("")
            out += aot_launcher(m, name, cache_dir)
    out += [
        "namespace torch::aot_inductor {",
        "",
        "void AOTInductorModel::_const_run_impl(",
        "    std::vector<AtenTensorHandle>& output_handles,",
        "    DeviceStreamType stream,",
        "    AOTIProxyExecutorHandle proxy_executor",
        ") {}",
        "",
        "void AOTInductorModel::run_impl(",
        "    AtenTensorHandle*",
        "        input_handles, // array of input AtenTensorHandle; handles",
        "                        // are stolen; the array itself is borrowed",
        "    AtenTensorHandle*",
        "        output_handles, // array for writing output AtenTensorHandle; "
        "handles",
        "                        // will be stolen by the caller; the array "
        "itself is",
        "                        // borrowed",
        "    DeviceStreamType stream,",
        "    AOTIProxyExecutorHandle proxy_executor",
        ") {",
        "    auto inputs = steal_from_raw_handles_to_raii_handles("
        "input_handles, 1);",
        "    auto %s = std::move(inputs[0]);" % post_inputs(m),
    ]
    ci = 0
    for L in m.layers:
        for i in range(len(L.param_names)):
            out.append("    [[maybe_unused]] auto %s = constants_->at(%d);" % (
                post_param_ref(m, L, i), ci))
            ci += 1
    out += ["    inputs.clear();",
            "    [[maybe_unused]] auto& kernels = static_cast<"
            "AOTInductorModelKernels&>(*this->kernels_.get());"]
    if m.cuda:
        out.append("    AOTICudaStreamGuard stream_guard(stream, "
                   "this->device_idx_);")
    arr = 0
    prev = post_inputs(m)
    buf = 0
    for c in calls(m):
        L = c.layer
        if c.which == "extern":
            mm_buf = "buf%d" % buf
            buf += 1
            out += aot_alloc(m, mm_buf, arr)
            arr += 2
            out.append("    // " + topo_comment(m, L, "extern"))
            out.append("    static constexpr int64_t int_array_%d[] = {%dL, "
                       "%dL};" % (arr, D, D))
            out.append("    static constexpr int64_t int_array_%d[] = {1L, "
                       "%dL};" % (arr + 1, D))
            if version == 2:
                out.append("    // [Provenance debug handles] " + key_of(c, 2))
            out.append(
                "    AOTI_TORCH_ERROR_CODE_CHECK(%s(%s, %s, %s, "
                "wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper("
                "%s, 2, int_array_%d, int_array_%d, 0L)), 1L, 1L));" % (
                    c.name, mm_buf, post_param_ref(m, L, 1), prev,
                    post_param_ref(m, L, 0), arr, arr + 1))
            arr += 2
            continue
        o = "buf%d" % buf
        buf += 1
        out += aot_alloc(m, o, arr)
        arr += 2
        out.append("    // " + topo_comment(m, L, "fused"))
        if version == 2:
            out.append("    // [Provenance debug handles] " + key_of(c, 2))
        ins = [mm_buf, prev, post_param_ref(m, L, 2), post_param_ref(m, L, 3)]
        if m.cuda:
            out.append("    call_%s(%s, %s, %dL, %dL, stream, kernels, "
                       "this->cubin_dir_);" % (c.name, ", ".join(ins), o, B,
                                               D))
        else:
            out.append("    %s(%s, (float*)(%s.data_ptr()));" % (
                c.name, ", ".join("(const float*)(%s.data_ptr())" % a
                                  for a in ins), o))
        out.append("    %s.reset();" % mm_buf)
        prev = o
    out += ["    output_handles[0] = %s.release();" % prev,
            "} // AOTInductorModel::run_impl",
            "} // namespace torch::aot_inductor", "", "", ""]
    return out


def aot_alloc(m, buf, arr):
    dev = "cuda" if m.cuda else "cpu"
    return [
        "    static constexpr int64_t int_array_%d[] = {%dL, %dL};" % (
            arr, m.B, m.D),
        "    static constexpr int64_t int_array_%d[] = {%dL, 1L};" % (
            arr + 1, m.D),
        "    AtenTensorHandle %s_handle;" % buf,
        "    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(2, "
        "int_array_%d, int_array_%d, cached_torch_dtype_float32, "
        "cached_torch_device_type_%s, this->device_idx_, &%s_handle));" % (
            arr, arr + 1, dev, buf),
        "    RAIIAtenTensorHandle %s(%s_handle);" % (buf, buf),
    ]


def aot_launcher(m, name, cache_dir):
    """static inline void call_<kernel>(...) with the Triton source kept in
    a comment, as cpp_wrapper_gpu.py writes it."""
    out = [
        "template <typename in_ptr0_type_, typename in_ptr1_type_, typename "
        "in_ptr2_type_, typename in_ptr3_type_, typename out_ptr2_type_, "
        "typename kernels_type_>",
        "static inline void call_%s(" % name,
        "    const in_ptr0_type_& in_ptr0,",
        "    const in_ptr1_type_& in_ptr1,",
        "    const in_ptr2_type_& in_ptr2,",
        "    const in_ptr3_type_& in_ptr3,",
        "    const out_ptr2_type_& out_ptr2,",
        "    int64_t xnumel,",
        "    int64_t r0_numel,",
        "    cudaStream_t stream_,",
        "    kernels_type_& kernels_,",
        "    const std::optional<std::string>& cubin_dir_ = std::nullopt",
        "){",
        "    /*",
        "    async_compile.triton('%s', '''" % name,
    ]
    for line in kernel_source(m, name):
        out.append(("    " + line) if line else "")
    out += [
        "    ''', device_str='cuda')",
        "    */",
        "    uint32_t grid_0 = xnumel;",
        "    uint32_t grid_1 = 1;",
        "    uint32_t grid_2 = 1;",
        "    if (grid_0 == 0 || grid_1 == 0 || grid_2 == 0) return;",
        "    if (kernels_.%s == nullptr) {" % name,
        '        kernels_.%s = loadKernel("%s/%s.cubin", "%s", 0, cubin_dir_); '
        % (name, cache_dir, m.hash52(), name),
        "    }",
        "    CUdeviceptr var_0 = reinterpret_cast<CUdeviceptr>("
        "in_ptr0.data_ptr());",
        "    CUdeviceptr var_1 = reinterpret_cast<CUdeviceptr>("
        "in_ptr1.data_ptr());",
        "    CUdeviceptr var_2 = reinterpret_cast<CUdeviceptr>("
        "in_ptr2.data_ptr());",
        "    CUdeviceptr var_3 = reinterpret_cast<CUdeviceptr>("
        "in_ptr3.data_ptr());",
        "    CUdeviceptr var_4 = reinterpret_cast<CUdeviceptr>("
        "out_ptr2.data_ptr());",
        "    int var_5 = xnumel;",
        "    int var_6 = r0_numel;",
        "    void* kernel_args_[] = {&var_0, &var_1, &var_2, &var_3, &var_4, "
        "&var_5, &var_6};",
        "    launchKernel(kernels_.%s, grid_0, grid_1, grid_2, 8, 0, "
        "kernel_args_, stream_);" % name,
        "}",
    ]
    return out


def aot_kernel_code(m, wrapper_path):
    out = ["// Triton kernels are embedded as comments in " + wrapper_path]
    if m.cuda:
        return out
    out.append("")
    for _, name, _ in kernel_defs(m):
        out += kernel_source(m, name)
        out.append("")
    return out


# --------------------------------------------------------------------------
# Provenance artifacts, consistent with the description above.


def node_mappings(m, version):
    pre_to_post, post_to_pre = {}, {}
    for L in m.layers:
        for post, pre in zip(L.post, L.post_pre):
            pre_to_post.setdefault(pre, []).append(post)
            post_to_pre.setdefault(post, []).append(pre)
    code_to_post, post_to_code = {}, {}
    for c in calls(m):
        key = key_of(c, version)
        lst = code_to_post.setdefault(key, [])
        for post in c.post:
            if post not in lst:
                lst.append(post)
            keys = post_to_code.setdefault(post, [])
            if key not in keys:
                keys.append(key)
    mapping = {"preToPost": pre_to_post, "postToPre": post_to_pre,
               "cppCodeToPost": code_to_post, "postToCppCode": post_to_code}
    if version == 2:
        mapping["version"] = 2.0
    return mapping


def kernel_stack_traces(m, version):
    traces = {}
    for c in calls(m):
        lst = traces.setdefault(key_of(c, version), [])
        for role in c.roles[::-1]:
            line, code = MODEL_SRC[role]
            if m.aot:
                s = 'File "%s", line %d, in forward\n    %s' % (MODEL_FILE,
                                                              line, code)
            else:
                s = '  File "%s", line %d, in forward\n    %s\n' % (
                    MODEL_FILE, line, code)
            if s not in lst:
                lst.append(s)
    return traces


def post_to_pre_nodes(m):
    """Era-B raw artifact inductor_post_to_pre_grad_nodes (v1 logs)."""
    out = {}
    for L in m.layers:
        for post, pre in zip(L.post, L.post_pre):
            out[post] = [{"name": pre, "target": "aten.%s.default" % pre,
                          "graph_id": m.graph_id,
                          "pass_name": "Interpreter_PropagateUnbackedSymInts",
                          "action": "create", "from_node": []}]
    return out


# --------------------------------------------------------------------------
# The log: one compile per frame, entries in the order PyTorch logs them.


def chromium(log, ctx, name, phase, ts, cid):
    event = {"name": name, "ts": ts, "args": {"compile_id": cid},
             "ph": phase, "cat": "dynamo_timed", "tid": 0, "pid": 0}
    log.entry("torch/_dynamo/utils.py:1946", "chromium_event", {}, ctx,
              json.dumps(event, indent=0))


def write_jit_frame(log, m, args, frame):
    ctx = [("frame_id", frame), ("frame_compile_id", 0), ("attempt", 0)]
    cid = "%d/0" % frame
    ts = 1756720800000000 + frame * 10000000
    f_convert = log.intern("torch/_dynamo/convert_frame.py")
    f_model = log.intern(MODEL_FILE)
    stack = [{"line": 40, "name": "<module>", "filename": f_model,
              "loc": "main()"},
             {"line": 36, "name": "main", "filename": f_model,
              "loc": "compiled(x)"},
             {"line": 1487, "name": "__call__", "filename": f_convert,
              "loc": "return self._torchdynamo_orig_backend(frame, "
                     "cache_entry, self.hooks, frame_state, skip=1)"},
             {"line": 20, "name": "forward", "filename": f_model}]
    log.entry("torch/_dynamo/convert_frame.py:246", "dynamo_start",
              {"stack": stack}, ctx)
    if args.chromium_events:
        chromium(log, ctx, "dynamo", "B", ts, cid)
    pre = pre_grad_graph(m)
    sizes = {"l_x_": [m.B, m.D]}
    for L in m.layers:
        for name in L.pre:
            sizes[name] = [m.B, m.D]
    log.entry("torch/_dynamo/output_graph.py:1752", "dynamo_output_graph",
              {"sizes": sizes}, ctx, pre[:-2])
    if args.chromium_events:
        chromium(log, ctx, "inductor_compile", "B", ts + 1000, cid)
    log.entry("torch/_inductor/compile_fx.py:2223", "artifact",
              {"name": "before_pre_grad_graph", "encoding": "string"}, ctx,
              pre)
    log.entry("torch/_inductor/compile_fx.py:2254", "artifact",
              {"name": "after_pre_grad_graph", "encoding": "string"}, ctx, pre)
    del pre
    log.entry("torch/_inductor/compile_fx.py:1317", "artifact",
              {"name": "after_post_grad_graph", "encoding": "string"}, ctx,
              post_grad_graph(m))
    if args.mapping_version == 1:
        log.entry("torch/_inductor/compile_fx.py:1206", "artifact",
                  {"name": "inductor_post_to_pre_grad_nodes",
                   "encoding": "json"}, ctx, json.dumps(post_to_pre_nodes(m)))
    path = "/tmp/torchinductor_user/%s.py" % m.hash52()
    log.entry("torch/_inductor/graph.py:2390", "inductor_output_code",
              {"filename": path}, ctx,
              python_wrapper(m, args.mapping_version, frame))
    write_provenance(log, m, args, ctx)
    log.entry("torch/_dynamo/guards.py:3456", "dynamo_cpp_guards_str", {}, ctx,
              ["", "TREE_GUARD_MANAGER:", "+- RootGuardManager",
               "| +- DEFAULT_DEVICE: utils_device.CURRENT_DEVICE == None",
               "| +- GLOBAL_STATE: ___check_global_state()",
               "| +- GuardManager: source=L['x'], accessed_by=FrameLocalsGuard"
               "Accessor(key='x', framelocals_idx=1)",
               "| | +- TENSOR_MATCH: check_tensor(L['x'], Tensor, "
               "DispatchKeySet(CUDA, BackendSelect, ADInplaceOrView, "
               "AutogradCUDA), torch.float32, device=0, requires_grad=False, "
               "size=[%d, %d], stride=[%d, 1])" % (m.B, m.D, m.D), ""])
    if args.chromium_events:
        chromium(log, ctx, "inductor_compile", "E", ts + 900000, cid)
        chromium(log, ctx, "dynamo", "E", ts + 1000000, cid)
    log.entry("torch/_dynamo/utils.py:1641", "compilation_metrics", {
        "compile_id": cid, "frame_key": str(frame + 1), "co_name": "forward",
        "co_filename": MODEL_FILE, "co_firstlineno": 20, "cache_size": 0,
        "accumulated_cache_size": 0, "guard_count": 12,
        "graph_op_count": 4 * len(m.layers),
        "graph_node_count": 5 * len(m.layers) + 2,
        "graph_input_count": m.nparams + 1, "start_time": ts / 1e6,
        "entire_frame_compile_time_s": 1.0, "backend_compile_time_s": 0.9,
        "inductor_compile_time_s": 0.8, "code_gen_time_s": 0.3,
        "fail_type": None, "fail_reason": None, "fail_user_frame_filename":
        None, "fail_user_frame_lineno": None, "non_compliant_ops": [],
        "compliant_custom_ops": [], "restart_reasons": [],
        "dynamo_time_before_restart_s": 0.0, "has_guarded_code": True,
        "is_forward": True, "num_graph_breaks": 0}, ctx)


def write_aot_frame(log, m, args, frame):
    f_script = log.intern("/workspace/export_model.py")
    f_ind = log.intern("torch/_inductor/__init__.py")
    stack = [{"line": 48, "name": "<module>", "filename": f_script,
              "loc": "main()"},
             {"line": 44, "name": "main", "filename": f_script,
              "loc": "torch._inductor.aoti_compile_and_package(ep)"},
             {"line": 123, "name": "aoti_compile_and_package",
              "filename": f_ind,
              "loc": "return aot_compile(ep.module(), args, kwargs, "
                     "options=inductor_configs)"}]
    ctx = [("stack", stack)]
    if args.chromium_events:
        chromium(log, [], "inductor_compile", "B",
                 1756720800000000 + frame * 10000000, None)
    log.entry("torch/_inductor/compile_fx.py:2223", "artifact",
              {"name": "before_pre_grad_graph", "encoding": "string"}, ctx,
              pre_grad_graph(m))
    log.entry("torch/_inductor/compile_fx.py:1317", "artifact",
              {"name": "after_post_grad_graph", "encoding": "string"}, ctx,
              post_grad_graph(m))
    cache = "/tmp/torchinductor_user/%s" % m.hash52()
    wrapper = "%s/%s.wrapper.cpp" % (cache, m.hash52())
    log.entry("torch/_inductor/codecache.py:1650", "graph_dump",
              {"name": "inductor_aot_wrapper_code", "type": "cpp",
               "filename": wrapper}, ctx,
              aot_wrapper(m, args.mapping_version, cache))
    log.entry("torch/_inductor/codecache.py:1659", "graph_dump",
              {"name": "inductor_aot_kernel_code", "type": "cpp",
               "filename": "%s/%s.kernel.cpp" % (cache, m.hash52())}, ctx,
              aot_kernel_code(m, wrapper))
    write_provenance(log, m, args, ctx)
    if args.chromium_events:
        chromium(log, [], "inductor_compile", "E",
                 1756720800900000 + frame * 10000000, None)
    log.entry("torch/_dynamo/utils.py:1641", "compilation_metrics", {
        "compile_id": None, "frame_key": None, "co_name": None,
        "co_filename": None, "co_firstlineno": None, "cache_size": None,
        "accumulated_cache_size": None, "guard_count": None,
        "inductor_compile_time_s": 0.8, "code_gen_time_s": 0.3,
        "fail_type": None, "fail_reason": None, "is_forward": True}, [])


def write_provenance(log, m, args, ctx):
    version = args.mapping_version
    if version == 1:
        log.entry("torch/_inductor/compile_fx.py:967", "artifact",
                  {"name": "inductor_triton_kernel_to_post_grad_nodes",
                   "encoding": "json"}, ctx,
                  json.dumps(node_mappings(m, 1)["cppCodeToPost"]))
    log.entry("torch/_inductor/compile_fx.py:1063", "artifact",
              {"name": "inductor_provenance_tracking_node_mappings",
               "encoding": "json"}, ctx, json.dumps(node_mappings(m, version)))
    if args.stack_traces:
        log.entry("torch/_inductor/compile_fx.py:1073", "artifact",
                  {"name": "inductor_provenance_tracking_kernel_stack_traces",
                   "encoding": "json"}, ctx,
                  json.dumps(kernel_stack_traces(m, version)))


def generate(args, out):
    log = Log(out, 4000 + random.Random(args.seed).randrange(60000))
    for frame in range(args.frames):
        # Each frame is its own compile of the same model, with its own
        # widths and hashes drawn from the seed.
        m = Model(args.shape, args.layers, args.seed * 1000 + frame)
        if m.aot:
            write_aot_frame(log, m, args, frame)
        else:
            write_jit_frame(log, m, args, frame)


def main(argv=None):
    p = argparse.ArgumentParser(
        description="Write a realistic TORCH_TRACE log (see docs/tracegen.md)")
    p.add_argument("--shape", choices=SHAPES, default="jit-cuda")
    p.add_argument("--layers", type=int, default=3,
                   help="transformer-like blocks per compile (default 3)")
    p.add_argument("--mapping-version", type=int, choices=(1, 2), default=2,
                   help="node-mappings format: 1 (bare kernel names) or 2 "
                        "(kernel:handle keys and handle comments; default)")
    p.add_argument("--stack-traces", action="store_true",
                   help="also log inductor_provenance_tracking_kernel_stack_"
                        "traces")
    p.add_argument("--frames", type=int, default=1,
                   help="number of compiles (JIT: compile ids [0/0], [1/0], "
                        "...; AOT: several compiles without compile id)")
    p.add_argument("--chromium-events", action="store_true",
                   help="add chromium_event begin/end entries")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("-o", "--output", default="-",
                   help="output file (default: standard output)")
    args = p.parse_args(argv)
    if args.layers < 1 or args.frames < 1:
        p.error("--layers and --frames must be at least 1")
    if args.output == "-":
        out = sys.stdout
        generate(args, out)
        out.flush()
    else:
        with open(args.output, "w", encoding="utf-8", newline="\n") as out:
            generate(args, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
