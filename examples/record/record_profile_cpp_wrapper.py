"""A torch.profiler run of a model compiled with
torch._inductor.config.cpp_wrapper = True on CPU, with
cpp.enable_kernel_profile = True so that each C++ kernel shows in the
profile as graph_<id>_<kernel> (the C shim's externs record themselves, as
aoti_torch_cpu_addmm_out). Writes the Chrome trace to profile.json.gz (in
the folder given as argument).

    TORCH_TRACE=trace INDUCTOR_PROVENANCE=1 python record_profile_cpp_wrapper.py trace
"""

import sys

import torch
import torch._inductor.config as inductor_config

from model import Model, example_input, profile_steps

if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    inductor_config.cpp.enable_kernel_profile = True
    inductor_config.cpp_wrapper = True
    torch.manual_seed(0)
    model = Model(layers=2, d=32).eval()
    x = example_input("cpu", d=32)
    compiled = torch.compile(model)
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), model(x), rtol=1e-3, atol=1e-3)
    profile_steps(lambda: compiled(x), out)
