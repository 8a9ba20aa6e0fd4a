"""NEEDS A CUDA GPU (not recorded yet). AOTInductor on CUDA: export, compile and package, then load and run.

    TORCH_TRACE=/tmp/trace_aot_cuda INDUCTOR_PROVENANCE=1 python record_aot_cuda.py
"""

from model import record_aot

if __name__ == "__main__":
    record_aot("cuda")
