"""Combo kernels on CUDA: independent pointwise ops in one Triton kernel.

    TORCH_TRACE=/tmp/trace_combo INDUCTOR_PROVENANCE=1 python record_combo.py
"""

import torch
import torch._inductor.config as inductor_config

from model import Model, example_input


def main():
    torch.manual_seed(0)
    inductor_config.combo_kernels = True
    model = Model(layers=3, combo=True).cuda().eval()
    x = example_input("cuda")
    compiled = torch.compile(model)
    with torch.no_grad():
        out = compiled(x)
        torch.testing.assert_close(out, model(x), rtol=1e-3, atol=1e-3)
    print("compiled and checked; the trace is in $TORCH_TRACE")


if __name__ == "__main__":
    main()
