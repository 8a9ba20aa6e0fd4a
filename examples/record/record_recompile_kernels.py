"""Recompiles whose kernels change, on CPU: what the compiles of a frame
have in common and what differs, kernel by kernel.

Each case is compiled, then called so that a guard of its compile fails:
  Gate(act)     a module attribute: act "relu", then "gelu"       -> [0/1]
  spread(x)     dynamic=True: batch 4 (a symbolic batch), then
                batch 1 (0 and 1 are never symbolic)             -> [1/1]
  auto(x)       the default (automatic dynamic), with the C++
                wrapper (cpp_wrapper=True): batch 4, then 6      -> [2/1]
  Stages(at)    a graph break whose place is a module attribute:
                after the first stage, then after the second     -> [3/1]

    TORCHINDUCTOR_CACHE_DIR=$(mktemp -d) TORCH_TRACE=trace INDUCTOR_PROVENANCE=1 python record_recompile_kernels.py
"""

import torch
import torch._inductor.config as inductor_config


class Gate(torch.nn.Module):
    """relu: one kernel before the linear layer and one after it; gelu: a
    linear layer more, so the kernel after the last one is renumbered."""

    def __init__(self):
        super().__init__()
        self.act = "relu"
        self.pre = torch.nn.Linear(16, 16)
        self.fc = torch.nn.Linear(16, 16)

    def forward(self, x):
        y = x * 2 + 1
        if self.act == "relu":
            y = torch.relu(y)
        else:
            y = torch.nn.functional.gelu(self.pre(y))
        return self.fc(y).sum(-1)


def spread(x):
    return torch.softmax(x * 3, dim=-1) + x


def auto(x):
    return torch.sigmoid(x) * x - 1


class Stages(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.break_after = 1

    def forward(self, x):
        x = torch.sin(x) + 1
        if self.break_after == 1:
            torch._dynamo.graph_break()
        x = torch.cos(x) * 2
        if self.break_after == 2:
            torch._dynamo.graph_break()
        return torch.exp(x) - 1


def check(compiled, eager, x):
    torch.testing.assert_close(compiled(x), eager(x), rtol=1e-4, atol=1e-4)


if __name__ == "__main__":
    torch.manual_seed(0)
    x = torch.randn(4, 16)
    with torch.no_grad():
        gate = Gate()
        compiled_gate = torch.compile(gate)
        check(compiled_gate, gate, x)
        gate.act = "gelu"
        check(compiled_gate, gate, x)          # act == 'relu' fails

        compiled_spread = torch.compile(spread, dynamic=True)
        check(compiled_spread, spread, x)
        check(compiled_spread, spread, torch.randn(1, 16))  # 2 <= size fails

        with inductor_config.patch(cpp_wrapper=True):
            compiled_auto = torch.compile(auto)
            check(compiled_auto, auto, x)
            check(compiled_auto, auto, torch.randn(6, 16))  # size: dynamic

        stages = Stages()
        compiled_stages = torch.compile(stages)
        check(compiled_stages, stages, x)
        stages.break_after = 2
        check(compiled_stages, stages, x)      # break_after == 1 fails
    print("recompiled; the trace is in $TORCH_TRACE")
