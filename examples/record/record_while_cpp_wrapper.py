"""torch.while_loop with torch._inductor.config.cpp_wrapper = True on CPU:
the C++ wrapper inlines the loop's condition and body one after the other
in one block, `while (1) { // subgraph: while_loop_cond_graph_0 ...
// subgraph: while_loop_body_graph_0 ... }`, and the body's `mul` shares its
name with the layer norms' before the loop.

    TORCH_TRACE=/tmp/trace_while INDUCTOR_PROVENANCE=1 python record_while_cpp_wrapper.py
"""

import torch
import torch._inductor.config as inductor_config
from torch import nn
from torch._higher_order_ops.while_loop import while_loop

from model import Block, example_input, record_jit


class WhileModel(nn.Module):
    """Two blocks, then three turns of relu(x) * 2."""

    def __init__(self, d=64):
        super().__init__()
        self.blocks = nn.Sequential(Block(d), Block(d))

    def forward(self, it, x):
        x = self.blocks(x)

        def cond_fn(it, x):
            return it < 3

        def body_fn(it, x):
            return it + 1, torch.relu(x) * 2

        return while_loop(cond_fn, body_fn, (it, x))


if __name__ == "__main__":
    inductor_config.cpp_wrapper = True
    record_jit("cpu", build=WhileModel,
               inputs=lambda: (torch.tensor(0), example_input("cpu")))
