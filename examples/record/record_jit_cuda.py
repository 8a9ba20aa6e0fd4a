"""NEEDS A CUDA GPU (not recorded yet). JIT Inductor on CUDA (Triton kernels), with provenance.

    TORCH_TRACE=/tmp/trace_jit_cuda INDUCTOR_PROVENANCE=1 python record_jit_cuda.py
"""

from model import record_jit

if __name__ == "__main__":
    record_jit("cuda")
