"""A torch.profiler run of an AOTInductor-compiled model on CPU, with
torch._inductor.config.cpp.enable_kernel_profile = True so that each C++
kernel shows in the profile as graph_<id>_<kernel>. Exports, compiles and
packages the model (Model(layers=2, d=32)), loads the package, runs it once
outside the profile, then profiles three steps after one warm-up. Writes the
Chrome trace to profile.json.gz (in the folder given as argument).

    TORCH_TRACE=trace INDUCTOR_PROVENANCE=1 python record_profile_aot_cpu.py trace
"""

import os
import sys
import tempfile

import torch
import torch._inductor.config as inductor_config

from model import Model, example_input, profile_steps

if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    inductor_config.cpp.enable_kernel_profile = True
    torch.manual_seed(0)
    model = Model(layers=2, d=32).eval()
    x = example_input("cpu", d=32)
    # The package lives in a temporary folder removed after the profile.
    with tempfile.TemporaryDirectory() as folder:
        with torch.no_grad():
            ep = torch.export.export(model, (x,))
            path = os.path.join(folder, "model.pt2")
            torch._inductor.aoti_compile_and_package(ep, package_path=path)
            loaded = torch._inductor.aoti_load_package(path)
            torch.testing.assert_close(loaded(x), model(x), rtol=1e-3,
                                       atol=1e-3)
        profile_steps(lambda: loaded(x), out)
