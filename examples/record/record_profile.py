"""A torch.profiler run of a compiled model on CPU with
torch._inductor.config.cpp.enable_kernel_profile = True, so each C++ kernel
shows in the profile as graph_<id>_<kernel>. Writes the Chrome trace to
profile.json.gz (in the current folder, or the folder given as argument).

    TORCH_TRACE=trace_profile INDUCTOR_PROVENANCE=1 python record_profile.py trace_profile
"""

import sys

import torch
import torch._inductor.config as inductor_config

from model import Model, example_input, profile_steps

if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    inductor_config.cpp.enable_kernel_profile = True
    torch.manual_seed(0)
    model = Model(layers=2, d=32).eval()
    x = example_input("cpu", d=32)
    compiled = torch.compile(model)
    with torch.no_grad():
        compiled(x)                   # compile outside the profile
    profile_steps(lambda: compiled(x), out)
