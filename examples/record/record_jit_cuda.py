"""JIT Inductor on CUDA (Triton kernels), with provenance.

    TORCH_TRACE=/tmp/trace_jit_cuda INDUCTOR_PROVENANCE=1 python record_jit_cuda.py
"""

import torch

from model import Model, example_input


def main():
    torch.manual_seed(0)
    model = Model(layers=3).cuda().eval()
    x = example_input("cuda")
    compiled = torch.compile(model)
    with torch.no_grad():
        out = compiled(x)
        torch.testing.assert_close(out, model(x), rtol=1e-3, atol=1e-3)
    print("compiled and checked; the trace is in $TORCH_TRACE")


if __name__ == "__main__":
    main()
