"""AOTInductor on CPU: export, compile and package, then load and run.

    TORCH_TRACE=/tmp/trace_aot_cpu INDUCTOR_PROVENANCE=1 python record_aot_cpu.py
"""

import os
import tempfile

import torch

from model import Model, example_input

DEVICE = "cpu"


def main():
    torch.manual_seed(0)
    model = Model(layers=3).to(DEVICE).eval()
    x = example_input(DEVICE)
    with torch.no_grad():
        ep = torch.export.export(model, (x,))
        path = os.path.join(tempfile.mkdtemp(), "model.pt2")
        torch._inductor.aoti_compile_and_package(ep, package_path=path)
        loaded = torch._inductor.aoti_load_package(path)
        torch.testing.assert_close(loaded(x), model(x), rtol=1e-3, atol=1e-3)
    print("compiled %s and checked; the trace is in $TORCH_TRACE" % path)


if __name__ == "__main__":
    main()
