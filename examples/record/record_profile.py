"""A torch.profiler run of a compiled model on CPU with
torch._inductor.config.cpp.enable_kernel_profile = True, so each C++ kernel
shows in the profile as graph_<id>_<kernel>. Writes the Chrome trace to
profile.json.gz (in the current folder, or the folder given as argument).

    TORCH_TRACE=trace_profile INDUCTOR_PROVENANCE=1 python record_profile.py trace_profile
"""

import gzip
import os
import shutil
import sys

import torch
import torch._inductor.config as inductor_config
from torch.profiler import ProfilerActivity, profile, schedule

from model import Model, example_input

if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    inductor_config.cpp.enable_kernel_profile = True
    torch.manual_seed(0)
    model = Model(layers=2, d=32).eval()
    x = example_input("cpu", d=32)
    compiled = torch.compile(model)
    os.makedirs(out, exist_ok=True)
    plain = os.path.join(out, "profile.json")
    with torch.no_grad():
        compiled(x)                   # compile outside the profile
        with profile(activities=[ProfilerActivity.CPU],
                     schedule=schedule(wait=0, warmup=1, active=3),
                     on_trace_ready=lambda p: p.export_chrome_trace(plain)
                     ) as prof:
            for _ in range(4):
                compiled(x)
                prof.step()
    with open(plain, "rb") as f, gzip.open(plain + ".gz", "wb") as g:
        shutil.copyfileobj(f, g)
    os.remove(plain)
    print("profiled; %s.gz beside the trace in $TORCH_TRACE" % plain)
