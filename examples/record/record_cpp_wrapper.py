"""JIT Inductor on CPU with the C++ wrapper
(torch._inductor.config.cpp_wrapper = True): the output code is Python that
compiles a C++ wrapper and its kernels in one cpp_pybinding.

    TORCH_TRACE=trace_cpp_wrapper INDUCTOR_PROVENANCE=1 python record_cpp_wrapper.py
"""

import torch._inductor.config as inductor_config

from model import record_jit

if __name__ == "__main__":
    inductor_config.cpp_wrapper = True
    record_jit("cpu")
