"""JIT Inductor on CPU (C++ kernels), with provenance.

    TORCH_TRACE=/tmp/trace_jit_cpu INDUCTOR_PROVENANCE=1 python record_jit_cpu.py
"""

from model import record_jit

if __name__ == "__main__":
    record_jit("cpu")
