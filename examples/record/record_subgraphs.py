"""Subgraphs that Inductor lifts into functions of the output code, on CPU,
with provenance: a nested_compile_region called twice (one subgraph,
`repeated_subgraph0`, invoked twice) and a torch.cond whose true branch
holds another torch.cond (a subgraph nested in a subgraph). Their nodes
share names with the outer graph's (`mul`, the layer norms'), and some
kernels name nothing else: which graph such a kernel's `mul` is, only the
function of the output code that calls it tells (`def repeated_subgraph0`,
`def true_graph_0_true_graph_0`).

    TORCH_TRACE=/tmp/trace_subgraphs INDUCTOR_PROVENANCE=1 python record_subgraphs.py
"""

import torch
from torch import nn

from model import Block, record_jit


@torch.compiler.nested_compile_region
def halve(x):
    return x * 0.5


class SubgraphModel(nn.Module):
    """Two blocks, the region twice (or, with region=False, what it computes:
    Inductor's C++ wrappers have no invoke_subgraph), then a branch on the
    sum whose positive side branches again on the mean."""

    def __init__(self, d=64, region=True):
        super().__init__()
        self.blocks = nn.Sequential(Block(d), Block(d))
        self.halve = halve if region else (lambda x: x * 0.5)

    def forward(self, x):
        x = self.blocks(x)
        x = self.halve(x)
        x = self.halve(torch.relu(x))

        def inner_positive(x):
            return x * 2

        def inner_negative(x):
            return x * 3

        def positive(x):
            return torch.cond(x.mean() > 0.1, inner_positive, inner_negative, (x,))

        def negative(x):
            return torch.sigmoid(x) - 1

        return torch.cond(x.sum() > 0, positive, negative, (x,))


if __name__ == "__main__":
    record_jit("cpu", build=SubgraphModel)
