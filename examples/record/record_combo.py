"""NEEDS A CUDA GPU (not recorded yet). Combo kernels on CUDA: independent pointwise ops in one Triton kernel
(torch._inductor.config.combo_kernels = True).

    TORCH_TRACE=/tmp/trace_combo INDUCTOR_PROVENANCE=1 python record_combo.py
"""

from model import record_jit

if __name__ == "__main__":
    record_jit("cuda", combo=True)
