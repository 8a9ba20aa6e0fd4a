"""Records the small real CPU profile the profile tests use (torch 2.13, CPU).

Run from the checkout:  build/venv/bin/python tests/profile/record_cpu_profile.py OUT_DIR
Writes OUT_DIR/trace/ (TORCH_TRACE log with provenance) and OUT_DIR/profile.json
(torch.profiler Chrome trace of 3 steps after 1 warm-up, forward + backward
of a compiled model, with cpp.enable_kernel_profile so each C++ kernel has
its own event named graph_<id>_cpp_fused_...).
"""
import os
import sys

out = os.path.abspath(sys.argv[1])
os.makedirs(out, exist_ok=True)
os.environ["TORCH_TRACE"] = os.path.join(out, "trace")
os.environ["INDUCTOR_PROVENANCE"] = "1"
os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", os.path.join(out, "cache"))

import torch  # noqa: E402
import torch._inductor.config as inductor_config  # noqa: E402

inductor_config.cpp.enable_kernel_profile = True
torch.manual_seed(0)
torch.set_num_threads(1)


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(64, 128)
        self.fc2 = torch.nn.Linear(128, 32)
        self.norm = torch.nn.LayerNorm(32)

    def forward(self, x):
        h = torch.relu(self.fc1(x)) * 2.0
        y = self.norm(self.fc2(h))
        return torch.tanh(y).sum(dim=1)


model = Model()
compiled = torch.compile(model)
x = torch.randn(32, 64)


def step():
    loss = compiled(x).pow(2).mean()
    loss.backward()


step()  # compile outside the profile
from torch.profiler import ProfilerActivity, profile, schedule  # noqa: E402

with profile(activities=[ProfilerActivity.CPU],
             schedule=schedule(wait=0, warmup=1, active=3, repeat=1)) as prof:
    for _ in range(4):
        step()
        prof.step()
prof.export_chrome_trace(os.path.join(out, "profile.json"))
