"""torch.cond on CPU, with provenance: the branches are subgraphs, printed as
classes nested in the post-grad graph (`class true_graph_0`), and their nodes
(`relu`, `sigmoid`) are named in the node mappings beside the outer graph's.

    TORCH_TRACE=/tmp/trace_cond INDUCTOR_PROVENANCE=1 python record_cond.py
"""

import torch
from torch import nn

from model import Block, record_jit


class CondModel(nn.Module):
    """Two blocks, then a data-dependent branch: relu(x) * 2 when the sum
    is positive, else sigmoid(x) - 1 (the `mul` and `sub` names of the
    branches are also names of the outer graph's layer norm)."""

    def __init__(self, d=64):
        super().__init__()
        self.blocks = nn.Sequential(Block(d), Block(d))

    def forward(self, x):
        x = self.blocks(x)

        def positive(x):
            return torch.relu(x) * 2

        def negative(x):
            return torch.sigmoid(x) - 1

        return torch.cond(x.sum() > 0, positive, negative, (x,))


if __name__ == "__main__":
    record_jit("cpu", build=CondModel)
