# AOT ID: ['0_forward']
from ctypes import c_void_p, c_long, c_int
import torch
from torch._inductor.runtime.triton_heuristics import grid

aten = torch.ops.aten
async_compile = AsyncCompile()


# kernel path: /tmp/torchinductor_user/ab/cab12.py
# Topologically Sorted Source Nodes: [x, x_1], Original ATen: [aten.relu, aten.threshold_backward]
# Source node to ATen node mapping:
#   x_1 => relu
triton_poi_fused_relu_threshold_backward_0 = async_compile.triton('triton_poi_fused_relu_threshold_backward_0', '''
import triton
import triton.language as tl

@triton.jit
def triton_poi_fused_relu_threshold_backward_0(in_out_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 128
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    tmp0 = tl.load(in_out_ptr0 + (xindex), xmask)
    tmp1 = tl.full([1], 0, tl.int32)
    tmp2 = triton_helpers.maximum(tmp1, tmp0)
    tmp3 = tmp2 <= 0.0
    tl.store(in_out_ptr0 + (xindex), tmp2, xmask)
    tl.store(out_ptr0 + (xindex), tmp3, xmask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_user/cd/ccd34.py
# Topologically Sorted Source Nodes: [d], Original ATen: [aten.mul]
triton_poi_fused_mul_1 = async_compile.triton('triton_poi_fused_mul_1', '''
import triton
import triton.language as tl

@triton.jit
def triton_poi_fused_mul_1(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 200
    xindex = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    tmp0 = tl.load(in_ptr0 + (xindex), xmask)
    tmp1 = 3.14
    tl.store(out_ptr0 + (xindex), tmp0 * tmp1, xmask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_user/ef/cef56.py
# Topologically Sorted Source Nodes: [d], Original ATen: [aten.mul]
triton_poi_fused_mul_10 = async_compile.triton('triton_poi_fused_mul_10', '''
import triton
import triton.language as tl

@triton.jit
def triton_poi_fused_mul_10(in_out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 200
    xindex = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    tmp0 = tl.load(in_out_ptr0 + (xindex), xmask)
    tl.store(in_out_ptr0 + (xindex), tmp0 * 1.0, xmask)
''', device_str='cuda')


async_compile.wait(globals())
del async_compile

def call(args):
    primals_1, primals_2, primals_3 = args
    args.clear()
    with torch.cuda._DeviceGuard(0):
        torch.cuda.set_device(0)
        buf0 = empty_strided_cuda((8, 16), (16, 1), torch.float32)
        # Topologically Sorted Source Nodes: [x], Original ATen: [aten.t, aten.mm]
        # [Provenance debug handles] extern_kernels.mm:1
        extern_kernels.mm(primals_2, reinterpret_tensor(primals_1, (10, 16), (1, 10), 0), out=buf0)
        del primals_1
        buf1 = buf0; del buf0  # reuse
        buf2 = empty_strided_cuda((8, 16), (16, 1), torch.bool)
        # [Provenance debug handles] triton_poi_fused_relu_threshold_backward_0:2
        stream0 = get_raw_stream(0)
        triton_poi_fused_relu_threshold_backward_0.run(buf1, buf2, 128, stream=stream0)
        buf3 = empty_strided_cuda((10, 20), (20, 1), torch.float32)
        # [Provenance debug handles] triton_poi_fused_mul_1:3
        triton_poi_fused_mul_1.run(primals_3, buf3, 200, stream=stream0)
        del primals_3
        # [Provenance debug handles] triton_poi_fused_mul_10:4
        triton_poi_fused_mul_10.run(buf3, 200, stream=stream0)
    return (buf1, buf3, primals_2, buf2, )


def benchmark_compiled_module(times=10, repeat=10):
    from torch._inductor.utils import print_performance
    return print_performance(lambda: call([]), times=times, repeat=repeat)
