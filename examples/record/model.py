"""The model the recording scripts compile: the same transformer-like blocks
that tests/tracegen/gen_trace.py imitates (linear, gelu, residual add, layer
norm), and a combo variant whose relu/sigmoid/tanh are independent."""

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc = nn.Linear(d, d)
        self.norm = nn.LayerNorm(d)

    def forward(self, x):
        y = self.fc(x)
        y = torch.nn.functional.gelu(y)
        x = x + y
        x = self.norm(x)
        return x


class ComboBlock(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc = nn.Linear(d, d)

    def forward(self, x):
        y = self.fc(x)
        x = torch.relu(y)
        s = torch.sigmoid(y)
        t = torch.tanh(y)
        return x, s, t


class Model(nn.Module):
    def __init__(self, layers=3, d=64, combo=False):
        super().__init__()
        block = ComboBlock if combo else Block
        self.combo = combo
        self.layers = nn.ModuleList(block(d) for _ in range(layers))

    def forward(self, x):
        extra = []
        for layer in self.layers:
            if self.combo:
                x, s, t = layer(x)
                extra += [s, t]
            else:
                x = layer(x)
        return (x, *extra) if extra else x


def example_input(device, batch=8, d=64):
    return torch.randn(batch, d, device=device)


def model_and_inputs(device, build, inputs, combo=False):
    """After the seed: the model on `device` in eval mode (Model(layers=3),
    or what `build()` makes) and its inputs (one example_input, or the
    tuple `inputs()` gives)."""
    torch.manual_seed(0)
    model = (build() if build else Model(layers=3, combo=combo))
    args = inputs() if inputs else (example_input(device),)
    return model.to(device).eval(), args


def record_jit(device, combo=False, build=None, inputs=None):
    """torch.compile the model on `device` (see model_and_inputs), run it
    and check it against eager mode; the trace goes to the folder named by
    TORCH_TRACE."""
    import torch._inductor.config as inductor_config

    inductor_config.combo_kernels = combo
    model, args = model_and_inputs(device, build, inputs, combo)
    compiled = torch.compile(model)
    with torch.no_grad():
        torch.testing.assert_close(compiled(*args), model(*args), rtol=1e-3,
                                   atol=1e-3)
    print("compiled and checked; the trace is in $TORCH_TRACE")


def record_aot(device, build=None, inputs=None):
    """Export the model (see model_and_inputs), compile and package it with
    AOTInductor, load the package and check it against eager mode."""
    import os
    import tempfile

    model, args = model_and_inputs(device, build, inputs)
    # The package lives in a temporary folder removed after the check.
    with torch.no_grad(), tempfile.TemporaryDirectory() as folder:
        ep = torch.export.export(model, args)
        path = os.path.join(folder, "model.pt2")
        torch._inductor.aoti_compile_and_package(ep, package_path=path)
        loaded = torch._inductor.aoti_load_package(path)
        torch.testing.assert_close(loaded(*args), model(*args), rtol=1e-3,
                                   atol=1e-3)
    print("compiled, packaged and checked; the trace is in $TORCH_TRACE")


def profile_steps(run, out):
    """Profile four calls of `run` with torch.profiler on the CPU (one
    warm-up, three active steps) and write the Chrome trace to
    OUT/profile.json.gz; call it after a first call outside the profile."""
    import gzip
    import os
    import shutil

    from torch.profiler import ProfilerActivity, profile, schedule

    os.makedirs(out, exist_ok=True)
    plain = os.path.join(out, "profile.json")
    with torch.no_grad():
        with profile(activities=[ProfilerActivity.CPU],
                     schedule=schedule(wait=0, warmup=1, active=3),
                     on_trace_ready=lambda p: p.export_chrome_trace(plain)
                     ) as prof:
            for _ in range(4):
                run()
                prof.step()
    with open(plain, "rb") as f, gzip.open(plain + ".gz", "wb") as g:
        shutil.copyfileobj(f, g)
    os.remove(plain)
    print("profiled; %s.gz beside the trace in $TORCH_TRACE" % plain)
